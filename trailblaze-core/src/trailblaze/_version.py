from __future__ import annotations

__version__ = "0.1.0"


def version_text() -> str:
    """``trailblaze --version``'s text: Trailblaze, Python and every installed plugin's distribution, one a
    line (the HTML report's *Environment* shows the same lines)."""
    import sys
    from importlib.metadata import entry_points

    lines = [f"trailblaze {__version__} (Python {sys.version.split()[0]})"]
    seen = set()
    for ep in sorted(entry_points(group="trailblaze"), key=lambda e: e.name):
        dist = ep.dist
        if dist is None or dist.name in seen:
            continue
        seen.add(dist.name)
        lines.append(f"  plugin {ep.name}: {dist.name} {dist.version}")
    return "\n".join(lines)
