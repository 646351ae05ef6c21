"""The unified trail format (upstream §1.2, §10 ``UnifiedTrailParserTest``): one test per rule."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from trailblaze.errors import BadInputError, TrailFormatError
from trailblaze.tools.base import OtherTool, ToolCall
from trailblaze.trail import Trail
from trailblaze.trail.parser import locate_call, parse_trail, require_classifiers

Parse = Callable[..., Trail]
Fails = Callable[..., TrailFormatError]

CLOCK = """\
config:
  id: clock/set-alarm-730am
  target: clock
  devices:
    android: ANDROID_ONDEVICE_ACCESSIBILITY
trailhead:
  step: "Launch the AOSP Desk Clock app (com.android.deskclock) fresh, landing on the Clock tab."
  recording:
    android:
      clock_android_launchApp: {}
trail:
  - step: "Navigate to the ALARM tab"
    recording:
      android:
        - tapOnElementBySelector:
            reason: Switch to the ALARM tab before adding a new alarm.
            nodeSelector:
              androidAccessibility:
                resourceIdRegex: android:id/text1
                textRegex: ALARM
  - step: "The new 7:30 alarm is visible in the alarm list"
    recording:
      android:
        - assertVisibleBySelector:
            nodeSelector:
              androidAccessibility:
                resourceIdRegex: com.android.deskclock:id/digital_clock
                textRegex: 7:30.AM
  - step: "The 7:30 alarm is no longer visible"
    recording:
      android:
        - assertNotVisibleWithText:
            text: 7:30
