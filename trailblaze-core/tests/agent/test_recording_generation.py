"""Recording generation (upstream §8) from a live session and from its logs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from trailblaze import hookimpl
from trailblaze.agent.recording import (recording_from_executed, recording_trail_yaml, recordings_from_executed,
                                        recordings_from_logs)
from trailblaze.context import ToolContext
from trailblaze.testing import make_session, new_host
from trailblaze.tools.base import DelegatingTool, Tool, ToolCall, ToolResult
from trailblaze.tools.registry import ToolRegistry
from trailblaze.trail.model import Trail, TrailConfig, TrailStep


class Press(Tool):
    """Press a key."""

    name = "key_press"
    key: str = Field(...)

    def execute(self, ctx: ToolContext) -> ToolResult:
        return ToolResult.ok() if self.key != "broken" else ToolResult.fail("no such key")


class Check(Tool):
    """Check something."""

    name = "key_check"
    is_verification = True
    what: str = Field(...)

    def execute(self, ctx: ToolContext) -> ToolResult:
        return ToolResult.ok(f"{self.what} holds")


class Chord(DelegatingTool):
    """A wrapper that is not recorded itself: its presses are."""

    name = "key_chord"
    is_recordable = False
    keys: list[str] = Field(...)

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        return [ToolCall("key_press", {"key": k}) for k in self.keys]


class Macro(DelegatingTool):
    """A recordable wrapper: recorded by its own name, its expansion is not."""

    name = "key_macro"
    word: str = Field(...)

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        return [ToolCall("key_press", {"key": c}) for c in self.word]


class CheckByRef(DelegatingTool):
    """A verification wrapper (like ``assertVisible`` by ref): its recordable check is what is recorded."""

    name = "key_checkRef"
    is_recordable = False
    is_verification = True
    ref: str = Field(...)

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        return [ToolCall("key_checkStable", {"what": f"stable-{self.ref}"})]


class CheckStable(Tool):
    """The recordable form of a check (like ``assertVisibleBySelector``)."""

    name = "key_checkStable"
    is_verification = True
    what: str = Field(...)

    def execute(self, ctx: ToolContext) -> ToolResult:
        return ToolResult.ok()


class Plugin:
    @hookimpl
    def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
        registry.add_tools([Press, Check, Chord, Macro, CheckByRef, CheckStable])


def test_a_verification_wrapper_records_its_expansion(tmp_path: Path) -> None:
    s = session(tmp_path)
    s.dispatcher.call(ToolCall("key_checkRef", {"ref": "e7"}), s.context(step_index=0))
    s.log.close()
    expected = {0: [ToolCall("key_checkStable", {"what": "stable-e7"})]}
    assert recordings_from_executed(s.executed) == expected
    assert recordings_from_logs(s.log.entries) == expected


def session(tmp_path: Path) -> Any:
    host = new_host()
    host.register(Plugin(), name="keys")
    return make_session(host, root=tmp_path, memory={"who": "ann"})


def test_rules_on_a_live_session_and_on_its_logs_agree(tmp_path: Path) -> None:
    s = session(tmp_path)
    step0 = s.context(step_index=0)
    for name, args in [("key_press", {"key": "{{who}}"}), ("key_chord", {"keys": ["a", "b"]}),
                       ("key_macro", {"word": "hi"}), ("key_press", {"key": "broken"}),
                       ("key_check", {"what": "x"}), ("key_check", {"what": "x"}), ("dumpMemory", {}),
                       ("exec", {"argv": ["true"]})]:
        s.dispatcher.call(ToolCall(name, args), step0)
    s.dispatcher.call(ToolCall("key_press", {"key": "z"}), s.context(step_index=1))
    s.log.close()
    expected0 = [ToolCall("key_press", {"key": "{{who}}"}),  # memory token kept as authored
                 ToolCall("key_press", {"key": "a"}), ToolCall("key_press", {"key": "b"}),  # chord's expansion
                 ToolCall("key_macro", {"word": "hi"}),  # recorded by its own name
                 ToolCall("key_check", {"what": "x"}),  # failed press dropped; repeated check kept once
                 ToolCall("dumpMemory", {})]  # exec is not recordable
    by_step = recordings_from_executed(s.executed)
    assert by_step == {0: expected0, 1: [ToolCall("key_press", {"key": "z"})]}
    assert recording_from_executed([e for e in s.executed if e.step_index == 0]) == expected0
    assert recordings_from_logs(s.log.entries) == by_step


def test_recording_trail_yaml(tmp_path: Path) -> None:
    s = session(tmp_path)
    s.dispatcher.call(ToolCall("key_press", {"key": "q"}), s.context(step_index=0))
    s.dispatcher.call(ToolCall("key_check", {"what": "y"}), s.context(step_index=1))
    for i in (0, 1, 2):
        s.log.write("ObjectiveCompleteLog", {"stepIndex": i, "successful": i < 2})
    trail = Trail(Path("t.trail.yaml"), "unified", TrailConfig(title="Keys"), [
        TrailStep("step", "press q", index=0), TrailStep("verify", "y holds", index=1),
        TrailStep("step", "never ran", index=2)])
    text = recording_trail_yaml(trail, s.log.entries, "memory")
    assert text == ("config:\n  title: Keys\ntrail:\n- step: press q\n  recording:\n    memory:\n    - key_press:\n"
                    "        key: q\n- verify: y holds\n  recording:\n    memory:\n    - key_check:\n        what: y\n")
