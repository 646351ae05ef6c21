"""Tabs and popups, dialogs and downloads on the shop's account pages, in real headless Chromium, through
the real dispatcher (the same path a trail, a live session, the MCP server and the agent take)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from trailblaze.errors import ToolArgumentError

pytestmark = pytest.mark.browser


def test_a_tab_a_link_opens_is_current_when_the_click_returns(web_session: Any) -> None:
    ws = web_session()
    for attempt in range(5):  # a race would show in some of them: the rule must hold every time
        ws.ok("web_navigate", url="/account/help.html")
        ws.ok("web_click", ref='link "Expense policy"')
        assert ws.driver.page.url.endswith("/account/policy.html"), attempt
        snapshot = ws.driver.snapshot()
        assert 'heading "Expense policy"' in snapshot
        assert snapshot.startswith("Tabs (2 open;") and "policy.html  (current)" in snapshot
        closed = ws.ok("web_closeTab")
        assert closed.data["url"].endswith("/account/help.html") and ws.driver.page.url == closed.data["url"]
        assert not ws.driver.snapshot().startswith("Tabs")


def test_a_window_open_popup_is_current_and_closing_it_goes_back(web_session: Any) -> None:
    ws = web_session()
    ws.ok("web_navigate", url="/account/help.html")
    ws.ok("web_click", ref='button "Open support chat"')
    ws.ok("web_type", ref='textbox "Message"', text="Where is my refund?")
    ws.ok("web_click", ref='button "Send"')
    ws.ok("web_verifyTextVisible", text="You: Where is my refund?")
    # The popup is named: a second click reuses the window, and it is current again without waiting.
    ws.ok("web_switchTab", index=0)
    ws.ok("web_verifyTextVisible", text="The chat opened in a new window")
    ws.ok("web_click", ref='button "Open support chat"')
    assert ws.driver.page.url.endswith("/account/chat.html")
    assert len(ws.driver.tabs.open_pages()) == 2
    ws.ok("web_closeTab")
    ws.ok("web_verifyTextVisible", text="The chat opened in a new window")
    # A popup that closes itself hands back to the page that was current before it.
    ws.ok("web_click", ref='button "Open support chat"')
    assert ws.driver.page.url.endswith("/account/chat.html")
    chat = ws.driver.page
    with chat.expect_event("close"):
        ws.ok("web_evaluate", script="setTimeout(() => window.close(), 0), 1")
    ws.ok("web_verifyTextVisible", text="The chat opened in a new window")
    assert ws.driver.page.url.endswith("/account/help.html") and len(ws.driver.tabs.open_pages()) == 1


def test_switch_tab_by_url_title_and_index_and_its_errors(web_session: Any) -> None:
    ws = web_session()
    ws.ok("web_navigate", url="/account/help.html")
    ws.ok("web_click", ref='link "Expense policy"')
    assert ws.ok("web_switchTab", title="Help").data["index"] == 0
    assert ws.driver.page.url.endswith("/help.html")
    assert ws.ok("web_switchTab", url="policy").data["title"].startswith("Expense policy")
    ws.ok("web_verifyTextVisible", text="Taxis are reimbursed up to $40 a ride.")
    message = ws.fails("web_switchTab", index=5)
    assert message.startswith("web_switchTab: there is no tab 5; open tabs: [0] Help")
    assert "policy.html  (current)" in message
    assert "no tab's url contains 'nowhere'" in ws.fails("web_switchTab", url="nowhere")
    assert "2 tabs' title contain 'trailblaze outfitters'" in ws.fails("web_switchTab", title="Trailblaze Outfitters")
    with pytest.raises(ToolArgumentError, match="give exactly one of index, url or title"):
        ws.call("web_switchTab", index=0, url="help")
    ws.ok("web_closeTab")
    assert "only open tab" in ws.fails("web_closeTab")


def test_an_action_that_opens_nothing_waits_for_nothing(web_session: Any) -> None:
    ws = web_session()
    ws.ok("web_navigate", url="/account/help.html")
    tabs = ws.driver.tabs
    with ws.driver.acting(timeout_ms=60_000):  # a wait would be for a page that never comes: a minute
        ws.driver.page.get_by_role("heading", name="Help").click()
    assert tabs._signals == [] and len(tabs.open_pages()) == 1


def test_dialogs_take_the_setting_or_the_one_shot_answer_and_are_checked_and_logged_once(web_session: Any) -> None:
    ws = web_session()
    ws.ok("web_navigate", url="/account/reports.html")
    ws.ok("web_handleDialog", action="dismiss")
    ws.ok("web_click", ref='button "Delete Taxi"')
    ws.ok("web_verifyDialog", message="Delete Taxi?")
    ws.ok("web_verifyTextVisible", text="Kept Taxi")
    ws.ok("web_click", ref='button "Delete Taxi"')  # the setting again: accept
    ws.ok("web_verifyTextVisible", text="Deleted Taxi")
    ws.ok("web_handleDialog", action="ACCEPT", promptText="Hotel (Berlin)")
    ws.ok("web_click", ref='button "Rename Hotel"')
    assert ws.ok("web_verifyDialog", message="New name for Hotel?").data["type"] == "prompt"
    ws.ok("web_verifyTextVisible", text="Renamed Hotel to Hotel (Berlin)")
    message = ws.fails("web_verifyDialog", message="Delete Lunch?")
    assert message == ('web_verifyDialog: expected the dialog to say "Delete Lunch?", but the last prompt said '
                       '"New name for Hotel?"')
    logged = [e for e in ws.session.log.entries if str(e.get("class", "")).endswith("WebDialogLog")]
    assert [(e["type"], e["message"], e["action"]) for e in logged] == [
        ("confirm", "Delete Taxi?", "dismiss"), ("confirm", "Delete Taxi?", "accept"),
        ("prompt", "New name for Hotel?", "accept")]
    assert logged[-1]["promptText"] == "Hotel (Berlin)"


def test_verify_dialog_waits_for_the_next_dialog_and_says_when_none_came(web_session: Any) -> None:
    ws = web_session()
    ws.ok("web_navigate", url="/account/reports.html")
    ws.ok("web_evaluate", script="setTimeout(() => alert('Saved'), 300), 1")
    ws.ok("web_verifyDialog", message="Saved", timeoutMs=5000)
    ws.driver.dialogs.seen.clear()
    assert ws.fails("web_verifyDialog", message="Saved", timeoutMs=200) == (
        'web_verifyDialog: expected a dialog saying "Saved", but no dialog opened in this step or the one before '
        "it, nor within 200 ms")


def test_a_download_is_kept_next_to_the_logs_checked_logged_and_among_the_requests(web_session: Any) -> None:
    ws = web_session()
    ws.ok("web_navigate", url="/account/reports.html")
    ws.ok("web_click", ref='link "Download expenses (CSV)"')
    result = ws.ok("web_verifyDownload", fileName="expenses.csv", contains="2026-11-02,Taxi,Travel,32.00")
    kept = Path(result.data["path"])
    assert kept == ws.session.log_dir / "downloads" / "expenses.csv"
    assert kept.read_text().startswith("date,description,category,amount")
    ws.ok("web_assertNetworkEvent", eventName="files/expenses.csv")
    assert [r.url for r in ws.driver.requests].count(result.data["url"]) == 1
    logged = [e for e in ws.session.log.entries if str(e.get("class", "")).endswith("WebDownloadLog")]
    assert [(e["fileName"], e["download"], e["size"]) for e in logged] == [
        ("expenses.csv", "downloads/expenses.csv", kept.stat().st_size)]
    # A second download of the same name is kept beside the first; the checks say what they found. As in
    # a trail, the click and the verify are steps of their own: a verify checks its step and the one before.
    ws.driver.downloads.step_started()
    ws.ok("web_click", ref='link "Download expenses (CSV)"')
    ws.driver.downloads.step_started()
    assert ws.ok("web_verifyDownload").data["path"].endswith("downloads/expenses-2.csv")
    assert ws.fails("web_verifyDownload", fileName="report.pdf").startswith(
        'web_verifyDownload: expected the download to be named "report.pdf", but it is "expenses.csv"')
    assert ws.fails("web_verifyDownload", contains="Flights").startswith(
        'web_verifyDownload: expected "expenses.csv" to contain "Flights"; it starts with "date,description')
    ws.driver.downloads.seen.clear()
    assert "none started in this step or the one before it, nor within 100 ms" in ws.fails(
        "web_verifyDownload", timeoutMs=100)
