"""Recorded upstream element ids (``ref: e6``) resolve by upstream's numbering, not Playwright's ``aria-ref``.

Upstream numbers the relevant lines of a default-mode ARIA snapshot (``PlaywrightAriaSnapshot.kt``
``buildCompactElementList``) and resolves an id as ``getByRole(descriptor).nth(occurrence)``; a recorded
``nodeSelector`` with a ``web:`` part is OR-ed with it. Here that rule runs on real Chromium against a
page shaped like upstream's duplicate-list sample (equal buttons in several sections), and the checks
are the ones that matter: duplicates pick the recorded occurrence, a ref after one of our snapshots
still means upstream's element, and when the ref and the selector disagree (or nothing matches) the
step fails naming both and nothing is clicked.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import pytest
from trailblaze.tools.base import ToolCall, ToolResult
from trailblaze_driver_web.selectors import ARIA_ROLES
from trailblaze_driver_web.upstream_refs import build_compact_list, parse_line

from .conftest import run_trail, upstream_layout

PARTS = """<!doctype html>
<html><head><title>Spare parts</title></head><body>
<h1>Spare parts</h1>
<nav><a href="#home">Home</a> <a href="#help">Help</a></nav>
<main>
  <h2>Cables</h2>
  <ul>
    <li>USB lead <button onclick="show('cab-1')">Open</button></li>
    <li>USB lead <button onclick="show('cab-2')">Open</button></li>
  </ul>
  <h2>Plugs</h2>
  <ul><li>Euro plug <button onclick="show('plug-1')">Open</button></li></ul>
  <p id="out">none</p>
</main>
<script>function show(id) { document.getElementById('out').textContent = 'opened ' + id; }</script>
</body></html>
"""

SNAPSHOT = """\
- heading "Spare parts" [level=1]
- navigation:
  - link "Home":
    - /url: "#home"
  - link "Help":
    - /url: "#help"
- main:
  - heading "Cables" [level=2]
  - list:
    - listitem:
      - text: USB lead
      - button "Open"
    - listitem:
      - text: USB lead
      - button "Open"
  - heading "Plugs" [level=2]
  - list:
    - listitem:
      - text: Euro plug
      - button "Open"
  - paragraph: none
