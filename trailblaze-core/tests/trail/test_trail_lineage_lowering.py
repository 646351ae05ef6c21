"""Classifier lineage and lowering (§1.2, §10 ``UnifiedTrailAdapterTest``), and how trail errors end a run."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from trailblaze import yamlio
from trailblaze.errors import BadInputError, ExitCode, TrailFormatError
from trailblaze.tools.base import ToolCall
from trailblaze.trail import Trail
from trailblaze.trail.classifiers import lineage, resolve
from trailblaze.trail.lowering import lower_to_v1, to_unified
from trailblaze.trail.parser import parse_trail

Parse = Callable[..., Trail]


def test_lineage_is_most_specific_first() -> None:
    assert lineage(["android", "phone"]) == ["android-phone", "android", "phone"]
    assert lineage(["android-phone-37"]) == ["android-phone-37", "android-phone", "android"]
    assert lineage(["ios", "iphone"]) == ["ios-iphone", "ios", "iphone"]
    assert lineage(["web"]) == ["web"]
    assert lineage([]) == []


def test_resolve_most_specific_wins_then_family_then_nothing() -> None:
    recordings = {"android": "family", "android-tablet": "tablet", "ios-iphone": "iphone"}
    assert resolve(recordings, ["android", "tablet"]) == ("android-tablet", "tablet")
    assert resolve(recordings, ["android", "phone"]) == ("android", "family")
    assert resolve(recordings, ["web"]) is None
    assert resolve({"Android": 1}, ["android"]) == ("Android", 1)  # keys compare case-insensitively


MULTI = """\
config:
  id: multi
  devices: {android: ANDROID_ONDEVICE_ACCESSIBILITY, web: PLAYWRIGHT_NATIVE}
  skip: {ios: not built for iOS yet}
trailhead:
  step: Launch
  recording:
    android: {launchApp: {appId: com.example}}
    web: {web_navigate: {url: "http://127.0.0.1:8000/"}}
trail:
  - step: Open the menu
    recording:
      android: [{tap: {ref: menu}}]
      android-tablet: []
      web: [{web_click: {ref: e1}}]
  - verify: The menu is open
    recordable: false
  - step: Close it
    maxRetries: 2
"""


def test_lowering_for_a_device_is_config_then_trailhead_then_one_prompts_item() -> None:
    items = lower_to_v1(parse_trail(MULTI, "multi.trail.yaml"), ["android", "phone"])
    assert [next(iter(i)) for i in items] == ["config", "trailhead", "prompts"]
    assert items[0]["config"] == {"id": "multi", "driver": "ANDROID_ONDEVICE_ACCESSIBILITY"}
    assert items[1]["trailhead"] == {"step": "Launch", "tools": [{"launchApp": {"appId": "com.example"}}]}
    assert items[2]["prompts"] == [
        {"step": "Open the menu", "recording": {"tools": [{"tap": {"ref": "menu"}}]}},
        {"verify": "The menu is open", "recordable": False},
        {"step": "Close it", "maxRetries": 2},
    ]


def test_lowering_falls_back_and_keeps_the_empty_state() -> None:
    trail = parse_trail(MULTI, "multi.trail.yaml")
    tablet = lower_to_v1(trail, ["android", "tablet"])[2]["prompts"][0]
    assert tablet["recording"] == {"tools": []}  # [] ⇒ zero-tool recording, no AI
    ios = lower_to_v1(trail, ["ios", "iphone"])
    assert ios[0]["config"]["skip"] == "not built for iOS yet"
    assert "recording" not in ios[2]["prompts"][0]  # no match ⇒ no recording ⇒ AI


def test_lowering_without_classifiers_refuses_a_trail_with_recordings() -> None:
    with pytest.raises(BadInputError, match="no classifiers"):
        lower_to_v1(parse_trail(MULTI, "multi.trail.yaml"), [])


V1 = """\
- config:
    id: legacy/login
    title: Log in
    target: com.example
    driver: ANDROID_ONDEVICE_ACCESSIBILITY
    skip: flaky on the emulator
    tags: [smoke]
    context: Use the staging account.
    memory: {email: test@example.com}
    metadata: {caseId: '42'}
    source: {type: HANDWRITTEN, reason: ported}
    args: {password: string}
- trailhead:
    step: Launch fresh
    tools:
      - launchApp: {appId: com.example, launchMode: REINSTALL}
- prompts:
    - step: Type the email
      recording:
        tools:
          - inputText: {text: '{{email}}'}
    - verify: The home screen shows
      recordable: false
      maxRetries: 3
    - step: Open settings
      recording:
        tools: []
"""


def test_v1_to_unified_to_v1_is_lossless() -> None:
    original = yamlio.load_fast(V1)
    unified = to_unified(parse_trail(V1, "v1.trail.yaml"), "android-phone")
    assert unified["config"]["devices"] == {"android-phone": "ANDROID_ONDEVICE_ACCESSIBILITY"}
    assert unified["trail"][0]["recording"] == {"android-phone": [{"inputText": {"text": "{{email}}"}}]}
    text = yamlio.dump_plain(unified)
    reparsed = parse_trail(text, "unified.trail.yaml")
    assert reparsed.format == "unified"
    assert lower_to_v1(reparsed, ["android", "phone"]) == original


def test_to_unified_refuses_what_has_no_unified_spelling() -> None:
    with pytest.raises(BadInputError, match="no unified spelling"):
        to_unified(parse_trail("- tools:\n    - wait: {}\n", "t.yaml"), "web")
    with pytest.raises(BadInputError, match="which device classifier"):
        to_unified(parse_trail("- prompts:\n    - step: x\n      recording: {tools: [{wait: {}}]}\n", "t.yaml"))


def test_recording_for_prefers_lineage_then_v1_star() -> None:
    step = parse_trail("- prompts:\n    - step: x\n      recording: {tools: [{wait: {}}]}\n", "t.yaml").steps[0]
    assert step.recording_for(["web"]) == ("*", [ToolCall("wait", {})])


# -- errors end a run with exit 3, and the worst code of several trails wins ------------------------
def test_trail_format_errors_are_bad_input() -> None:
    with pytest.raises(TrailFormatError) as info:
        parse_trail("trail:\n  - stepp: x\n", "bad.trail.yaml")
    assert info.value.exit_code == ExitCode.BAD_INPUT == 3
    assert str(info.value).startswith("bad.trail.yaml:2:5: 'stepp': unexpected step key (allowed: step, verify,")


@pytest.mark.parametrize("codes, worst", [
    ([0, 1, 3], 3), ([1, 2, 3], 2), ([0, 1], 1), ([], 0), ([0, 0], 0), ([3, 1, 0], 3), ([2, 0], 2),
])
def test_exit_codes_rank_two_over_three_over_one_over_zero(codes: list[int], worst: int) -> None:
    assert ExitCode.worst(codes) == worst
