"""The recorder's reading of a person's actions, headless and in process (the headed, end-to-end run is
tests/test_record_command.py): each kind of action becomes the tool call the agent would record, and
steps break where a person's intent does."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trailblaze.recorder import RecordOptions
from trailblaze_driver_web.config import WebDriverConfig
from trailblaze_driver_web.driver import PlaywrightDriver
from trailblaze_driver_web.recorder import Recorder

PAGE = """<!doctype html><title>Form</title>
<label for=size>Size</label><select id=size><option value=s>Small</option><option value=l>Large</option></select>
<label><input type=checkbox> Gift wrap</label>
<label for=doc>Document</label><input id=doc type=file>
<label for=q>Search</label><input id=q>
<p id=plain>Some plain text</p>
<button type=button>Save</button><button type=button>Save</button>
<a href="#next">Next</a>
"""


def record(tmp_path: Path, html: str, act: Callable[[Any, Path], None], actions: int) -> list[Any]:
    """Open ``html`` headless, let ``act(page, tmp_path)`` do what a person would, and return the drafts
    once ``actions`` actions were reported (or 10 s passed)."""
    page_file = tmp_path / "page.html"
    page_file.write_text(html)
    driver = PlaywrightDriver(WebDriverConfig(trace="off"))
    driver.launch()
    try:
        page = driver.page
        page.goto(page_file.as_uri())
        seen: list[str] = []
        recorder = Recorder(driver, RecordOptions(pause_s=3600, on_action=seen.append))
        recorder.attach()
        act(page, tmp_path)
        deadline = time.monotonic() + 10
        while len(seen) < actions and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        return recorder.drafts()
    finally:
        driver.stop()


def test_each_action_becomes_the_call_an_agent_would_record(tmp_path: Path, chromium: str) -> None:
    def act(page: Any, tmp: Path) -> None:
        upload = tmp / "receipt.pdf"
        upload.write_bytes(b"%PDF")
        page.get_by_label("Size").focus()  # a person picks in a <select> with the keyboard (or its popup)
        page.keyboard.press("ArrowDown")
        page.get_by_label("Gift wrap").click()
        page.get_by_label("Document").set_input_files(str(upload))
        page.get_by_text("Some plain text").click()  # plain text: no action
        page.get_by_role("button", name="Save").first.click()  # two of them: role + name and a position
        page.get_by_label("Search").click()
        page.keyboard.type("boots")
        page.keyboard.press("Enter")
        page.get_by_role("link", name="Next").click()

    drafts = record(tmp_path, PAGE, act, 7)
    calls = [(c.name, c.args) for d in drafts for c in d.calls]
    assert calls[0] == ("web_selectOption", {"ref": 'combobox "Size"', "values": ["l"],
                                             "nodeSelector": {"web": {"ariaRole": "combobox", "ariaNameRegex": "Size"}}})
    assert calls[1][0] == "web_click" and calls[1][1]["ref"] == 'checkbox "Gift wrap"'
    assert calls[2][0] == "web_uploadFile" and calls[2][1]["paths"] == ["receipt.pdf"]
    assert calls[3] == ("web_click", {"ref": 'button "Save"', "nodeSelector": {
        "web": {"ariaRole": "button", "ariaNameRegex": "Save", "nthIndex": 0}}})
    assert calls[4] == ("web_type", {"ref": 'textbox "Search"', "text": "boots",
                                     "nodeSelector": {"web": {"ariaRole": "textbox", "ariaNameRegex": "Search"}}})
    assert calls[5] == ("web_pressKey", {"key": "Enter"})
    assert calls[6][0] == "web_click" and calls[6][1]["ref"] == 'link "Next"'
    assert len(calls) == 7, calls  # the click on plain text was not recorded
    # Enter ends a step: the link click after it starts the next one.
    assert [len(d.calls) for d in drafts] == [6, 1], drafts
    assert drafts[0].text.startswith('Choose l in combobox "Size"; click checkbox "Gift wrap"; upload receipt.pdf')


def test_page_text_that_looks_like_a_token_is_recorded_escaped(tmp_path: Path, chromium: str) -> None:
    # Issue 22, MEDIUM 11: a button named "{{shopUrl}}" and typed "{{coupon}}" are text, not tokens;
    # the password stays the {{password}} token.
    html = ("<!doctype html><title>Braces</title><button type=button>{{shopUrl}}</button>"
            "<label for=c>Coupon</label><input id=c><label for=p>Password</label><input id=p type=password>")

    def act(page: Any, tmp: Path) -> None:
        page.get_by_role("button", name="{{shopUrl}}").click()
        page.get_by_label("Coupon").fill("{{coupon}}")
        page.get_by_label("Coupon").press("Enter")
        page.get_by_label("Password").fill("hunter2")
        page.get_by_label("Password").press("Enter")

    calls = {c.name: c.args for d in record(tmp_path, html, act, 5) for c in d.calls}
    assert calls["web_click"]["ref"] == 'button "\\{{shopUrl}}"'
    assert calls["web_type"]["text"] == "\\{{coupon}}"
    assert calls["web_fillSecret"]["value"] == "{{password}}"


def test_the_overlay_names_steps_and_adds_checks_and_is_seen_by_neither_recorder_nor_agent(
        tmp_path: Path, chromium: str) -> None:
    snapshots: list[str] = []

    def act(page: Any, tmp: Path) -> None:
        overlay = page.locator("trailblaze-recorder")  # aria-hidden: CSS finds its controls, roles do not
        # Typing a name into the overlay and pressing Enter names the next step; it is no action.
        overlay.locator("input").click()
        page.keyboard.type("Look for boots")
        page.keyboard.press("Enter")
        overlay.get_by_text("Next step: Look for boots").wait_for()
        page.get_by_label("Search").click()
        page.keyboard.type("boots")
        page.get_by_role("link", name="Next").click()
        # Select text on the page, then "Verify visible" in the overlay: a check of that text.
        page.get_by_text("Some plain text").click(click_count=3)
        overlay.locator("button[name=verify]").click()
        overlay.get_by_text("Check added: Some plain text").wait_for()
        page.evaluate("window.getSelection().removeAllRanges()")
        overlay.locator("button[name=verify]").click()
        overlay.get_by_text("Select text on the page first").wait_for()
        overlay.locator("button[name=name]").click()  # an empty name: nothing
        right = overlay.locator("form").bounding_box()
        overlay.locator("b").click()  # moves to the other corner, uncovering what it hid
        left = overlay.locator("form").bounding_box()
        assert right is not None and left is not None and left["x"] < right["x"]
        # What the agent's snapshots read (the driver's compact one and the upstream-refs one).
        snapshots.append(page.locator("body").aria_snapshot(mode="ai"))
        snapshots.append(page.locator(":root").aria_snapshot())

    drafts = record(tmp_path, PAGE, act, 3)
    for snapshot in snapshots:
        assert "Search" in snapshot, snapshot
        assert "Verify visible" not in snapshot and "Name the next step" not in snapshot and "REC" not in snapshot
    calls = [(c.name, c.args.get("ref"), c.args.get("text")) for d in drafts for c in d.calls]
    assert calls == [("web_type", 'textbox "Search"', "boots"), ("web_click", 'link "Next"', None),
                     ("web_verifyTextVisible", None, "Some plain text")], calls  # nothing from the overlay
    assert drafts[0].text == "Look for boots" and drafts[0].kind == "step"
    assert drafts[-1].kind == "verify"


def test_the_old_hook_name_is_importable_with_a_deprecation_naming_what_replaced_it() -> None:
    import pytest

    with pytest.warns(DeprecationWarning, match="IsolatedChannel.binding"):
        from trailblaze_driver_web.recorder import BINDING
    assert BINDING == "__trailblazeRecord"
