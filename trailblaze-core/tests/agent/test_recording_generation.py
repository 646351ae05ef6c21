"""Recording generation (upstream §8) from a live session and from its logs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from trailblaze import hookimpl
from trailblaze.agent.recording import (block_yaml, recording_from_executed, recording_trail_yaml,
                                        recordings_from_executed, recordings_from_logs)
from trailblaze.yamlio import load_fast
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


def test_recording_trail_yaml_keeps_the_trails_config_args_devices_and_tags(tmp_path: Path) -> None:
    from trailblaze.trail.parser import parse_trail

    source = ("config:\n  title: Keys\n  tags: [smoke]\n  devices: {memory: HOST}\n"
              "  args:\n    item: {type: string, default: mug}\ntrail:\n  - step: press {{args.item}}\n")
    trail = parse_trail(source, tmp_path / "t.trail.yaml")
    s = session(tmp_path)
    s.dispatcher.call(ToolCall("key_press", {"key": "q"}), s.context(step_index=0))
    s.log.write("ObjectiveCompleteLog", {"stepIndex": 0, "successful": True})
    text = recording_trail_yaml(trail, s.log.entries, "memory")
    written = parse_trail(text, tmp_path / "recording.trail.yaml")
    assert written.config.tags == ["smoke"] and written.config.devices == {"memory": "HOST"}
    assert set(written.config.args) == {"item"}  # `press {{args.item}}` replays with the arg declared


ODD_STRINGS = ["Headlamp", "yes", "1", "a b", "{{password}}", "", " lead", "trail ", "it's", 'say "hi"', "#x",
               "- dash", "a: b", "x #y", "null", "~", "2024-01-01", "0x1f", "1e3", "ünïcode", "tab\there", "@at",
               "`bt", "%p", "!bang", "&amp", "*star", "|pipe", ">gt", "?q", "[b", "]c", ",c", "a,b", "a  b", "Yes",
               "NO", "on", "Off", "True", ".inf", "-", "<<", "=", "two\nlines", "x" * 200 + " y" * 50]


def test_recording_yaml_writer_writes_what_ruamel_writes() -> None:
    """recording.trail.yaml is written without ruamel's per-node cost; the text must be ruamel's own."""
    import io

    from trailblaze.agent.recording import _plain_dumper

    doc = {"config": {"id": "a/b", "title": "Keys: with colon", "target": "shop"}, "trail": [
        {"step": "press q", "recording": {"web-mobile": [{"key_press": {"key": "q", "n": 3, "b": True, "none": None}}]}},
        {"verify": "y holds", "recordable": False},
        {"step": "odd", "recording": {"web": [{"noargs": {}}, {"lst": {"items": ODD_STRINGS}}]}},
        {"step": "nested", "recording": {"web": [{"web_click": {
            "ref": 'button "Sign in"', "empty": [],
            "nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Sign in", "nth": 0}}}}]}}]}
    buf = io.StringIO()
    _plain_dumper().dump(doc, buf)
    assert block_yaml(doc) == buf.getvalue()
    assert load_fast(buf.getvalue()) == doc
    # What it leaves to ruamel: floats, lists in lists.
    for odd in ({"x": 1.5}, {"x": [[1]]}):
        assert block_yaml(odd) is None
