"""Messages of the web driver (issue 22, LOW): the "closest text on the page" hint of a failed text check
names near-misses only; a snapshot that outlasts the timeout on a huge page says which setting to raise."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from trailblaze_driver_web.tools.verification import closest_lines

HUGE = ("data:text/html,<body><script>const f=document.createDocumentFragment();for(let i=0;i<50000;i++)"
        "{const b=document.createElement('button');b.textContent='b'+i;f.appendChild(b)}"
        "document.body.appendChild(f)</script></body>")

PAGE = "Title\nTotal: $34.95\nHeadlamp\nAdd to cart\nSign out\nYour basket is empty"


def test_a_near_miss_is_named_and_a_short_unrelated_word_is_not() -> None:
    assert closest_lines(PAGE, "Totals") == ["Total: $34.95"]  # not "Title"
    assert closest_lines(PAGE, "Headlamps") == ["Headlamp"]


def test_nothing_close_gives_no_hint() -> None:
    assert closest_lines(PAGE, "Welcome, hiker@example.com") == []


def test_a_fragment_of_a_long_line_still_matches() -> None:
    line = "Welcome back, hiker@example.com, today we have offers for you"
    assert closest_lines(f"Menu\n{line}", "hiker@example.org") == [line]


@pytest.mark.browser
def test_a_snapshot_of_a_50000_element_page_that_times_out_says_what_to_raise(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "trailblaze.cli", "snapshot", "-d", "web", "--url", HUGE,
                           "-o", "timeout_ms=300"], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "internal error" not in proc.stderr and "TimeoutError" not in proc.stderr
    assert "did not finish within 300 ms" in proc.stderr and "-o timeout_ms=" in proc.stderr


@pytest.mark.browser
def test_an_upstream_ref_on_a_page_whose_snapshot_times_out_says_what_to_raise(tmp_path: Path) -> None:
    """Upstream's ``eN`` refs are resolved against a snapshot of their own (``upstream_refs``): its timeout
    reads as ours does, not as Playwright's ``Locator.aria_snapshot: Timeout 300ms exceeded``."""
    (tmp_path / "huge.trail.yaml").write_text(
        "config: {devices: {web: PLAYWRIGHT_NATIVE}}\n"
        "trail:\n"
        "  - step: Open the huge page\n"
        "    recording:\n      web:\n        - web_navigate:\n"
        f"            url: {json.dumps(HUGE)}\n"
        "  - step: Click the fifth element\n"
        "    recording: {web: [{web_click: {ref: e5}}]}\n")
    proc = subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", "huge.trail.yaml", "-o", "timeout_ms=300",
                           "--no-report"], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 2, output
    assert "TimeoutError" not in output and "Timeout 300ms exceeded" not in output
    assert "did not finish within 300 ms" in output and "-o timeout_ms=" in output
