"""``save_recordings(..., original=trail)`` places each recording by the step's identity (kind, text and
which occurrence of that text), not by its index, and the save-back writes through symlinks."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailblaze.tools.base import ToolCall
from trailblaze.trail.parser import load_trail
from trailblaze.trail.saveback import SaveBackConflict, append_step, save_recording, save_recordings

TRAIL = """\
trail:
  - step: Open the menu
  - step: Tap OK
  - verify: The menu is closed
"""
CALL = [ToolCall("wait", {"timeToWaitInSeconds": 0})]


def recorded(path: Path) -> list[tuple[str | None, bool]]:
    return [(s.text, bool(s.recordings)) for s in load_trail(path).steps]


def test_unchanged_steps_keep_their_indexes_even_when_other_devices_were_saved_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL)
    original = load_trail(path)
    save_recording(path, 0, "android", CALL)  # another run, another device
    save_recordings(path, [(1, "web", CALL)], original=original)
    steps = load_trail(path).steps
    assert steps[0].recordings is not None and "android" in steps[0].recordings
    assert steps[1].recordings is not None and "web" in steps[1].recordings


def test_a_moved_step_is_found_by_its_text(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL)
    original = load_trail(path)
    path.write_text("trail:\n  - step: Tap OK\n  - step: Open the menu\n  - verify: The menu is closed\n")
    save_recordings(path, [(1, "web", CALL)], original=original)
    assert recorded(path) == [("Tap OK", True), ("Open the menu", False), ("The menu is closed", False)]


def test_the_nth_occurrence_of_a_repeated_text_stays_the_nth(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text("trail:\n  - step: Tap OK\n  - step: Wait\n  - step: Tap OK\n")
    original = load_trail(path)
    path.write_text("trail:\n  - step: Tap OK\n  - step: Wait a second\n  - step: Tap OK\n")
    save_recordings(path, [(2, "web", CALL)], original=original)
    assert recorded(path) == [("Tap OK", False), ("Wait a second", False), ("Tap OK", True)]


def test_refusals_name_the_step_and_the_rest_is_still_saved(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL)
    original = load_trail(path)
    path.write_text(TRAIL.replace("Tap OK", "Tap Cancel"))
    with pytest.raises(SaveBackConflict, match=r"step 2 \(step: 'Tap OK', read at .*t\.trail\.yaml:3:5\) was changed "
                                               r"or removed while the run was going; its web recording was not saved; "
                                               r"the other 1 recording\(s\) were saved"):
        save_recordings(path, [(1, "web", CALL), (2, "web", CALL)], original=original)
    assert recorded(path) == [("Open the menu", False), ("Tap Cancel", False), ("The menu is closed", True)]


def test_every_writer_follows_a_symlink_and_keeps_it(tmp_path: Path) -> None:
    real = tmp_path / "real" / "t.trail.yaml"
    real.parent.mkdir()
    real.write_text(TRAIL)
    link = tmp_path / "link.trail.yaml"
    link.symlink_to(real)
    save_recording(link, 0, "web", CALL)
    save_recordings(link, [(1, "web", CALL)], original=load_trail(link))
    index = append_step(link, "Close the app", classifier="web", calls=CALL).index
    assert link.is_symlink() and index == 3
    assert recorded(real) == [("Open the menu", True), ("Tap OK", True), ("The menu is closed", False),
                              ("Close the app", True)]
    assert sorted(p.name for p in real.parent.iterdir()) == ["t.trail.yaml"]
