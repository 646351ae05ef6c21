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
        page.get_by_label("Size").select_option("l")
        page.get_by_label("Gift wrap").click()
        page.get_by_label("Document").set_input_files(str(upload))
        page.get_by_text("Some plain text").click()  # plain text: no action
        page.get_by_role("button", name="Save").first.click()  # two of them: not by role + name
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
    assert calls[3][0] == "web_click" and calls[3][1]["ref"].startswith("css=") and "button" in calls[3][1]["ref"]
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
