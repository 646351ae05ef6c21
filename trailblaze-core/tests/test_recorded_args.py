"""``ToolResult.recorded_args``: a tool says what a recording should keep when the authored call would
not replay (a snapshot ref), and the dispatcher merges it over the authored arguments."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from trailblaze import hookimpl
from trailblaze.context import ToolContext
from trailblaze.tools.base import Tool, ToolCall, ToolResult
from trailblaze.tools.registry import ToolRegistry


class PointAt(Tool):
    """Point at an element by ref."""

    name: ClassVar[str] = "demo_pointAt"
    ref: str
    note: str = ""

    def execute(self, ctx: ToolContext) -> ToolResult:
        if self.ref.startswith("e"):
            return ToolResult(True, "pointed", recorded_args={"ref": 'button "OK"', "selector": {"id": "ok"}})
        return ToolResult(True, "pointed")


class _Plugin:
    @hookimpl
    def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
        registry.add_tool(PointAt)


def test_recorded_args_merge_over_the_authored_call_and_are_logged(tmp_path: Path) -> None:
    from trailblaze.testing import make_session, new_host, register_plugin

    host = new_host()
    with register_plugin(host, _Plugin()):
        session = make_session(host, root=tmp_path, memory={"n": "hello"})
        authored = ToolCall("demo_pointAt", {"ref": "e7", "note": "{{n}}"})
        assert session.dispatcher.call(authored, session.context()).success
        stable = ToolCall("demo_pointAt", {"ref": 'button "OK"'})
        assert session.dispatcher.call(stable, session.context()).success
        session.log.close()
    first, second = session.executed
    # The memory token of the other argument stays as authored; the ref is replaced.
    assert first.recorded == ToolCall("demo_pointAt", {"ref": 'button "OK"', "note": "{{n}}", "selector": {"id": "ok"}})
    assert first.recordable_form == first.recorded
    assert second.recorded is None and second.recordable_form == stable
    logs = [e for e in session.log.entries if e.get("toolName") == "demo_pointAt"]
    assert logs[0]["recordedTrailblazeTool"] == {"toolName": "demo_pointAt", "raw": first.recorded.args}
    assert "recordedTrailblazeTool" not in logs[1]
