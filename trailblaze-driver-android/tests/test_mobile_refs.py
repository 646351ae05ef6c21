"""Element refs: upstream's exact hash (Java String.hashCode, unsigned absolute value, 26 letters x 1000)."""

from __future__ import annotations

from trailblaze_driver_android.appium.refs import (
    RefTracker,
    compute_ref,
    java_string_hash_code,
    ref_from_hash,
)
from trailblaze_driver_android.appium.snapshot import build_snapshot


def test_java_string_hash_code_matches_the_jvm() -> None:
    assert java_string_hash_code("") == 0
    assert java_string_hash_code("hello") == 99162322
    assert java_string_hash_code("polygenelubricants") == -(2 ** 31)  # Integer.MIN_VALUE
    assert java_string_hash_code("😀") == 1772899  # UTF-16 surrogate pair, as Java counts it
    assert java_string_hash_code("Aa") == java_string_hash_code("BB") == 2112


def test_ref_from_hash_uses_unsigned_absolute_value() -> None:
    assert ref_from_hash(99162322) == "m935"
    assert ref_from_hash(-99162322) == "m935"
    # abs(Int.MIN_VALUE) overflows to itself in Kotlin and reads as 2147483648 unsigned.
    assert ref_from_hash(-(2 ** 31)) == "y524"


def test_identity_rounds_the_center_toward_zero_like_kotlin() -> None:
    assert compute_ref("OK", "Button", 545, 969) == compute_ref("OK", "Button", 540, 960)
    assert compute_ref("OK", "Button", 545, 969) != compute_ref("OK", "Button", 550, 960)
    assert compute_ref("x", "A", -15, 0) == compute_ref("x", "A", -10, 0)
    assert compute_ref("x", "A", -15, 0) != compute_ref("x", "A", -20, 0)
    identity_hash = java_string_hash_code("Button|OK|540,960")
    assert compute_ref("OK", "Button", 545, 969) == ref_from_hash(identity_hash)
    assert compute_ref(None, None) == ref_from_hash(java_string_hash_code("||0,0"))


def test_tracker_suffixes_repeats_in_order() -> None:
    tracker = RefTracker()
    first = tracker.ref("Add", "Button", 900, 1240)
    assert tracker.ref("Add", "Button", 905, 1245) == first + "b"
    assert tracker.ref("Add", "Button", 901, 1241) == first + "c"
    assert tracker.ref("Other", "Button", 0, 0) != first


def test_refs_are_stable_across_captures_and_unique_per_snapshot(fixture_tree) -> None:
    for name in ("uia2_settings.xml", "uia2_form.xml", "uia2_long_list.xml", "xcuitest_settings.xml",
                 "xcuitest_form.xml", "xcuitest_long_list.xml"):
        first = build_snapshot(fixture_tree(name))
        second = build_snapshot(fixture_tree(name))
        assert first.text == second.text
        assert list(first.refs) == list(second.refs)
        assert len(set(first.refs)) == len(first.refs)
        for ref, node in first.refs.items():
            assert node.ref == ref


def test_duplicate_identities_get_suffixes(fixture_tree) -> None:
    # Two "Off" summaries and two unlabeled switches share class and label but not position; a row of
    # identical buttons at the same rounded center would collide: build one.
    tree = fixture_tree("uia2_settings.xml")
    snap = build_snapshot(tree)
    labels = [n.display_label() for n in snap.refs.values()]
    assert labels.count("Off") == 0  # summaries are plain text lines under their rows
    assert "Off" in snap.text
    from trailblaze_driver_android.appium.hierarchy import parse_page_source

    same = parse_page_source(
        '<hierarchy width="100" height="100">'
        '<android.widget.Button class="android.widget.Button" text="Go" clickable="true" bounds="[0,0][20,20]"/>'
        '<android.widget.Button class="android.widget.Button" text="Go" clickable="true" bounds="[1,1][21,21]"/>'
        '</hierarchy>', "android")
    refs = list(build_snapshot(same).refs)
    assert len(refs) == 2 and refs[1] == refs[0] + "b"
