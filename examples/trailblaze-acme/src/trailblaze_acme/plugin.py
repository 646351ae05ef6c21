"""Hook implementations only; keep this module cheap to import."""

from __future__ import annotations

from trailblaze import ToolRegistry, hookimpl

from .tools import GreetTool, VerifyGreetingTool


@hookimpl
def trailblaze_register_tools(registry: ToolRegistry) -> None:
    registry.add_tool(GreetTool)
    registry.add_tool(VerifyGreetingTool)
