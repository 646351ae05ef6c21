"""A tool name registered twice — YAML vs class tool, or two YAML files — fails with one message that names
both sources, in-process and through the ``trailblaze`` command."""

from __future__ import annotations

import re

import pytest
import trailblaze_yaml_tools.plugin as yaml_plugin
from trailblaze import Tool, ToolResult, hookimpl
from trailblaze.config import load_workspace
from trailblaze.errors import DuplicateToolError
from trailblaze.testing import installed_host, new_host, run_cli
from trailblaze.tools.registry import ToolRegistry

BODY = "description: d\nparameters: []\ntools: [{wait: {timeToWaitInSeconds: 0}}]\n"


class Hello(Tool):
    """Say hello."""

    name = "demo_hello"

    def execute(self, ctx) -> ToolResult:  # type: ignore[no-untyped-def, override]
        return ToolResult.ok("hello")


class ClassyPlugin:
    @hookimpl
    def trailblaze_register_tools(self, registry) -> None:  # type: ignore[no-untyped-def]
        registry.add_tool(Hello)


@pytest.mark.parametrize("class_first", [True, False])
def test_yaml_tool_colliding_with_a_class_tool(write, tool, class_first: bool) -> None:
    root = write(tool("demo_hello", "id: demo_hello\n" + BODY))
    host = new_host()
    if class_first:
        host.register(ClassyPlugin(), "classy")
        host.register(yaml_plugin, "yaml_tools")
    else:
        host.register(yaml_plugin, "yaml_tools")
        host.register(ClassyPlugin(), "classy")
    with pytest.raises(DuplicateToolError) as info:
        host.register_tools(ToolRegistry(), load_workspace(root, host))
    message = str(info.value)
    assert message.count("\n") == 0
    assert "tool 'demo_hello' is registered twice" in message
    assert "plugin 'classy'" in message
    assert re.search(r"file \S+/trailmaps/demo/tools/demo_hello\.tool\.yaml:1, plugin 'yaml_tools'", message)


def test_two_yaml_files_with_one_id(write, tool) -> None:
    root = write({**tool("one", "id: demo_same\n" + BODY, trailmap="alpha"),
                  **tool("two", "# a comment first\nid: demo_same\n" + BODY, trailmap="beta")})
    host = new_host()
    host.register(yaml_plugin, "yaml_tools")
    with pytest.raises(DuplicateToolError) as info:
        host.register_tools(ToolRegistry(), load_workspace(root, host))
    message = str(info.value)
    assert re.search(r"by file \S+/trailmaps/alpha/tools/one\.tool\.yaml:1, plugin 'yaml_tools' and by file "
                     r"\S+/trailmaps/beta/tools/two\.tool\.yaml:2, plugin 'yaml_tools'", message), message


def test_the_cli_prints_the_collision_on_one_line_and_exits_3(write, tool) -> None:
    root = write(tool("demo_hello", "id: demo_hello\n" + BODY))
    host = new_host()
    host.register(yaml_plugin, "yaml_tools")
    host.register(ClassyPlugin(), "classy")
    with installed_host(host):
        result = run_cli(["tools", "--workspace", str(root)], host=host)
    assert result.exit_code == 3
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("trailblaze: error: tool 'demo_hello' is registered twice: by ")
    assert "plugin 'classy'" in lines[0] and "demo_hello.tool.yaml:1" in lines[0]
