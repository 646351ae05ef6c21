"""The single dispatch path: memory interpolation, delegation depth and cycles, logging, redaction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trailblaze import DelegatingTool, Tool, ToolCall, ToolResult, hookimpl
from trailblaze.errors import ToolArgumentError, ToolExpansionError, UnknownToolError
from trailblaze.logs import STREAM_FILE
from trailblaze.testing import make_session, register_plugin


class Echo(Tool):
    """Echo text."""

    name = "echo"
    text: str

    def execute(self, ctx):  # type: ignore[no-untyped-def]
        ctx.driver.act("echo", text=self.text)
        return ToolResult.ok(self.text)


class Twice(DelegatingTool):
    """Echo twice."""

    name = "twice"
    is_recordable = False
    text: str

    def expand(self, ctx):  # type: ignore[no-untyped-def]
        return [ToolCall("echo", {"text": self.text}), ToolCall("echo", {"text": self.text + "!"})]


class Loop(DelegatingTool):
    """Calls itself through a partner."""

    name = "loopA"

    def expand(self, ctx):  # type: ignore[no-untyped-def]
        return [ToolCall("loopB", {})]


class LoopB(DelegatingTool):
    name = "loopB"

    def expand(self, ctx):  # type: ignore[no-untyped-def]
        return [ToolCall("loopA", {})]


class Boom(Tool):
    name = "boom"

    def execute(self, ctx):  # type: ignore[no-untyped-def]
        raise RuntimeError("kaput")


class Plugin:
    @hookimpl
    def trailblaze_register_tools(self, registry):  # type: ignore[no-untyped-def]
        registry.add_tools([Echo, Twice, Loop, LoopB, Boom])


@pytest.fixture
def session(plugin_host, tmp_path: Path):  # type: ignore[no-untyped-def]
    with register_plugin(plugin_host, Plugin(), "dispatch-test"):
        s = make_session(plugin_host, root=tmp_path, memory={"user": "ada"}, secrets={"pw": "hunter2"})
        yield s
        s.log.close()


def test_memory_is_interpolated_at_dispatch_and_authored_form_kept(session) -> None:  # type: ignore[no-untyped-def]
    from trailblaze.memory import UnknownTokenWarning

    with pytest.warns(UnknownTokenWarning, match="unknown token {{nope}}"):
        result = session.dispatcher.call(ToolCall("echo", {"text": "hi {{user}} ${user} {{memory.user}} {{nope}}"}),
                                         session.context())
    assert result.message == "hi ada ada ada {{nope}}"
    log = session.log.entries[-1]
    assert log["rawTrailblazeTool"]["raw"]["text"].startswith("hi {{user}}")
    assert log["isTopLevelToolCall"] is True


def test_delegation_runs_children_and_logs_wrapper(session) -> None:  # type: ignore[no-untyped-def]
    session.dispatcher.call(ToolCall("twice", {"text": "x"}), session.context())
    assert session.driver.actions == [("echo", {"text": "x"}), ("echo", {"text": "x!"})]
    kinds = [e["class"].rsplit(".", 1)[1] for e in session.log.entries]
    assert kinds == ["TrailblazeToolLog", "TrailblazeToolLog", "DelegatingTrailblazeToolLog"]
    assert [e["depth"] for e in session.log.entries] == [1, 1, 0]


def test_cycle_is_an_error_naming_the_chain(session) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolExpansionError, match="cycle: loopA -> loopB -> loopA"):
        session.dispatcher.call(ToolCall("loopA", {}), session.context())


def test_unknown_tool_and_bad_args_are_bad_input(session) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UnknownToolError, match="did you mean 'echo'"):
        session.dispatcher.call(ToolCall("ech", {}), session.context())
    with pytest.raises(ToolArgumentError, match="tool 'echo': missing required argument 'text'"):
        session.dispatcher.call(ToolCall("echo", {}), session.context())


def test_tool_exception_fails_the_call_not_the_process(session) -> None:  # type: ignore[no-untyped-def]
    result = session.dispatcher.call(ToolCall("boom", {}), session.context())
    assert not result.success and "RuntimeError: kaput" in (result.message or "")


def test_secrets_never_reach_the_log_files(session) -> None:  # type: ignore[no-untyped-def]
    session.dispatcher.call(ToolCall("echo", {"text": "password is {{pw}}"}), session.context())
    session.log.close()
    text = (session.log_dir / STREAM_FILE).read_text()
    assert "hunter2" not in text and "***" in text
    assert json.loads(text.splitlines()[0])["trailblazeTool"]["raw"]["text"] == "password is ***"
