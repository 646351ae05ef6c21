"""Trails written the way upstream's ``trails/playwright-native/*/trail.yaml`` are, run unchanged in real
Chromium through ``trailblaze run`` (issue 17 item 8; docs/upstream-compatibility.md lists the sources).

* ``web_navigate`` with a path relative to the trail file (``../../../examples/…/index.html``), no base
  URL configured: a ``file://`` URL, however the run was started (another working directory here);
* a path that is not beside the trail: relative to the working directory;
* a recorded ``nodeSelector`` with no ``web:`` part (only ``index: 2``, or another driver's part) next to
  a ``ref``: the ref is used; without a ref the selector's own error stays;
* upper-case enum parameters written in lower case (``action: reload``, ``direction: down``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from .conftest import run_trail, upstream_layout

pytestmark = pytest.mark.browser

PAGE = """
<!doctype html>
<html><head><title>Parts</title></head><body>
<h1>Parts list</h1>
<ul>
  <li>Cable A <button onclick="document.getElementById('out').textContent='cable-a'">Open</button></li>
  <li>Cable A <button onclick="document.getElementById('out').textContent='cable-a2'">Open</button></li>
  <li>Plug B <button onclick="document.getElementById('out').textContent='plug-b'">Open</button></li>
</ul>
<p id="out">nothing opened</p>
</body></html>
"""

UPSTREAM_STYLE = """
config:
  devices:
    web: PLAYWRIGHT_NATIVE
  title: 'Test: open the third part'

trail:
  - step: "Navigate to ../../../examples/sample-app/index.html"
    recording:
      web:
        - web_navigate:
            url: ../../../examples/sample-app/index.html
            reasoning: The objective names a relative URL, so navigate to it directly.

  - step: "Verify the heading \\"Parts list\\" is visible"
    recording:
      web:
        - web_verifyElementVisible:
            ref: heading "Parts list"
            reasoning: The heading is on the page.
            nodeSelector:
              androidAccessibility:
                textRegex: Parts list

  - step: "Click the \\"Open\\" button of \\"Plug B\\""
    recording:
      web:
        - web_click:
            ref: css=li:nth-child(3) button
            reasoning: The third Open button belongs to Plug B.
            nodeSelector:
              index: 2

  - step: "Verify the text \\"plug-b\\" is visible"
    recording:
      web:
        - web_verifyTextVisible:
            text: plug-b
            reasoning: The detail shows the opened part.

  - step: "Reload and scroll"
    recording:
      web:
        - web_navigate:
            action: reload
        - web_scroll:
            direction: down
        - web_verifyTextVisible:
            text: nothing opened
"""


def test_an_upstream_style_trail_runs_unchanged(tmp_path: Path, chromium: str) -> None:
    trail = upstream_layout(tmp_path, PAGE, UPSTREAM_STYLE)
    elsewhere = tmp_path / "elsewhere"  # not the trail's directory, not the app's: the trail's own dir wins
    elsewhere.mkdir()
    done = run_trail(trail, elsewhere, tmp_path / "out")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Results: 1 passed" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_a_relative_path_not_beside_the_trail_is_taken_from_the_working_directory(tmp_path: Path,
                                                                                   chromium: str) -> None:
    site = tmp_path / "work" / "site" / "parts.html"
    site.parent.mkdir(parents=True)
    site.write_text(PAGE)
    trail = tmp_path / "trails" / "parts.trail.yaml"
    trail.parent.mkdir()
    trail.write_text(textwrap.dedent("""
        config:
          id: web/cwd-relative
          devices: {web: PLAYWRIGHT_NATIVE}
        trail:
          - step: Open the parts page
            recording:
              web:
                - web_navigate: {url: site/parts.html}
                - web_verifyTextVisible: {text: nothing opened}
    """))
    done = run_trail(trail, tmp_path / "work", tmp_path / "out")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_selector_without_a_web_part_and_no_ref_still_says_so(tmp_path: Path, web_session: Any) -> None:
    page = tmp_path / "parts.html"
    page.write_text(PAGE)
    web = web_session()
    web.ok("web_navigate", url=page.as_uri())
    message = web.fails("web_click", nodeSelector={"index": 2})
    assert "the selector has no 'web:' match" in message
    message = web.fails("web_click", nodeSelector={"androidAccessibility": {"textRegex": "Open"}})
    assert "'androidAccessibility', which is for another driver" in message
    # next to a ref, the same selectors give way to it (upstream's fallback)
    web.ok("web_click", ref="css=li:nth-child(2) button", nodeSelector={"index": 2})
    web.ok("web_verifyTextVisible", text="cable-a2")
    # a selector that does have a web part is still used first, the ref only when there is none
    web.ok("web_click", ref="css=li:nth-child(2) button", nodeSelector={"web": {"cssSelector": "li:nth-child(1) button"}})
    web.ok("web_verifyTextVisible", text="cable-a")
