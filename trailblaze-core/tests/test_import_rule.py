"""The import rule of docs/architecture.md: the trail format and the tool model sit below the plugin host.

Nothing under ``trailblaze/trail/`` or ``trailblaze/tools/`` imports ``trailblaze.plugins`` (or the hook
specs the host is built from), at module level, under ``TYPE_CHECKING`` or inside a function: they take
a ``ToolCodec`` instead. Read from the source with ``ast``, so a lazy import cannot hide an arrow.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "trailblaze"
BELOW_THE_HOST = ("trail", "tools")
FORBIDDEN = {"trailblaze.plugins", "trailblaze.hookspecs"}
ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def _package(path: Path) -> str:
    return ".".join(("trailblaze", *path.parent.relative_to(PACKAGE).parts))


def _imports(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports (relative ones resolved); ``from x import y`` counts ``x.y`` too."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def test_trail_and_tools_never_import_the_plugin_host() -> None:
    offenders = []
    for folder in BELOW_THE_HOST:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            bad = sorted(_imports(path, _package(path)) & FORBIDDEN)
            if bad:
                offenders.append(f"{path.relative_to(PACKAGE)} imports {', '.join(bad)}")
    assert not offenders, "see docs/architecture.md (the import rule): " + "; ".join(offenders)


def _imports_of(module: str) -> set[str]:
    path = PACKAGE.joinpath(*module.split(".")[1:]).with_suffix(".py")
    return _imports(path, _package(path))


def test_the_contract_names_no_host() -> None:
    # hookspecs.py is what the host is built from: naming PluginHost (even for typing) would close a
    # circle; a plugin that asks the others something gets the PluginQueries protocol instead.
    assert not {m for m in _imports_of("trailblaze.hookspecs") if m.startswith("trailblaze.plugins")}
    assert not {m for m in _imports_of("trailblaze.plugin_queries")
                if m.startswith(("trailblaze.plugins", "trailblaze.hookspecs"))}


def test_servers_never_import_a_command_module() -> None:
    # The MCP workbench and the live sessions sit below trailblaze/commands/, which starts them: what a
    # command and a server share lives below both (screens.py), so no circle runs through a command.
    offenders = []
    for folder in ("mcp_server", "live"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            bad = sorted(m for m in _imports(path, _package(path)) if m.startswith("trailblaze.commands"))
            if bad:
                offenders.append(f"{path.relative_to(PACKAGE)} imports {', '.join(bad)}")
    assert not offenders, "see docs/architecture.md (Commands): " + "; ".join(offenders)


def test_the_rule_sees_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from typing import TYPE_CHECKING\n"
                     "if TYPE_CHECKING:\n    from ..plugins import PluginHost\n"
                     "def f():\n    from .. import hookspecs\n", encoding="utf-8")
    found = _imports(probe, "trailblaze.tools")
    assert {"trailblaze.plugins", "trailblaze.plugins.PluginHost", "trailblaze.hookspecs"} <= found


def test_the_architecture_page_states_the_rule_this_test_enforces() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert "test_import_rule.py" in text
    for folder in BELOW_THE_HOST:
        assert f"`trailblaze/{folder}/`" in text
    assert "`trailblaze.plugins`" in text
