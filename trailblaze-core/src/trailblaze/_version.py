from __future__ import annotations

__version__ = "0.1.0"


def version_text() -> str:
    """``trailblaze --version``'s text: Trailblaze, Python and every installed plugin's distribution, one a
    line (the HTML report's *Environment* shows the same lines)."""
    import sys
    from importlib.metadata import entry_points

    lines = [f"trailblaze {__version__} (Python {sys.version.split()[0]})"]
    plugins: dict[tuple[str, str], list[str]] = {}
    for ep in entry_points(group="trailblaze"):
        dist = ep.dist
        if dist is not None:
            plugins.setdefault((dist.name, dist.version), []).append(ep.name)
    for (dist_name, version), names in sorted(plugins.items(), key=lambda item: sorted(item[1])[0]):
        label = "plugins" if len(names) > 1 else "plugin"
        lines.append(f"  {label} {', '.join(sorted(names))}: {dist_name} {version}")
    return "\n".join(lines)
