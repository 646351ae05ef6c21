"""The "closest text on the page" hint of a failed text check names near-misses only (issue 22, LOW)."""

from __future__ import annotations

from trailblaze_driver_web.tools.verification import closest_lines

PAGE = "Title\nTotal: $34.95\nHeadlamp\nAdd to cart\nSign out\nYour basket is empty"


def test_a_near_miss_is_named_and_a_short_unrelated_word_is_not() -> None:
    assert closest_lines(PAGE, "Totals") == ["Total: $34.95"]  # not "Title"
    assert closest_lines(PAGE, "Headlamps") == ["Headlamp"]


def test_nothing_close_gives_no_hint() -> None:
    assert closest_lines(PAGE, "Welcome, hiker@example.com") == []


def test_a_fragment_of_a_long_line_still_matches() -> None:
    line = "Welcome back, hiker@example.com, today we have offers for you"
    assert closest_lines(f"Menu\n{line}", "hiker@example.org") == [line]
