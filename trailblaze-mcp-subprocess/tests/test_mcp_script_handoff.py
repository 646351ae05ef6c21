"""``script:`` declarations read by trailblaze-yaml-tools and run by this plugin (SCRIPT_HANDOFF.md)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import trailblaze_yaml_tools.plugin as yaml_plugin
from trailblaze.config import load_workspace
from trailblaze.errors import BadInputError
from trailblaze.tools.base import ToolCall
from trailblaze.tools.registry import ToolRegistry

SERVERS = Path(__file__).parent / "servers"

TOOL_FILE = """
id: shop_seedDatabase
description: Seed the example shop database.
parameters:
  - {name: rows, type: integer, required: false, default: 10}
script: ./seed_server.py
"""


@pytest.fixture
def yaml_host(host: Any) -> Any:
    host.register(yaml_plugin, "yaml_tools")
    return host


def _shop(workspace: Any, tool_file: str = TOOL_FILE, manifest: str = "id: shop\n") -> Path:
    root = workspace("defaults: {}\n", files={
        "trails/config/trailmaps/shop/trailmap.yaml": manifest,
        "trails/config/trailmaps/shop/tools/shop_seedDatabase.tool.yaml": tool_file,
    })
    shutil.copy(SERVERS / "seed_server.py", root / "trails/config/trailmaps/shop/tools/seed_server.py")
    return root


def test_declared_tools_exist_before_any_server_runs(yaml_host: Any, workspace: Any) -> None:
    root = _shop(workspace)
    config = load_workspace(root, yaml_host)
    registry = ToolRegistry()
    yaml_host.register_tools(registry, config)
    seed = registry.get("shop_seedDatabase")
    assert seed is not None and seed.kind == "mcp" and seed.trailmap == "shop"
    assert seed.source.server == "seed_server" and str(seed.source.file).endswith("shop_seedDatabase.tool.yaml")
    assert [p.name for p in seed.parameters()] == ["rows"]
    assert "shop_countRows" not in registry  # undeclared tools appear once the server runs


def test_a_script_tool_says_read_only_and_core_in_its_tool_file(yaml_host: Any, workspace: Any) -> None:
    root = _shop(workspace, TOOL_FILE.replace("script:", "is_read_only: true\nis_core: true\nscript:"))
    config = load_workspace(root, yaml_host)
    registry = ToolRegistry()
    yaml_host.register_tools(registry, config)
    seed = registry.get("shop_seedDatabase")
    assert seed is not None and seed.is_read_only and seed.is_core
    described = yaml_host.codec(registry).describe(seed).mcp()
    assert described["annotations"] == {"readOnlyHint": True}  # what an MCP client of ours is told
    assert "trailblaze/isReadOnly" not in described["_meta"]  # upstream's _meta keys only


def test_calls_route_to_the_script_server(yaml_host: Any, workspace: Any, sessions: Any) -> None:
    session = sessions.start(_shop(workspace))
    assert session.dispatcher.call(ToolCall("shop_seedDatabase", {"rows": 3}), session.context()).message == "seeded 3 rows"
    assert session.dispatcher.call(ToolCall("shop_seedDatabase", {}), session.context()).message == "seeded 10 rows"
    extra = session.registry.get("shop_countRows")
    assert extra is not None and extra.trailmap == "shop"


def test_a_declared_tool_the_server_does_not_serve(yaml_host: Any, workspace: Any, sessions: Any) -> None:
    root = _shop(workspace, TOOL_FILE.replace("shop_seedDatabase", "shop_seedEverything"))
    (root / "trails/config/trailmaps/shop/tools/shop_seedDatabase.tool.yaml").rename(
        root / "trails/config/trailmaps/shop/tools/shop_seedEverything.tool.yaml")
    with pytest.raises(BadInputError, match="does not serve tool\\(s\\) shop_seedEverything"):
        sessions.start(root)


@pytest.mark.parametrize(("change", "message"), [
    (("./seed_server.py", "./missing.py"), "MCP server script not found: .*missing.py"),
    (("script: ./seed_server.py", "script: {source: ./seed_server.py, runtime: inProcess}"),
     "runtime 'inProcess' is not supported here"),
])
def test_bad_declarations_fail_the_file(yaml_host: Any, workspace: Any, change: tuple[str, str], message: str) -> None:
    root = _shop(workspace, TOOL_FILE.replace(*change))
    from trailblaze.checks import CheckReport

    config = load_workspace(root, yaml_host)
    registry = ToolRegistry()
    yaml_host.register_tools(registry, config)
    report = CheckReport()
    yaml_host.check_tools(registry, report, config)
    assert "shop_seedDatabase" not in registry
    import re

    assert any(re.search(message, f.render()) and "shop_seedDatabase.tool.yaml" in f.render() for f in report.errors), \
        [f.render() for f in report.errors]


def test_trailmap_mcp_servers_entries(yaml_host: Any, workspace: Any, sessions: Any) -> None:
    root = _shop(workspace, manifest="id: shop\nmcp_servers:\n  - script: ./tools/seed_server.py\n"
                                      "    env: {FROM_MANIFEST: yes}\n")
    (root / "trails/config/trailmaps/shop/tools/shop_seedDatabase.tool.yaml").unlink()
    session = sessions.start(root)
    assert session.registry.get("shop_countRows").trailmap == "shop"
    assert session.dispatcher.call(ToolCall("shop_seedDatabase", {"rows": 1}), session.context()).message == "seeded 1 rows"
