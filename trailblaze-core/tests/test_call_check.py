"""One check of a tool call (``session.find_tool`` and ``prepare_call``): a bad call fails with the same
error class and message whether the runner's prevalidation finds it in a recording (before any step
runs, with the call's ``file:line``) or a live ``Dispatcher.call`` meets it."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from trailblaze import Tool, ToolCall, ToolResult, hookimpl
from trailblaze.errors import (BadInputError, ToolArgumentError, ToolNotAvailableError, TrailblazeError,
                               UnknownToolError)
from trailblaze.llm.budget import CostBudget
from trailblaze.runner.handoff import AgentHandoff
from trailblaze.runner.lifecycle import SessionFactory
from trailblaze.runner.options import RunOptions
from trailblaze.runner.progress import QuietProgress
from trailblaze.runner.replay import StepLoop
from trailblaze.testing import new_host
from trailblaze.trail.parser import parse_trail


class Say(Tool):
    """Say something."""

    name = "say"
    text: str

    def execute(self, ctx):  # type: ignore[no-untyped-def]
        return ToolResult.ok(self.text)


class ElsewhereOnly(Tool):
    """A tool for another driver."""

    name = "elsewhereOnly"
    drivers: ClassVar[frozenset[str] | None] = frozenset({"playwright-native"})

    def execute(self, ctx):  # type: ignore[no-untyped-def]
        return ToolResult.ok()


class RunsHere(Tool):
    """A tool that runs a program on this machine."""

    name = "runsHere"
    requires_host: ClassVar[bool] = True

    def execute(self, ctx):  # type: ignore[no-untyped-def]
        return ToolResult.ok()


class Plugin:
    @hookimpl
    def trailblaze_register_tools(self, registry):  # type: ignore[no-untyped-def]
        registry.add_tools([Say, ElsewhereOnly, RunsHere])


BAD_CALLS = [
    ("sya: {text: hi}", ToolCall("sya", {"text": "hi"}), UnknownToolError, "unknown tool 'sya'"),
    ("say: {}", ToolCall("say", {}), ToolArgumentError, "missing required argument 'text'"),
    ("elsewhereOnly: {}", ToolCall("elsewhereOnly", {}), ToolNotAvailableError,
     "does not run on driver 'in-memory' (it is for drivers playwright-native)"),
    ("runsHere: {}", ToolCall("runsHere", {}), ToolNotAvailableError,
     "runs programs on this machine and is not allowed here"),
]


def _caught(block) -> TrailblazeError:  # type: ignore[no-untyped-def]
    with pytest.raises(BadInputError) as caught:
        block()
    return caught.value


@pytest.mark.parametrize(("recorded", "call", "kind", "says"), BAD_CALLS, ids=[c[1].name for c in BAD_CALLS])
def test_a_bad_call_fails_alike_in_prevalidation_and_in_dispatch(tmp_path: Path, recorded: str, call: ToolCall,
                                                                 kind: type[BadInputError], says: str) -> None:
    host = new_host()
    host.register(Plugin(), "call-check-test")
    factory = SessionFactory(RunOptions(driver="in-memory", output_dir=tmp_path, logging=False, host_tools=False),
                             host=host)
    progress = QuietProgress()
    steps = StepLoop(factory.options, progress, factory.redactor,
                     AgentHandoff(factory.options, progress, CostBudget(None), host.llm_providers))
    trail = parse_trail(f"trail:\n  - step: go\n    recording:\n      memory:\n        - {recorded}\n",
                        tmp_path / "bad.trail.yaml")
    with factory.open(workspace=tmp_path, trail=trail) as lifecycle:
        session = lifecycle.session
        early = _caught(lambda: steps.prevalidate(trail, session, ["memory"]))
        live = _caught(lambda: session.dispatcher.call(call, session.context()))
    assert type(early) is type(live) is kind
    assert early.message == live.message and says in live.message
    assert early.hint == live.hint
    assert early.location is not None and early.location.line == 5 and live.location is None
