"""Legacy v1 list trails (§1.3, §10 ``V1FormatCompatibilityTest``/``TrailheadTrailItemTest``) and the
tool-call syntax shared by both formats (§1.4)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from trailblaze.errors import TrailFormatError
from trailblaze.tools.base import OtherTool, ToolCall
from trailblaze.trail import Trail

Parse = Callable[..., Trail]
Fails = Callable[..., TrailFormatError]

V1 = """\
- config:
    id: sample-app/catalog/overlay-tap
    title: Overlay tap
    target: xyz.block.trailblaze.examples.sampleapp
    platform: android
    driver: ANDROID_ONDEVICE_ACCESSIBILITY
    tags: [smoke]
    memory: { email: test@example.com }
    metadata: { caseId: "123" }
    source: { type: HANDWRITTEN, reason: written by hand }
    priority: P1
- trailhead: myapp_freshInstall
- tools:
    - launchApp: { appId: com.example, launchMode: REINSTALL }
- prompts:
    - step: Navigate to the "Catalog" tab
      recording:
        tools:
          - tapOnElementBySelector: { nodeSelector: { androidAccessibility: { textRegex: Catalog } } }
    - verify: A dialog showing "Coffee Latte" is visible
      recordable: false
      maxRetries: 3
"""


def test_config_tools_and_prompts_parse(parse: Parse) -> None:
    trail = parse(V1)
    assert trail.format == "v1"
    cfg = trail.config
    assert (cfg.id, cfg.platform, cfg.driver, cfg.priority) == (
        "sample-app/catalog/overlay-tap", "android", "ANDROID_ONDEVICE_ACCESSIBILITY", "P1")
    assert cfg.memory == {"email": "test@example.com"}
    assert cfg.metadata == {"caseId": "123", "source": "HANDWRITTEN", "sourceReason": "written by hand"}
    assert [s.kind for s in trail.steps] == ["trailhead", "tools", "step", "verify"]
    tools = trail.steps[1]
    assert tools.recording_for(["web"]) == ("*", [ToolCall("launchApp", {"appId": "com.example",
                                                                         "launchMode": "REINSTALL"})])
    step = trail.steps[2]
    assert step.recording_for(["ios", "iphone"])[0] == "*"  # type: ignore[index]  # v1 = one device's file
    verify = trail.steps[3]
    assert verify.recordable is False and verify.max_retries == 3 and verify.recordings is None
    assert verify.source_path == (3, "prompts", 1)


def test_bare_string_trailhead_is_one_tool(parse: Parse) -> None:
    head = parse(V1).steps[0]
    assert head.kind == "trailhead" and head.text is None
    assert head.recordings == {"*": [ToolCall("myapp_freshInstall", {})]}


def test_map_trailhead_with_step_tools_and_retries(parse: Parse) -> None:
    head = parse("""\
        - trailhead:
            step: Launch fresh
            tools:
              - launchApp: {appId: com.example}
            maxRetries: 2
        - prompts:
            - step: x
        """).steps[0]
    assert (head.text, head.max_retries) == ("Launch fresh", 2)
    assert head.recordings == {"*": [ToolCall("launchApp", {"appId": "com.example"})]}


def test_step_only_trailhead_is_solved_by_the_agent(parse: Parse) -> None:
    head = parse("- trailhead:\n    step: Get to the home screen\n- prompts:\n    - step: x\n").steps[0]
    assert head.recordings is None


def test_tools_only_trail_parses(parse: Parse) -> None:
    trail = parse("- tools:\n    - wait: {timeToWaitInSeconds: 0}\n")
    assert [s.kind for s in trail.steps] == ["tools"]


@pytest.mark.parametrize("text", ["- trailhead: {}\n", "- trailhead:\n", "- trailhead: ''\n",
                                  "- trailhead:\n    tools: []\n"])
def test_empty_trailhead_is_rejected(fails: Fails, text: str) -> None:
    err = fails(text + "- prompts:\n    - step: x\n")
    assert "empty trailhead" in str(err) and err.key == "trailhead"


def test_only_one_trailhead(fails: Fails) -> None:
    err = fails("- trailhead: a\n- trailhead: b\n")
    assert ":2:3: 'trailhead': only one 'trailhead'" in str(err)


def test_trailhead_must_come_before_steps(fails: Fails) -> None:
    err = fails("- prompts:\n    - step: x\n- trailhead: a\n")
    assert ":3:3: 'trailhead': 'trailhead' must come before" in str(err)


def test_config_must_be_first_and_only_once(fails: Fails) -> None:
    assert "must be the first item" in str(fails("- trailhead: a\n- config: {id: x}\n"))
    err = fails("- config: {id: x}\n- config: {id: y}\n")
    assert ":2:3: 'config': only one 'config'" in str(err)


def test_v1_recording_needs_tools(fails: Fails) -> None:
    err = fails("- prompts:\n    - step: x\n      recording: {}\n")
    assert err.key == "recording" and "needs 'tools:'" in str(err) and ":3:18:" in str(err)


def test_v1_recording_keyed_by_classifier_is_an_error(fails: Fails) -> None:
    err = fails("- prompts:\n    - step: x\n      recording:\n        android:\n          - tap: {}\n")
    assert err.key == "android" and "a v1 file holds one device's recording" in str(err)


def test_unknown_v1_item_key_and_the_old_maestro_item(fails: Fails) -> None:
    err = fails("- maestro:\n    - tapOn: OK\n")
    assert err.key == "maestro" and "mobile_maestro" in str(err)
    assert "allowed: config, trailhead, tools, prompts" in str(fails("- steps: []\n"))


def test_v1_item_with_two_keys_is_an_error(fails: Fails) -> None:
    err = fails("- config: {id: x}\n  prompts: []\n")
    assert ":2:3:" in str(err) and "exactly one key" in str(err)


def test_empty_v1_list_is_an_error(fails: Fails) -> None:
    assert "empty list is not a trail" in str(fails("[]\n"))


def test_v1_scalar_skip_blank_and_trimmed(parse: Parse) -> None:
    assert parse("- config:\n    skip: '  see #12  '\n").config.skip_reason(["web"]) == "see #12"
    assert parse("- config:\n    skip: '   '\n").config.skip_reason(["web"]) is None
    assert parse("- config:\n    skip: ''\n").config.skip_reason(None) is None


def test_v1_verify_step_and_both_is_an_error(parse: Parse, fails: Fails) -> None:
    assert parse("- prompts:\n    - verify: It shows\n").steps[0].kind == "verify"
    assert "not both" in str(fails("- prompts:\n    - verify: a\n      step: b\n"))


# -- tool-call syntax (§1.4), both formats ----------------------------------------------------------
def _one(parse: Parse, item: str) -> ToolCall:
    trail = parse(f"trail:\n  - step: x\n    recording:\n      web:\n        - {item}\n")
    return trail.steps[0].recordings["web"][0]  # type: ignore[index]


def test_a_call_is_a_single_key_map_and_null_args_mean_none(parse: Parse) -> None:
    assert _one(parse, "wait: {timeToWaitInSeconds: 2}") == ToolCall("wait", {"timeToWaitInSeconds": 2})
    assert _one(parse, "dumpMemory: {}") == ToolCall("dumpMemory", {})
    assert _one(parse, "dumpMemory:") == ToolCall("dumpMemory", {})


def test_unknown_names_become_other_tools_that_keep_raw_args(parse: Parse) -> None:
    call = _one(parse, "contacts_ios_createContact: {firstName: Trailblaze, phoneNumber: '5551234567'}")
    assert isinstance(call, OtherTool) and call.args == {"firstName": "Trailblaze", "phoneNumber": "5551234567"}


def test_scalar_args_are_rejected_with_a_clear_message(fails: Fails) -> None:
    err = fails("trail:\n  - step: x\n    recording:\n      web:\n        - eraseText: 3\n")
    assert err.key == "eraseText" and ":5:22:" in str(err)
    assert "arguments must be a map, got 3" in str(err) and "{<param>: 3}" in str(err)


def test_list_args_are_rejected(fails: Fails) -> None:
    assert "arguments must be a map" in str(fails("- tools:\n    - tap: [1, 2]\n"))


@pytest.mark.parametrize("name", ["config", "prompts", "tools", "trailhead"])
def test_reserved_names_can_never_be_tool_names(fails: Fails, name: str) -> None:
    err = fails(f"trail:\n  - step: x\n    recording:\n      web:\n        - {name}: {{}}\n")
    assert err.key == name and "reserved" in str(err)


def test_a_call_with_two_keys_points_at_the_indentation(fails: Fails) -> None:
    err = fails("""\
        trail:
          - step: x
            recording:
              web:
                - tapOnElementBySelector:
                  nodeSelector: {textRegex: OK}
        """)
    assert ":6:11:" in str(err) and "exactly one key" in str(err) and "indented" in str(err)


def test_a_bare_tool_name_is_not_a_call(fails: Fails) -> None:
    err = fails("- tools:\n    - dumpMemory\n")
    assert ":2:7:" in str(err) and "write '- dumpMemory: {}'" in str(err)


def test_an_empty_call_is_rejected(fails: Fails) -> None:
    assert "empty tool call" in str(fails("- tools:\n    - {}\n"))


def test_plugins_decode_through_the_host(write: Callable[..., object]) -> None:
    from trailblaze import hookimpl
    from trailblaze.plugins import PluginHost
    from trailblaze.trail.parser import load_trail

    class Upper(ToolCall):
        __slots__ = ()

    class Plugin:
        @hookimpl
        def trailblaze_decode_tool(self, name: str, args: dict, registry: object) -> ToolCall | None:  # type: ignore[type-arg]
            return Upper(name, args) if name == "shout" else None

    host = PluginHost(load_entrypoints=False)
    host.register(Plugin(), "upper")
    trail = load_trail(write("- tools:\n    - shout: {text: hi}\n    - wait: {}\n"), codec=host.codec())
    shout, wait = trail.steps[0].recordings["*"]  # type: ignore[index]
    assert type(shout) is Upper and type(wait) is OtherTool
