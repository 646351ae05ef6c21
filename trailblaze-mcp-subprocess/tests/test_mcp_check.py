"""``trailblaze check`` knows the tools of declared MCP servers: it starts them, as ``trailblaze tools`` does."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
import trailblaze_yaml_tools.plugin as yaml_plugin
from trailblaze import hookimpl
from trailblaze.testing import run_cli

SERVER = '''
from mcp.server.mcpserver import MCPServer

app = MCPServer("acme")


@app.tool(name="acme_greet", description="Greet someone by name.")
async def greet(name: str) -> str:
    return f"hello {name}"


if __name__ == "__main__":
    app.run()
'''

TRAIL = """
config:
  id: acme/greet
trail:
  - step: Greet Ada
    recording:
      host:
        - {tool}: {{name: Ada}}
"""


class AcmePlugin:
    """A plugin shipping a trailmap whose manifest declares an MCP server (as a packaged plugin would)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @hookimpl
    def trailblaze_trailmap_dirs(self) -> list[Path]:
        return [self.root]


@pytest.fixture
def acme(host: Any, tmp_path: Path) -> Path:
    trailmaps = tmp_path / "site-packages" / "trailblaze_acme" / "trailmaps"
    (trailmaps / "acme").mkdir(parents=True)
    (trailmaps / "acme" / "trailmap.yaml").write_text("id: acme\nmcp_servers:\n  - script: ./server.py\n")
    (trailmaps / "acme" / "server.py").write_text(SERVER)
    # a YAML tool of the same plugin calling the server's tool: known once the server has listed its tools
    (trailmaps / "acme" / "tools").mkdir()
    (trailmaps / "acme" / "tools" / "acme_greetTwice.tool.yaml").write_text(
        "id: acme_greetTwice\ndescription: Greet twice.\nparameters:\n  - {name: name, type: string}\n"
        "tools:\n  - acme_greet: {name: '{{params.name}}'}\n  - acme_greet: {name: '{{params.name}}'}\n")
    host.register(yaml_plugin, "yaml_tools")
    host.register(AcmePlugin(trailmaps), "acme")
    return trailmaps


def _workspace(root: Path, tool: str) -> Path:
    (root / "trails" / "config").mkdir(parents=True)
    (root / "trails" / "config" / "trailblaze.yaml").write_text("defaults: {}\n")
    (root / "trails" / "greet.trail.yaml").write_text(textwrap.dedent(TRAIL).format(tool=tool))
    return root


def test_strict_check_passes_with_the_servers_tools_known(host: Any, acme: Path, tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws", "acme_greet")
    result = run_cli(["check", "--strict", str(root / "trails")], host=host, cwd=root)
    assert result.exit_code == 0, result.output
    assert "0 error(s), 0 warning(s)" in result.output
    listed = run_cli(["tools", "--workspace", str(root), "--search", "acme_greet"], host=host)
    # named after its trailmap, not after its file ("MCP server 'server'")
    assert "MCP server 'acme'" in listed.stdout, listed.output


def test_a_misspelled_tool_fails_check_and_names_the_closest(host: Any, acme: Path, tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws", "acme_gret")
    result = run_cli(["check", str(root / "trails")], host=host, cwd=root)
    assert result.exit_code == 3, result.output
    assert "greet.trail.yaml:8:11: error: [UnknownTool] unknown tool 'acme_gret'; did you mean 'acme_greet' or " \
        in result.output


def test_without_servers_unknown_names_are_warnings_that_say_why(host: Any, acme: Path, tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws", "acme_greet")
    result = run_cli(["check", "--no-servers", str(root / "trails")], host=host, cwd=root)
    assert result.exit_code == 0, result.output
    assert "warning: [UnknownTool] unknown tool 'acme_greet'" in result.output
    assert "MCP tool servers were not started" in result.output


def test_wrong_arguments_to_a_server_tool_name_the_known_ones(host: Any, acme: Path, tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws", "acme_greet")
    trail = root / "trails" / "greet.trail.yaml"
    trail.write_text(trail.read_text().replace("{name: Ada}", "{nmae: Ada}"))
    result = run_cli(["check", str(root / "trails")], host=host, cwd=root)
    assert result.exit_code == 3, result.output
    assert "[ToolArguments] tool 'acme_greet': unknown argument 'nmae' (known: name)" in result.output
