"""An execute wrapper retries the owner's call through ``context.retry``: the retry passes every
wrapper again (the retrying one included, which stops on ``context.attempt``) and the session log, and
the recording keeps the call once. This is the example ``docs/hooks.md`` shows."""

from __future__ import annotations

import json
from collections.abc import Generator
from pathlib import Path
from typing import Any

from trailblaze import Tool, ToolCall, ToolContext, ToolRegistry, ToolResult, hookimpl
from trailblaze.agent.recording import recording_from_executed
from trailblaze.logs import STREAM_FILE
from trailblaze.plugins import PluginHost
from trailblaze.testing import open_session, register_plugin


class Flaky(Tool):
    """Fails on its first run in a session, then works."""

    name = "acme_flaky"
    label: str

    def execute(self, ctx: ToolContext) -> ToolResult:
        runs = int(ctx.memory.get("flaky_runs") or 0)
        ctx.memory.remember("flaky_runs", str(runs + 1))
        return ToolResult.ok(f"tapped {self.label}") if runs else ToolResult.fail("element not found yet")


class Tools:
    @hookimpl
    def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
        registry.add_tool(Flaky)


class RetryOnce:
    """The documented wrapper: one more attempt for a failed call."""

    @hookimpl(wrapper=True)
    def trailblaze_execute_tool(self, call: ToolCall, context: ToolContext) -> Generator[None, Any, Any]:
        result = yield
        if isinstance(result, ToolResult) and not result.success and context.attempt < 2:
            return context.retry(call)
        return result


class Observer:
    """Another plugin's wrapper: it must see the retry as well."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    @hookimpl(wrapper=True)
    def trailblaze_execute_tool(self, call: ToolCall, context: ToolContext) -> Generator[None, Any, Any]:
        self.seen.append((call.name, context.attempt))
        return (yield)


def test_a_wrapper_retries_the_owners_call_through_the_other_wrappers_and_the_log(plugin_host: PluginHost,
                                                                                 tmp_path: Path) -> None:
    observer = Observer()
    with register_plugin(plugin_host, Tools(), "acme"), register_plugin(plugin_host, observer, "observer"), \
            register_plugin(plugin_host, RetryOnce(), "retry"), open_session(plugin_host, root=tmp_path) as session:
        call = ToolCall("acme_flaky", {"label": "{{button}}"})
        session.memory.remember("button", "Buy")
        result = session.dispatcher.call(call, session.context(step_index=0))
        executed = list(session.executed)
    assert result.success and result.message == "tapped Buy"
    assert observer.seen == [("acme_flaky", 1), ("acme_flaky", 2)]
    logged = [json.loads(line) for line in (session.log_dir / STREAM_FILE).read_text().splitlines()]
    calls = [e for e in logged if e.get("toolName") == "acme_flaky"]
    assert [(e["successful"], e["depth"], e["isTopLevelToolCall"]) for e in calls] == [(True, 1, False),
                                                                                      (True, 0, True)]
    assert [c.to_json() for c in recording_from_executed(executed)] == [call.to_json()]


def test_without_a_retrying_wrapper_the_failure_stands(plugin_host: PluginHost, tmp_path: Path) -> None:
    with register_plugin(plugin_host, Tools(), "acme"), open_session(plugin_host, root=tmp_path) as session:
        result = session.dispatcher.call(ToolCall("acme_flaky", {"label": "x"}), session.context())
    assert not result.success and result.message == "element not found yet"
