from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
import trailblaze_acme.plugin as acme_plugin
from trailblaze import (BadInputError, ConfigError, PluginHost, Session, ToolArgumentError, ToolCall,
                        ToolResult, load_workspace)
from trailblaze.testing import (MemoryDriver, host_with_plugins, installed_host, make_driver, open_session,
                                register_plugin)

pytest_plugins = ["trailblaze.testing"]  # the plugin_host fixture


def call(session: Session, name: str, **args: Any) -> ToolResult:
    return session.dispatcher.call(ToolCall(name, args), session.context())


def write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(textwrap.dedent(text))
    return root


# A class-backed tool: register your plugin on the test host, open a session on the in-memory device.
def test_class_tool(plugin_host: PluginHost, tmp_path: Path) -> None:
    with register_plugin(plugin_host, acme_plugin, "acme"), open_session(plugin_host, root=tmp_path) as session:
        assert call(session, "acme_greet", person="Ada").message == "Hello, Ada!"
        with pytest.raises(ToolArgumentError, match=r"unknown argument 'colour' \(known: person, punctuation\)"):
            call(session, "acme_greet", person="Ada", colour="red")  # bad arguments are bad input (exit 3)
    assert issubclass(ToolArgumentError, BadInputError)


# A YAML tool: load the yaml_tools plugin, write the tool into a workspace, read the workspace.
def test_yaml_tool(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "trails/config/trailblaze.yaml": "defaults: {}\n",
        "trails/config/trailmaps/acme/tools/acme_greetTwice.tool.yaml": """
            id: acme_greetTwice
            description: Greet someone twice.
            parameters:
              - {name: person, type: string}
            tools:
              - acme_greet: {person: "{{params.person}}"}
              - acme_greet: {person: "{{params.person}}", punctuation: "!!"}
            """,
    })
    host = host_with_plugins("yaml_tools")
    with installed_host(host), register_plugin(host, acme_plugin, "acme"):
        with open_session(host, root=root, workspace=load_workspace(root, host)) as session:
            assert call(session, "acme_greetTwice", person="Lin").success
            assert session.memory.get("greeting") == "Hello, Lin!!"


# An MCP tool: declare the server in the workspace; the session hooks start it, open_session stops it.
def test_mcp_tool(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "trails/config/trailblaze.yaml": "mcpServers:\n  - script: ../../server.py\n",
        "server.py": """
            from mcp.server.mcpserver import MCPServer

            app = MCPServer("acme")

            @app.tool(name="acme_shout", description="Shout a text.")
            async def shout(text: str) -> str:
                return text.upper()

            if __name__ == "__main__":
                app.run()
            """,
    })
    host = host_with_plugins("mcp_subprocess")
    with installed_host(host), open_session(host, root=root, workspace=load_workspace(root, host)) as session:
        assert call(session, "acme_shout", text="hi").message == "HI"


# A driver: build it as `trailblaze run` does (settings validated, defaults filled), then use it in a session.
def test_driver(plugin_host: PluginHost, tmp_path: Path) -> None:
    driver = make_driver(MemoryDriver, elements=["Welcome"])  # your driver: make_driver(AcmeDriver, endpoint=...)
    assert driver.config.elements == ["Welcome"]  # typed: Driver[MemoryDriverConfig]
    with open_session(plugin_host, root=tmp_path, driver=driver) as session:
        assert session.device.driver == "in-memory" and "Welcome" in driver.snapshot()
    assert driver.stopped
    with pytest.raises(ConfigError, match="unknown setting 'colour'"):
        make_driver("in-memory", colour="red")
