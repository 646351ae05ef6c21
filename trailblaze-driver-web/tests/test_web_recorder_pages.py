"""The recorder over what real apps have, and as a trust boundary, in process on a real headless Chromium
(the headed, end-to-end runs are tests/test_record_command.py). The person's actions are real input
events (Playwright's mouse and keyboard: trusted, as a person's are); the pages are
``recorder_pages/`` served on two loopback origins.

* frames (same-origin, cross-origin, nested), an open shadow root and a ``<label>``-wrapped ``<select>``:
  each recorded descriptor is the one ``trailblaze snapshot`` shows for that very element;
* a closed shadow root and a canvas: one warning each, and a note the saved trail carries as a comment;
* passwords: revealed by a toggle, masked by CSS, marked by ``autocomplete`` — never their value;
* a page that looks for the recorder's hook, calls what it finds and fakes the person's events: nothing;
* a flood of events: bounded per second, with a warning.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from trailblaze.recorder import RecordOptions
from trailblaze_driver_web.config import WebDriverConfig
from trailblaze_driver_web.driver import PlaywrightDriver
from trailblaze_driver_web.recorder import Recorder
from trailblaze_driver_web.tabs import BINDING as TABS_BINDING

sys.path.insert(0, str(Path(__file__).parent / "recorder_pages"))
from serve_recorder_pages import serve_pages  # noqa: E402

SECRET = "hunter2-Zq9"


@pytest.fixture(scope="module")
def pages() -> Iterator[tuple[str, str]]:
    with serve_pages() as origins:
        yield origins


@contextmanager
def recording(url: str, **options: Any) -> Iterator[tuple[PlaywrightDriver, Any, Recorder]]:
    driver = PlaywrightDriver(WebDriverConfig(trace="off"))
    driver.launch()
    try:
        page = driver.page
        page.goto(url)
        page.wait_for_load_state("load")
        recorder = Recorder(driver, RecordOptions(pause_s=3600, **options))
        recorder.attach()
        yield driver, page, recorder
    finally:
        driver.stop()


def settle(page: Any, done: Callable[[], bool], timeout_s: float = 20) -> None:
    """Pump Playwright until ``done()`` (the recorder handles reports while Playwright waits)."""
    deadline = time.monotonic() + timeout_s
    while not done() and time.monotonic() < deadline:
        page.wait_for_timeout(50)


def calls_of(recorder: Recorder) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, dict(c.args)) for d in recorder.drafts() for c in d.calls]


def same_element(a: Any, b: Any) -> bool:
    handle = b.element_handle(timeout=5000)
    try:
        return bool(a.evaluate("(x, y) => x === y", handle))
    finally:
        handle.dispose()


def test_frames_shadow_dom_and_a_labelled_select_are_recorded_as_the_snapshot_names_them(
        pages: tuple[str, str], chromium: str) -> None:
    app, partner = pages
    with recording(f"{app}/expense.html") as (driver, page, recorder):
        approval = page.frame_locator('iframe[title="Approval frame"]')
        comment = approval.frame_locator('iframe[title="Comment frame"]')
        partner_frame = page.frame_locator('iframe[title="Partner frame"]')
        partner_frame.get_by_role("button", name="Confirm partner").wait_for()
        acted = {
            'combobox "Category"': page.locator("select"),
            'button "Rate 4 stars"': page.locator("star-rating").get_by_role("button"),
            'textbox "Approval note"': approval.locator("#note"),
            'button "Approve"': approval.get_by_role("button", name="Approve"),
            'button "Add comment"': comment.get_by_role("button"),
            'button "Confirm partner"': partner_frame.get_by_role("button"),
        }
        page.locator("select").focus()  # a person picks in a <select> with the keyboard (or its popup)
        page.keyboard.press("ArrowDown")
        acted['button "Rate 4 stars"'].click()
        page.get_by_text("Rated 4 stars").wait_for()
        page.locator("closed-widget").click()  # inside a closed shadow root: cannot be recorded
        page.locator("#chart").click(position={"x": 30, "y": 20})  # pixels: cannot be recorded
        acted['textbox "Approval note"'].click()
        page.keyboard.type("Airport run")
        acted['button "Approve"'].click()
        approval.get_by_text("Approved").wait_for()
        acted['button "Add comment"'].click()
        acted['button "Confirm partner"'].click()
        partner_frame.get_by_text("Partner confirmed").wait_for()
        settle(page, lambda: len(calls_of(recorder)) >= 6 and len(recorder.warnings) >= 2)

        calls = calls_of(recorder)
        assert [(name, args.get("ref"), args.get("frame")) for name, args in calls] == [
            ("web_selectOption", 'combobox "Category"', None),
            ("web_click", 'button "Rate 4 stars"', None),
            ("web_type", 'textbox "Approval note"', 'iframe "Approval frame"'),
            ("web_click", 'button "Approve"', 'iframe "Approval frame"'),
            ("web_click", 'button "Add comment"', 'iframe "Comment frame"'),
            ("web_click", 'button "Confirm partner"', 'iframe "Partner frame"'),
        ], calls
        assert calls[0][1]["values"] == ["Meals"] and calls[2][1]["text"] == "Airport run"
        assert calls[0][1]["nodeSelector"] == {"web": {"ariaRole": "combobox", "ariaNameRegex": "Category"}}
        # Each descriptor is what the snapshot prints for that very element (resolved by its snapshot ref).
        snap = driver.take_snapshot()
        for descriptor, element in acted.items():
            refs = [n.ref for n in snap.nodes() if n.ref and n.descriptor() == descriptor]
            assert refs, (descriptor, snap.render())
            assert any(same_element(page.locator(f"aria-ref={ref}"), element) for ref in refs), (descriptor, refs)
        assert 'combobox "Category"' in driver.snapshot()

        assert len(recorder.warnings) == 2, recorder.warnings
        closed, canvas = recorder.warnings
        assert "closed shadow root of <closed-widget>" in closed, closed
        assert "<canvas> (#chart)" in canvas, canvas
        notes = [note for d in recorder.drafts() for note in d.notes]
        assert len(notes) == 2 and all(n.startswith("trailblaze record could not record") for n in notes), notes


def test_a_password_is_a_secret_once_it_was_one_revealed_css_masked_or_by_autocomplete(
        pages: tuple[str, str], chromium: str) -> None:
    app, _ = pages
    with recording(f"{app}/passwords.html") as (_driver, page, recorder):
        page.get_by_role("button", name="Show password").click()  # revealed before anything is typed
        page.get_by_label("Password").click()
        page.keyboard.type(SECRET[:4])
        page.get_by_role("button", name="Show password").click()  # hidden, then revealed again
        page.get_by_role("button", name="Show password").click()
        page.get_by_label("Password").click()
        page.keyboard.type(SECRET[4:])
        page.keyboard.press("Tab")
        page.get_by_role("button", name="Reveal PIN").click()  # CSS mask removed before typing
        page.get_by_label("PIN").click()
        page.keyboard.type("4711")
        page.keyboard.press("Tab")
        page.get_by_label("Current passphrase").click()  # type=text, autocomplete=current-password
        page.keyboard.type("correct horse")
        page.keyboard.press("Tab")
        page.get_by_label("User name").click()
        page.keyboard.type("hiker")
        page.keyboard.press("Enter")
        settle(page, lambda: any(name == "web_type" for name, _ in calls_of(recorder)))

    calls = calls_of(recorder)
    text = repr(calls) + repr(recorder.drafts()) + repr(recorder.warnings)
    for typed in (SECRET, SECRET[:4], SECRET[4:], "4711", "correct horse"):
        assert typed not in text, (typed, text)
    secrets = [args["ref"] for name, args in calls if name == "web_fillSecret"]
    assert secrets == ['textbox "Password"', 'textbox "PIN"', 'textbox "Current passphrase"'], calls
    assert all(args["value"] == "{{password}}" for name, args in calls if name == "web_fillSecret")
    assert ("web_type", {"ref": 'textbox "User name"', "text": "hiker",
                         "nodeSelector": {"web": {"ariaRole": "textbox", "ariaNameRegex": "User name"}}}) in calls


def test_a_page_can_neither_reach_the_hook_nor_fake_the_persons_events(pages: tuple[str, str], chromium: str) -> None:
    app, _ = pages
    with recording(f"{app}/forge.html") as (_driver, page, recorder):
        page.reload()  # the page's script now runs with the recorder in place from the start
        page.get_by_text("hooks found:").wait_for()
        found = page.locator("#found").inner_text()
        page.wait_for_timeout(1500)  # the page keeps forging (every 20 ms) meanwhile
        page.get_by_label("Send to").click()  # the person's own action is still recorded
        page.keyboard.type("me@example.com")
        page.keyboard.press("Enter")
        settle(page, lambda: len(calls_of(recorder)) >= 2)
    # The one page-world binding is the tab tracker's (``tabs.BINDING``): it only tells the driver that a
    # window is opening, and the page calling it with forged data records nothing (the calls below).
    reached = [name for name in found.removeprefix("hooks found: ").split(",") if name not in ("none", TABS_BINDING)]
    assert reached == [], found
    calls = calls_of(recorder)
    assert [name for name, _ in calls] == ["web_type", "web_pressKey"], calls
    assert calls[0][1]["text"] == "me@example.com"
    assert "attacker" not in repr(calls).lower() and "Buy everything" not in repr(calls)
    assert recorder.warnings == [], recorder.warnings


def test_a_flood_of_events_is_bounded_per_second_with_a_warning(pages: tuple[str, str], chromium: str) -> None:
    app, _ = pages
    with recording(f"{app}/passwords.html", max_events_per_s=3) as (_driver, page, recorder):
        button = page.get_by_role("button", name="Show password").bounding_box()
        assert button is not None
        for _ in range(30):
            page.mouse.click(button["x"] + 5, button["y"] + 5)
        settle(page, lambda: len(recorder.warnings) >= 1)
        page.wait_for_timeout(200)
    clicks = [args for name, args in calls_of(recorder) if name == "web_click"]
    assert 3 <= len(clicks) < 30, len(clicks)
    assert any("events in one second" in w for w in recorder.warnings), recorder.warnings


def test_new_tabs_and_popups_are_recorded_with_the_same_protections(pages: tuple[str, str], chromium: str) -> None:
    """A ``target=_blank`` tab on a page that forges events and calls whatever hook it finds, and a
    ``window.open`` popup with a password field revealed before typing: the person's actions in each are
    recorded (after a ``web_switchTab`` into the tab), the forged ones are not, the password is a secret,
    and closing the tab is ``web_closeTab``."""
    app, _ = pages
    with recording(f"{app}/tabs.html") as (_driver, page, recorder):
        with page.context.expect_page() as opened:
            page.get_by_role("link", name="Open the forge").click()
        forge = opened.value
        forge.get_by_text("hooks found:").wait_for()
        forge.wait_for_timeout(500)  # the page forges (every 20 ms) meanwhile
        forge.get_by_label("Send to").click()
        forge.keyboard.type("me@example.com")
        forge.keyboard.press("Tab")
        settle(page, lambda: any(name == "web_type" for name, _ in calls_of(recorder)))
        forge.close()
        settle(page, lambda: any(name == "web_closeTab" for name, _ in calls_of(recorder)))
        with page.context.expect_page() as popup:
            page.get_by_role("button", name="Sign in").click()
        signin = popup.value
        signin.get_by_role("button", name="Show password").wait_for()
        signin.get_by_role("button", name="Show password").click()  # revealed before anything is typed
        signin.get_by_label("Password").click()
        signin.keyboard.type(SECRET)
        signin.keyboard.press("Tab")
        settle(page, lambda: any(name == "web_fillSecret" for name, _ in calls_of(recorder)))
        calls = calls_of(recorder)  # before the browser closes the popup with the recording
    assert SECRET not in repr(calls) + repr(recorder.drafts())
    assert "attacker" not in repr(calls).lower() and "Buy everything" not in repr(calls)
    assert [(name, args.get("ref", args.get("index"))) for name, args in calls] == [
        ("web_click", 'link "Open the forge"'), ("web_switchTab", 1), ("web_type", 'textbox "Send to"'),
        ("web_closeTab", None), ("web_click", 'button "Sign in"'), ("web_switchTab", 1),
        ("web_click", 'button "Show password"'), ("web_fillSecret", 'textbox "Password"'),
    ], calls
    assert recorder.warnings == [], recorder.warnings