"""


def test_the_compact_list_numbers_relevant_lines_and_counts_equal_descriptors() -> None:
    compact = build_compact_list(SNAPSHOT)
    assert {k: (v.descriptor, v.nth) for k, v in compact.ids.items()} == {
        "e1": ('heading "Spare parts"', 0), "e2": ('link "Home"', 0), "e3": ('link "Help"', 0),
        "e4": ('heading "Cables"', 0), "e5": ('button "Open"', 0), "e6": ('button "Open"', 1),
        "e7": ('heading "Plugs"', 0), "e8": ('button "Open"', 2), "e9": ('paragraph "none"', 0)}
    # landmarks head the elements they hold; text and url lines get no id
    assert compact.text.splitlines()[:4] == ['[e1] heading "Spare parts"', "navigation:", '  [e2] link "Home"',
                                             '  [e3] link "Help"']
    assert compact.lookup("[e6]") == compact.lookup("e6")
    assert compact.lookup("e10") is None


def test_line_parsing_keeps_bracketed_names_and_treats_unknown_roles_as_generic() -> None:
    assert parse_line('- status "Status [active]" [ref=e3]').name == "Status [active]"
    assert parse_line("- paragraph [ref=e8]: Some text.").name == "Some text."
    assert parse_line("- text: Hello").aria_role == "generic"
    assert not parse_line("- text: Hello").relevant
    assert parse_line("- generic [active] [ref=e2]:").name is None


def test_our_role_list_is_playwrights() -> None:
    from playwright.sync_api import Page

    hints = typing.get_type_hints(Page.get_by_role)
    assert frozenset(typing.get_args(hints["role"])) == ARIA_ROLES



def _replay(web: Any, name: str, **args: Any) -> ToolResult:
    ctx = web.session.context(step_index=1, replaying=True)
    result: ToolResult = web.session.dispatcher.call(ToolCall(name, args), ctx)
    return result


def _on_parts_page(tmp_path: Path, web_session: Any, **settings: Any) -> Any:
    page = tmp_path / "parts.html"
    page.write_text(PARTS)
    web = web_session(**settings)
    web.ok("web_navigate", url=page.as_uri())
    return web


def _out(web: Any) -> str:
    return str(web.driver.page.locator("#out").text_content())


@pytest.mark.browser
def test_duplicates_resolve_to_the_recorded_occurrence(tmp_path: Path, web_session: Any) -> None:
    web = _on_parts_page(tmp_path, web_session)
    # `index: 2` has no web part: upstream builds no locator from it, the ref alone decides
    assert _replay(web, "web_click", ref="e6", nodeSelector={"index": 2}).success
    assert _out(web) == "opened cab-2"
    agreeing = {"web": {"ariaRole": "button", "ariaNameRegex": "Open", "nthIndex": 2}}
    result = _replay(web, "web_click", ref="e8", nodeSelector=agreeing)
    assert result.success, result.message
    assert _out(web) == "opened plug-1"
    assert "agreeing with its nodeSelector" in (result.message or "")


@pytest.mark.browser
def test_a_ref_after_our_snapshot_still_means_upstreams_element(tmp_path: Path, web_session: Any) -> None:
    web = _on_parts_page(tmp_path, web_session)
    web.driver.take_snapshot()  # what our agent reads before it acts
    pw = web.driver.page
    aria_ref_text = pw.locator("aria-ref=e5").evaluate("e => e.outerHTML")
    assert "cab-1" not in aria_ref_text  # the two numberings differ on this page: the test means something
    assert _replay(web, "web_click", ref="e5").success
    assert _out(web) == "opened cab-1"
    # our own agent's refs (not a replay) keep Playwright's numbering from the last snapshot
    button = web.ref_of("button", "Open")
    web.ok("web_click", ref=button)
    assert _out(web) == "opened cab-1"


@pytest.mark.browser
def test_disagreement_or_no_match_fails_naming_both_and_clicks_nothing(tmp_path: Path, web_session: Any) -> None:
    web = _on_parts_page(tmp_path, web_session, timeout_ms=5000)  # 600 ms timed out the page snapshot under load
    other = {"web": {"ariaRole": "button", "ariaNameRegex": "Open", "nthIndex": 2}}
    result = _replay(web, "web_click", ref="e5", nodeSelector=other)
    assert not result.success
    message = result.message or ""
    assert 'ref e5 (button "Open" in upstream\'s element list' in message
    assert '"nthIndex": 2' in message and "pick different elements" in message
    assert _out(web) == "none"
    result = _replay(web, "web_click", ref="e40", nodeSelector={"web": {"cssSelector": "#missing"}})
    assert not result.success
    message = result.message or ""
    assert "ref e40 (not in upstream's element list of this page, which has 9 ids)" in message
    assert "#missing" in message
    assert _out(web) == "none"
    # an id the list lacks is never resolved as a role (upstream's fallback would pick a generic div)
    result = _replay(web, "web_click", ref="e40")
    assert not result.success and _out(web) == "none"


TRAIL = """
config:
  devices:
    web: PLAYWRIGHT_NATIVE
  title: 'Test: open parts by recorded element ids'

trail:
  - step: "Navigate to ../../../examples/sample-app/parts.html"
    recording:
      web:
        - web_navigate:
            url: ../../../examples/sample-app/parts.html
            reasoning: Open the page.
  - step: "Click the second Open button of the cables"
    recording:
      web:
        - web_click:
            ref: e6
            reasoning: The second Open button.
            nodeSelector:
              index: 2
  - step: "Verify cab-2 is shown"
    recording:
      web:
        - web_verifyTextVisible:
            text: opened cab-2
  - step: "Click the Open button of the plugs"
    recording:
      web:
        - web_click:
            ref: e8
            reasoning: The third Open button.
            nodeSelector:
              web:
                ariaRole: button
                ariaNameRegex: Open
                nthIndex: 2
        - web_verifyTextVisible:
            text: opened plug-1
"""


@pytest.mark.browser
def test_an_upstream_shaped_recording_runs_with_exit_0(tmp_path: Path, chromium: str) -> None:
    trail = upstream_layout(tmp_path, PARTS, TRAIL, page="parts.html")
    done = run_trail(trail, tmp_path, tmp_path / "out")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Results: 1 passed" in done.stdout
