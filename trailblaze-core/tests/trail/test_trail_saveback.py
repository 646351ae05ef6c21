"""Saving recordings back: only the one slot changes, writes are atomic and serialised across processes."""

from __future__ import annotations

import difflib
import multiprocessing
import os
import stat
from pathlib import Path

import pytest
from trailblaze.errors import BadInputError
from trailblaze.tools.base import ToolCall
from trailblaze.trail.parser import load_trail
from trailblaze.trail.saveback import NewStep, append_step, append_steps, save_recording

TRAIL = """\
# Checkout flow — hand-written, then recorded on three devices.
config:
  id: "shop/checkout"      # quoted on purpose
  title: 'Checkout: the "happy" path'
  tags: [smoke,   checkout]
trail:
  - step: >-
      Open the catalog
      and pick a product
    recording:
      android:
      - tapOnElementBySelector:
          nodeSelector: {androidAccessibility: {textRegex: "Catalog"}}   # flow args
      # the iPhone needs a scroll first
      ios-iphone:
          - scrollUntilVisible: {text: 'Catalog'}
          - tap: {ref: "e3"}
      web:
        - web_click: {ref: e1, reason: "open the catalog"}
  - verify: "The cart shows 1 item"   # trailing comment
    recording:
      web: [ {web_verifyText: {text: "1 item"}} ]
"""

NEW = [ToolCall("tapOnElementBySelector", {"nodeSelector": {"iosAccessibility": {"labelRegex": "Catalog"}}}),
       ToolCall("inputText", {"text": "{{email}}"})]


def _changed_old_lines(before: str, after: str) -> set[int]:
    """1-based line numbers of ``before`` that a line diff touches (replaced or deleted)."""
    changed: set[int] = set()
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    for tag, i1, i2, _j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            changed.update(range(i1 + 1, max(i2, i1 + 1) + 1) if tag == "insert" else range(i1 + 1, i2 + 1))
    return changed