"""


def test_upstream_clock_example_parses_with_trailhead_as_step_zero(parse: Parse) -> None:
    trail = parse(CLOCK)
    assert trail.format == "unified"
    assert trail.config.id == "clock/set-alarm-730am" and trail.config.target == "clock"
    assert trail.config.devices == {"android": "ANDROID_ONDEVICE_ACCESSIBILITY"}
    assert [s.kind for s in trail.steps] == ["trailhead", "step", "step", "step"]
    assert [s.index for s in trail.steps] == [0, 1, 2, 3]
    head = trail.trailhead
    assert head is not None and head.recordings == {"android": [ToolCall("clock_android_launchApp", {})]}
    tap = trail.steps[1].recordings["android"][0]  # type: ignore[index]
    assert tap.name == "tapOnElementBySelector"
    assert tap.args["nodeSelector"]["androidAccessibility"]["textRegex"] == "ALARM"
    assert trail.steps[3].recordings["android"][0].args == {"text": "7:30"}  # type: ignore[index]  # YAML 1.2
    assert isinstance(tap, OtherTool)  # unknown names decode to OtherTool, resolved at dispatch


def test_positions_are_recorded_for_steps_and_calls(parse: Parse) -> None:
    trail = parse(CLOCK)
    assert (trail.steps[1].location.line, trail.steps[1].location.column) == (12, 5)
    (loc,) = trail.steps[1].tool_locations["android"]
    assert (loc.line, loc.column) == (15, 11)
    assert locate_call(trail, 1, "android", 0) == loc
    head_loc = trail.steps[0].tool_locations["android"][0]
    assert (head_loc.line, head_loc.column) == (10, 7)


def test_locate_call_rereads_positions_for_a_trail_without_them(parse: Parse) -> None:
    trail = parse(CLOCK)
    trail.steps[2].tool_locations = {}
    loc = locate_call(trail, 2, "android", 0)
    assert (loc.line, loc.column) == (24, 11) and loc.file == trail.path


def test_no_config_means_an_empty_config(parse: Parse) -> None:
    trail = parse("trail:\n  - step: Open the app\n")
    assert trail.config.id is None and trail.config.memory == {} and trail.config.tags == []
    assert trail.steps[0].recordings is None


@pytest.mark.parametrize("text", ["config:\n  id: meta/only\n", "config:\n  id: meta/only\ntrail: []\n"])
def test_config_only_document_is_accepted(parse: Parse, text: str) -> None:
    trail = parse(text)
    assert trail.config.id == "meta/only" and trail.steps == []


def test_trailhead_only_document_is_rejected(fails: Fails) -> None:
    err = fails("trailhead:\n  step: Launch\n  recording:\n    web:\n      web_navigate: {url: x}\n")
    assert err.key == "trailhead" and "trailhead alone is not a trail" in str(err)
    assert (err.location.line, err.location.column) == (1, 1)  # type: ignore[union-attr]


@pytest.mark.parametrize("text", ["{}\n", "trail:\n", "trail: []\n"])
def test_document_with_neither_config_nor_steps_is_rejected(fails: Fails, text: str) -> None:
    err = fails(text)
    assert "non-empty 'trail:'" in str(err)


def test_unknown_top_level_key_names_the_key_and_the_allowed_ones(fails: Fails) -> None:
    err = fails("config: {}\nsteps:\n  - step: x\n")
    assert err.key == "steps" and ":2:1: 'steps': unexpected top-level key" in str(err)
    assert "allowed: config, trailhead, trail" in str(err)


def test_v1_keys_at_the_top_of_a_map_get_a_format_hint(fails: Fails) -> None:
    err = fails("prompts:\n  - step: x\n")
    assert "v1 trails are a YAML list" in str(err)


def test_classifier_at_step_level_is_an_error(fails: Fails) -> None:
    err = fails("""\
        trail:
          - step: Tap OK
            android:
              - tap: {ref: e1}
        """)
    assert err.key == "android" and ":3:5:" in str(err)
    assert "unexpected step key" in str(err) and "nest under 'recording:'" in str(err)


def test_step_and_verify_together_is_an_error(fails: Fails) -> None:
    err = fails("trail:\n  - step: Tap OK\n    verify: OK is gone\n")
    assert err.key == "verify" and ":3:5:" in str(err) and "not both" in str(err)


def test_a_step_without_natural_language_is_an_error(fails: Fails) -> None:
    err = fails("trail:\n  - recording:\n      web: []\n")
    assert ":2:5:" in str(err) and "'step: <text>' or 'verify: <text>'" in str(err)


@pytest.mark.parametrize("value", ['""', "'   '", "", "[a, b]"])
def test_blank_or_non_text_step_is_an_error(fails: Fails, value: str) -> None:
    err = fails(f"trail:\n  - step: {value}\n")
    assert err.key == "step"


def test_non_string_scalar_step_text_is_read_as_written(parse: Parse) -> None:
    assert parse("trail:\n  - step: 1.50\n").steps[0].text == "1.50"


def test_verify_steps_have_their_own_kind(parse: Parse) -> None:
    trail = parse("trail:\n  - verify: The inbox is visible\n")
    assert trail.steps[0].kind == "verify" and trail.steps[0].text == "The inbox is visible"


def test_recordable_false_with_a_non_empty_recording_is_an_error(fails: Fails) -> None:
    err = fails("""\
        trail:
          - step: Pick any product
            recordable: false
            recording:
              web:
                - web_click: {ref: e1}
        """)
    assert err.key == "recordable" and ":3:5:" in str(err) and "'web' has 1 call" in str(err)


def test_recordable_false_with_an_empty_recording_is_fine(parse: Parse) -> None:
    step = parse("trail:\n  - step: x\n    recordable: false\n    recording: {web: []}\n").steps[0]
    assert step.recordable is False and step.recordings == {"web": []}


def test_recordable_must_be_a_boolean(fails: Fails) -> None:
    err = fails("trail:\n  - step: x\n    recordable: 'no'\n")
    assert err.key == "recordable" and "true or false" in str(err)


def test_recording_has_three_states(parse: Parse) -> None:
    trail = parse("""\
        trail:
          - step: absent
          - step: explicit no-op for tablets, calls for phones
            recording:
              android-tablet: []
              android-phone:
                - tap: {ref: e1}
        """)
    absent, present = trail.steps
    assert absent.recordings is None and absent.recording_for(["android", "phone"]) is None
    assert present.recording_for(["android", "tablet"]) == ("android-tablet", [])
    assert present.recording_for(["android", "phone"]) == ("android-phone", [ToolCall("tap", {"ref": "e1"})])
    assert present.recording_for(["ios", "iphone"]) is None  # no match → AI


def test_empty_recording_map_matches_no_device(parse: Parse) -> None:
    step = parse("trail:\n  - step: x\n    recording: {}\n").steps[0]
    assert step.recordings == {} and step.recording_for(["web"]) is None


def test_recording_must_be_keyed_by_classifier(fails: Fails) -> None:
    err = fails("trail:\n  - step: x\n    recording:\n      - tap: {}\n")
    assert err.key == "recording" and "under a device classifier" in str(err)


def test_v1_recording_shape_in_a_unified_trail_is_an_error(fails: Fails) -> None:
    err = fails("trail:\n  - step: x\n    recording:\n      tools:\n        - tap: {}\n")
    assert err.key == "tools" and "legacy v1 shape" in str(err)


def test_classifier_value_must_be_a_list(fails: Fails) -> None:
    err = fails("trail:\n  - step: x\n    recording:\n      web:\n")
    assert err.key == "web" and "'web: []' for an explicit no-op" in str(err)


@pytest.mark.parametrize("value, ok", [("0", 0), ("8", 8), ("-1", None), ("two", None), ("true", None), ("1.5", None)])
def test_max_retries_is_a_whole_number_of_zero_or_more(parse: Parse, fails: Fails, value: str, ok: int | None) -> None:
    text = f"trail:\n  - step: x\n    maxRetries: {value}\n"
    if ok is None:
        err = fails(text)
        assert err.key == "maxRetries" and ":3:17:" in str(err)
    else:
        assert parse(text).steps[0].max_retries == ok


def test_trailhead_verify_is_an_error(fails: Fails) -> None:
    err = fails("trailhead:\n  verify: the app is open\ntrail:\n  - step: x\n")
    assert err.key == "verify" and ":2:3:" in str(err) and "cannot be a verification" in str(err)


def test_trailhead_classifier_value_must_be_one_tool_map_not_a_list(fails: Fails) -> None:
    err = fails("""\
        trailhead:
          step: Launch
          recording:
            android:
              - launchApp: {appId: a}
        trail:
          - step: x
        """)
    assert err.key == "android" and ":5:7:" in str(err) and "one tool per device" in str(err)


def test_trailhead_classifier_value_with_two_tools_is_an_error(fails: Fails) -> None:
    err = fails("""\
        trailhead:
          step: Launch
          recording:
            android:
              launchApp: {appId: a}
              wait: {}
        trail:
          - step: x
        """)
    assert err.key == "android" and ":6:7:" in str(err) and "exactly one tool" in str(err)


def test_trailhead_empty_map_is_a_no_op_for_that_device(parse: Parse) -> None:
    trail = parse("trailhead:\n  step: Launch\n  recording:\n    web: {}\ntrail:\n  - step: x\n")
    assert trail.steps[0].recordings == {"web": []}


def test_empty_trailhead_is_rejected(fails: Fails) -> None:
    err = fails("trailhead: {}\ntrail:\n  - step: x\n")
    assert "empty trailhead" in str(err)


def test_unknown_trailhead_key(fails: Fails) -> None:
    err = fails("trailhead:\n  step: x\n  tools: []\ntrail:\n  - step: x\n")
    assert err.key == "tools" and "allowed: step, recording, recordable, maxRetries" in str(err)


def test_memory_scalars_are_coerced_to_strings_as_written(parse: Parse) -> None:
    trail = parse("""\
        config:
          memory:
            email: test@example.com
            tier: 5
            enabled: true
            pin: 0042
            price: 1.50
        trail:
          - step: x
        """)
    assert trail.config.memory == {"email": "test@example.com", "tier": "5", "enabled": "true", "pin": "0042",
                                   "price": "1.50"}


def test_memory_value_must_be_present_and_scalar(fails: Fails) -> None:
    assert fails("config:\n  memory:\n    email:\ntrail:\n  - step: x\n").key == "email"
    err = fails("config:\n  memory:\n    user: {name: ada}\ntrail:\n  - step: x\n")
    assert err.key == "user" and "single value" in str(err)


def test_skip_is_per_classifier_blank_means_not_skipped_and_reason_is_trimmed(parse: Parse) -> None:
    cfg = parse("""\
        config:
          skip:
            ios: "  flaky on iOS 18, see #2194  "
            android: "   "
        trail:
          - step: x
        """).config
    assert cfg.skip_reason(["ios", "iphone"]) == "flaky on iOS 18, see #2194"
    assert cfg.skip_reason(["android", "phone"]) is None  # blank = not skipped
    assert cfg.skip_reason(["web"]) is None
    assert cfg.skip_reason(None) == "flaky on iOS 18, see #2194"  # no device info: any non-blank reason


def test_unified_skip_must_be_a_map(fails: Fails) -> None:
    err = fails("config:\n  skip: broken\ntrail:\n  - step: x\n")
    assert err.key == "skip" and "skip: {ios: \"broken\"}" in str(err)


def test_tags_are_a_list(parse: Parse, fails: Fails) -> None:
    assert parse("config:\n  tags: [smoke, 'flaky:retry-once']\ntrail:\n  - step: x\n").config.tags == [
        "smoke", "flaky:retry-once"]
    err = fails("config:\n  tags: smoke\ntrail:\n  - step: x\n")
    assert err.key == "tags" and "tags: [smoke, login]" in str(err)


def test_devices_resolve_closest_wins(parse: Parse) -> None:
    cfg = parse("""\
        config:
          devices:
            android: ANDROID_ONDEVICE_ACCESSIBILITY
            android-tablet: ANDROID_ONDEVICE_INSTRUMENTATION
            web: PLAYWRIGHT_NATIVE
        trail:
          - step: x
        """).config
    assert cfg.driver_for(["android", "phone"]) == "ANDROID_ONDEVICE_ACCESSIBILITY"
    assert cfg.driver_for(["android", "tablet"]) == "ANDROID_ONDEVICE_INSTRUMENTATION"
    assert cfg.driver_for(["web"]) == "PLAYWRIGHT_NATIVE"


def test_unknown_config_key_is_a_warning_and_strict_makes_it_an_error(parse: Parse, fails: Fails) -> None:
    text = "config:\n  driver: PLAYWRIGHT_NATIVE\ntrail:\n  - step: x\n"
    trail = parse(text)
    assert trail.config.driver is None
    assert len(trail.warnings) == 1 and ":2:3: 'driver': unknown config key" in trail.warnings[0]
    assert "devices: {android:" in trail.warnings[0]
    err = fails(text, strict=True)
    assert err.key == "driver"


def test_config_text_fields_take_numbers_as_written(parse: Parse) -> None:
    cfg = parse("config:\n  id: 007\n  priority: 0\ntrail:\n  - step: x\n").config
    assert (cfg.id, cfg.priority) == ("007", "0")


def test_metadata_is_a_map_of_strings(parse: Parse) -> None:
    cfg = parse("config:\n  metadata: {caseId: 123, source: HANDWRITTEN}\ntrail:\n  - step: x\n").config
    assert cfg.metadata == {"caseId": "123", "source": "HANDWRITTEN"}


def test_duplicate_keys_are_errors(fails: Fails) -> None:
    err = fails("trail:\n  - step: a\n    step: b\n")
    assert ":3:5:" in str(err) and "duplicate key" in str(err)


def test_yaml_syntax_errors_are_located(write: Callable[..., object]) -> None:
    from trailblaze.trail.parser import load_trail

    path = write("trail:\n  - step: 'unclosed\n")
    with pytest.raises(BadInputError) as info:
        load_trail(path)  # type: ignore[arg-type]
    assert "invalid YAML" in str(info.value) and str(path) in str(info.value)
    assert info.value.location is not None and info.value.location.line is not None


def test_root_list_is_v1_and_root_scalar_is_an_error(parse: Parse, fails: Fails) -> None:
    assert parse("- prompts:\n    - step: x\n").format == "v1"
    assert "a trail must be a map" in str(fails("just text\n"))


def test_empty_file_is_an_error(fails: Fails) -> None:
    assert "the file is empty" in str(fails("# only a comment\n"))


def test_upstream_sample_with_trailhead_verify_and_maestro_parses(parse: Parse) -> None:
    trail = parse("""\
        config:
          id: sample-app/loading/wait-for-content
          target: xyz.block.trailblaze.examples.sampleapp
          devices:
            android-phone: ANDROID_ONDEVICE_INSTRUMENTATION
        trailhead:
          step: Launch the sample app
          recording:
            android-phone:
              launchApp:
                appId: xyz.block.trailblaze.examples.sampleapp
                launchMode: REINSTALL
        trail:
          - step: "Wait (event-driven) for the content to finish loading"
            recording:
              android-phone:
                - mobile_maestro:
                    commands:
                    - extendedWaitUntil:
                        visible: { text: Content Loaded }
                        timeout: "30000"
          - verify: "\\"Content Loaded\\" is visible on the screen"
            recording:
              android-phone:
                - assertVisibleBySelector:
                    nodeSelector:
                      androidAccessibility:
                        textRegex: Content Loaded
        """)
    assert [s.kind for s in trail.steps] == ["trailhead", "step", "verify"]
    assert trail.steps[2].text == '"Content Loaded" is visible on the screen'
    maestro = trail.steps[1].recordings["android-phone"][0]  # type: ignore[index]
    assert maestro.args["commands"][0]["extendedWaitUntil"]["timeout"] == "30000"
    assert trail.steps[0].recording_for(["android", "phone"]) == (
        "android-phone", [ToolCall("launchApp", {"appId": "xyz.block.trailblaze.examples.sampleapp",
                                                 "launchMode": "REINSTALL"})])


def test_parse_trail_accepts_text_and_yaml_anchors() -> None:
    trail = parse_trail("""\
trail:
  - step: a
    recording:
      android:
        - tapOnElementBySelector: {nodeSelector: &sel {textRegex: OK}}
        - assertVisibleBySelector: {nodeSelector: *sel}
""", "inline.trail.yaml")
    a, b = trail.steps[0].recordings["android"]  # type: ignore[index]
    assert a.args["nodeSelector"] == b.args["nodeSelector"] == {"textRegex": "OK"}
    assert str(trail.steps[0].tool_locations["android"][1]) == "inline.trail.yaml:6:11"


def test_no_classifiers_with_recordings_must_throw(parse: Parse) -> None:
    recorded = parse("trail:\n  - step: x\n    recording:\n      web:\n        - web_click: {ref: e1}\n")
    with pytest.raises(BadInputError, match="reported no classifiers"):
        require_classifiers(recorded, [])
    require_classifiers(recorded, ["web"])  # fine with classifiers
    require_classifiers(parse("trail:\n  - step: NL only\n"), [])  # nothing to choose
    require_classifiers(parse("- prompts:\n    - step: x\n      recording:\n        tools: [{wait: {}}]\n"), [])
