"""What a tool sees of its session: ``ToolContext`` holds it through the ``ToolSession`` protocol (so the
context sits below the session in the import graph), and ``session_of`` gives plugin code the whole
``Session`` back."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from trailblaze import Tool, ToolCall, ToolContext, ToolRegistry, ToolResult, hookimpl
from trailblaze.context import ToolSession
from trailblaze.plugins import PluginHost
from trailblaze.session import session_of
from trailblaze.testing import MemoryDriver, finish_session, make_session, register_plugin


class WhoAmI(Tool):
    """Say which session, device and tools the context shows."""

    name = "whoAmI"

    def execute(self, ctx: ToolContext) -> ToolResult:
        whole = session_of(ctx)
        driver = ctx.driver
        assert isinstance(driver, MemoryDriver)  # the driver protocol narrows to the plugin's own class
        driver.act("whoAmI")
        ctx.session.resources["seen"] = whole is ctx.session and whole.driver is driver
        return ToolResult.ok(f"{ctx.session.id} on {ctx.device.driver}: "
                             f"{'whoAmI' in ctx.registry} of {len(ctx.registry)} tools")


class Plugin:
    @hookimpl
    def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
        registry.add_tool(WhoAmI)


def test_a_tool_reaches_its_session_driver_and_registry_through_the_context(plugin_host: PluginHost,
                                                                            tmp_path: Path) -> None:
    with register_plugin(plugin_host, Plugin(), "context-test"):
        session = make_session(plugin_host, root=tmp_path, session_id="ctx-1")
        try:
            result = session.dispatcher.call(ToolCall("whoAmI"), session.context())
        finally:
            finish_session(session)
    assert result.success, result.message
    assert result.message == f"ctx-1 on in-memory: True of {len(session.registry)} tools"
    assert session.resources["seen"] is True
    assert isinstance(session.driver, MemoryDriver) and session.driver.actions == [("whoAmI", {})]


def test_session_of_refuses_a_context_that_holds_no_session() -> None:
    stand_in = cast(ToolSession, object())
    with pytest.raises(TypeError, match="holds a object, not a trailblaze Session"):
        session_of(ToolContext(stand_in))