def test_only_the_one_classifier_slot_changes(tmp_path: Path) -> None:
    path = tmp_path / "checkout.trail.yaml"
    path.write_text(TRAIL)
    save_recording(path, 0, "ios-iphone", NEW)
    after = path.read_text()
    assert _changed_old_lines(TRAIL, after) == {16, 17}  # the two old iPhone calls, nothing else
    diff = [line for line in difflib.unified_diff(TRAIL.splitlines(), after.splitlines(), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert diff == [
        "-          - scrollUntilVisible: {text: 'Catalog'}",
        "-          - tap: {ref: \"e3\"}",
        "+          - tapOnElementBySelector:",
        "+              nodeSelector:",
        "+                iosAccessibility:",
        "+                  labelRegex: Catalog",
        "+          - inputText:",
        "+              text: '{{email}}'",
    ]
    trail = load_trail(path)
    step = trail.steps[0]
    assert step.recordings["ios-iphone"] == NEW  # type: ignore[index]
    assert step.recordings["android"][0].name == "tapOnElementBySelector"  # type: ignore[index]
    assert step.recordings["web"] == [ToolCall("web_click", {"ref": "e1", "reason": "open the catalog"})]  # type: ignore[index]
    assert trail.config.title == 'Checkout: the "happy" path'


def test_a_new_classifier_is_added_after_the_others(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL)
    save_recording(path, 0, "android-tablet", [ToolCall("tap", {"ref": "e9"})])
    after = path.read_text()
    assert after.splitlines()[:19] == TRAIL.splitlines()[:19]
    assert after.splitlines()[19:21] == ["      android-tablet:", "        - tap:"]
    assert after.splitlines()[22:] == TRAIL.splitlines()[19:]
    assert set(load_trail(path).steps[0].recordings or {}) == {"android", "ios-iphone", "web", "android-tablet"}


def test_flow_recordings_are_rewritten_in_flow_style(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL)
    save_recording(path, 1, "web", [ToolCall("web_verifyText", {"text": "2 items"})])
    after = path.read_text()
    assert _changed_old_lines(TRAIL, after) == {22}
    assert load_trail(path).steps[1].recordings == {"web": [ToolCall("web_verifyText", {"text": "2 items"})]}


def test_recording_is_created_when_the_step_has_none(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    text = "trail:\n  - step: Open settings   # NL only so far\n  - step: next\n"
    path.write_text(text)
    save_recording(path, 0, "web", [ToolCall("web_click", {"ref": "e2"})])
    assert path.read_text() == ("trail:\n  - step: Open settings   # NL only so far\n    recording:\n      web:\n"
                                "        - web_click:\n            ref: e2\n  - step: next\n")


def test_zero_tools_remove_the_slot_and_an_empty_recording_goes_too(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL)
    save_recording(path, 0, "ios-iphone", None)
    after = path.read_text()
    assert "ios-iphone" not in after and "scrollUntilVisible" not in after
    assert "# the iPhone needs a scroll first" in after  # comments outside the slot stay
    save_recording(path, 1, "web", [])
    trail = load_trail(path)
    assert trail.steps[1].recordings is None and "recording" not in path.read_text().split("verify")[1]


def test_saving_to_a_device_that_has_no_slot_with_zero_tools_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL)
    save_recording(path, 0, "ios-ipad", None)
    assert path.read_text() == TRAIL


def test_trailhead_slot_holds_one_tool_map(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text("trailhead:\n  step: Launch\n  recording:\n    android:\n      launchApp: {appId: a}\n"
                    "trail:\n  - step: x\n")
    save_recording(path, 0, "web", [ToolCall("web_navigate", {"url": "http://127.0.0.1:1/"})], trailhead=True)
    trail = load_trail(path)
    assert trail.steps[0].recordings == {"android": [ToolCall("launchApp", {"appId": "a"})],
                                         "web": [ToolCall("web_navigate", {"url": "http://127.0.0.1:1/"})]}
    assert "    web:\n      web_navigate:\n        url: http://127.0.0.1:1/\n" in path.read_text()
    with pytest.raises(BadInputError, match="one tool per device"):
        save_recording(path, 0, "web", [ToolCall("a"), ToolCall("b")])
    with pytest.raises(BadInputError, match="not the trailhead"):
        save_recording(path, 1, "web", [ToolCall("a")], trailhead=True)


def test_v1_recordings_go_into_tools_and_ignore_the_classifier(tmp_path: Path) -> None:
    path = tmp_path / "v1.trail.yaml"
    text = ("- config:\n    id: legacy\n- prompts:\n    - step: one\n      recording:\n        tools:\n"
            "          - wait: {}\n    - step: two  # note\n")
    path.write_text(text)
    save_recording(path, 0, "android-phone", [ToolCall("tap", {"ref": "e1"})])
    save_recording(path, 1, "whatever", [ToolCall("tap", {"ref": "e2"})])
    trail = load_trail(path)
    assert [s.recordings for s in trail.steps] == [{"*": [ToolCall("tap", {"ref": "e1"})]},
                                                   {"*": [ToolCall("tap", {"ref": "e2"})]}]
    assert path.read_text().startswith("- config:\n    id: legacy\n- prompts:\n    - step: one\n      recording:\n")
    assert "    - step: two  # note\n      recording:\n        tools:\n" in path.read_text()


def test_v1_bare_trailhead_becomes_the_map_form(tmp_path: Path) -> None:
    path = tmp_path / "v1.trail.yaml"
    path.write_text("- trailhead: myapp_launch\n- prompts:\n    - step: x\n")
    save_recording(path, 0, "android", [ToolCall("launchApp", {"appId": "b"})])
    head = load_trail(path).steps[0]
    assert head.recordings == {"*": [ToolCall("launchApp", {"appId": "b"})]}


def test_v1_tools_blocks_have_no_recording(tmp_path: Path) -> None:
    path = tmp_path / "v1.trail.yaml"
    path.write_text("- tools:\n    - wait: {}\n")
    with pytest.raises(BadInputError, match="always replays"):
        save_recording(path, 0, "web", [ToolCall("wait")])


def test_crlf_line_endings_and_file_mode_are_kept_and_nothing_is_left_behind(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_bytes(TRAIL.replace("\n", "\r\n").encode())
    os.chmod(path, 0o640)
    save_recording(path, 0, "web", [ToolCall("web_click", {"ref": "e7"})])
    raw = path.read_bytes().decode()
    assert "\n" not in raw.replace("\r\n", "")
    assert raw.startswith(TRAIL.splitlines()[0] + "\r\n")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.trail.yaml"]  # no temp or lock files


def test_a_broken_file_is_never_written(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    broken = "trail:\n  - step: x\n    recordin: {}\n"
    path.write_text(broken)
    with pytest.raises(BadInputError, match="recordin"):
        save_recording(path, 0, "web", [ToolCall("wait")])
    assert path.read_text() == broken
    with pytest.raises(BadInputError, match="no step at index 5"):
        path.write_text(TRAIL)
        save_recording(path, 5, "web", [ToolCall("wait")])


def _saver(path: str, classifier: str, steps: int, start: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    start.wait(10)
    for round_ in range(3):
        for i in range(steps):
            save_recording(Path(path), i, classifier, [ToolCall("tap", {"ref": f"{classifier}-{i}-{round_}"})])


def test_two_processes_saving_different_classifiers_both_land(tmp_path: Path) -> None:
    steps = 8
    path = tmp_path / "shared.trail.yaml"
    path.write_text("# shared by two recorders\ntrail:\n" + "".join(f"  - step: step {i}\n" for i in range(steps)))
    ctx = multiprocessing.get_context("fork")
    start = ctx.Event()
    workers = [ctx.Process(target=_saver, args=(str(path), cls, steps, start)) for cls in ("android", "ios")]
    for w in workers:
        w.start()
    start.set()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    trail = load_trail(path)
    for i, step in enumerate(trail.steps):
        assert step.recordings == {cls: [ToolCall("tap", {"ref": f"{cls}-{i}-2"})] for cls in ("android", "ios")} or \
            step.recordings == {cls: [ToolCall("tap", {"ref": f"{cls}-{i}-2"})] for cls in ("ios", "android")}
    assert path.read_text().startswith("# shared by two recorders\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.trail.yaml"]


# -- append_step (trailblaze step --save) ---------------------------------------------------------------
def test_append_step_creates_a_unified_trail(tmp_path: Path) -> None:
    path = tmp_path / "new.trail.yaml"
    assert append_step(path, "Open the login page", "step", "web", [ToolCall("web_navigate", {"url": "/login"})]).index == 0
    second = append_step(path, "The form is visible", "verify", "web", None)
    assert (second.index, second.number) == (1, 2)
    assert path.read_text() == ("trail:\n  - step: Open the login page\n    recording:\n      web:\n"
                                "        - web_navigate:\n            url: /login\n"
                                "  - verify: The form is visible\n")


def test_append_step_keeps_the_rest_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL + "# trailing comment\n")
    index = append_step(path, 'Pay with "card"', "step", "android", [ToolCall("tap", {"ref": "pay"})]).index
    after = path.read_text()
    assert after.startswith(TRAIL.rstrip("\n") + '\n  - step: Pay with "card"\n')
    assert after.endswith("# trailing comment\n")
    trail = load_trail(path)
    assert index == 2 and trail.steps[2].recordings == {"android": [ToolCall("tap", {"ref": "pay"})]}


def test_appended_steps_carry_their_comments_above_them(tmp_path: Path) -> None:
    # What a recorder could not record is written where it happened, as comments the parser ignores.
    path = tmp_path / "recorded.trail.yaml"
    note = "trailblaze record could not record a click on <canvas> (#chart) at 30,20"
    append_steps(path, [NewStep("Pick a category", "step", "web", [ToolCall("web_click", {"ref": "x"})], [note]),
                        NewStep("Approve", "step", "web", [ToolCall("web_click", {"ref": "y"})], ["one", "two"])],
                 header="# header\n")
    text = path.read_text()
    assert text.startswith(f"# header\ntrail:\n  # {note}\n  - step: Pick a category\n"), text
    assert "\n  # one\n  # two\n  - step: Approve\n" in text, text
    assert [s.text for s in load_trail(path).steps] == ["Pick a category", "Approve"]


def test_append_step_to_config_only_and_v1_documents(tmp_path: Path) -> None:
    meta = tmp_path / "meta.trail.yaml"
    meta.write_text("config:\n  id: meta\n")
    append_step(meta, "first", "step", None, None)
    assert load_trail(meta).steps[0].text == "first"
    v1 = tmp_path / "v1.trail.yaml"
    v1.write_text("- config: {id: old}\n- prompts:\n    - step: a\n")
    append_step(v1, "b", "verify", "ignored", [ToolCall("wait")])
    trail = load_trail(v1)
    assert [(s.kind, s.text) for s in trail.steps] == [("step", "a"), ("verify", "b")]
    assert trail.steps[1].recordings == {"*": [ToolCall("wait")]}


def test_a_whole_run_is_saved_in_one_pass(tmp_path: Path) -> None:
    from trailblaze.trail.saveback import save_recordings

    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL + "  - step: third\n")
    save_recordings(path, [(0, "web", [ToolCall("web_click", {"ref": "n1"})]),
                           (1, "web", None),
                           (2, "web", [ToolCall("web_click", {"ref": "n3"})]),
                           (2, "android", [ToolCall("tap", {"ref": "a3"})])])
    trail = load_trail(path)
    assert trail.steps[0].recordings["web"] == [ToolCall("web_click", {"ref": "n1"})]  # type: ignore[index]
    assert trail.steps[1].recordings is None
    assert trail.steps[2].recordings == {"web": [ToolCall("web_click", {"ref": "n3"})],
                                         "android": [ToolCall("tap", {"ref": "a3"})]}
    assert path.read_text().startswith(TRAIL.split("      web:\n        - web_click")[0])
