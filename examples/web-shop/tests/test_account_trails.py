"""The account area's tabs, downloads and dialogs: the example trails run green, keep what they should, and
the same checks written with Playwright's own API pass on the same pages (side by side)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from trailblaze.logs import read_log
from trailblaze.testing import run_cli

EXAMPLE = Path(__file__).resolve().parents[1]
TRAILS = EXAMPLE / "trails"
ACCOUNT = ["account-tabs", "account-downloads", "account-dialogs"]

pytestmark = pytest.mark.browser


def _session(logs: Path, title: str) -> Path:
    (found,) = [p for p in logs.iterdir() if p.name != "reports" and title in p.name]
    return found


def test_the_account_trails_pass_keep_the_download_and_report_the_evidence(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    result = run_cli(["run", *(str(TRAILS / f"{name}.trail.yaml") for name in ACCOUNT), "--output-dir", str(logs),
                      "-o", "evidence=on"])
    assert result.exit_code == 0, result.output
    assert "Results: 3 passed, 0 failed, 0 skipped" in result.output
    # The download is kept under the run's output directory and logged once, in the step running when the
    # browser reported it: the click's step, or (on a loaded machine, the browser reporting it after the
    # click returned) the verify step, before that step completes.
    session = _session(logs, "download_the_expenses")
    kept = session / "downloads" / "expenses.csv"
    assert kept.read_text(encoding="utf-8") == (EXAMPLE / "app" / "account" / "files" / "expenses.csv").read_text()
    entries = list(read_log(session))
    steps = [str(e["class"]).rsplit(".", 1)[-1] for e in entries
             if str(e.get("class", "")).endswith(("ObjectiveStartLog", "ObjectiveCompleteLog", "WebDownloadLog"))]
    assert steps.count("WebDownloadLog") == 1
    assert steps in (
        ["ObjectiveStartLog", "WebDownloadLog", "ObjectiveCompleteLog", "ObjectiveStartLog", "ObjectiveCompleteLog"],
        ["ObjectiveStartLog", "ObjectiveCompleteLog", "ObjectiveStartLog", "WebDownloadLog", "ObjectiveCompleteLog"])
    network = [json.loads(line) for line in (session / "network.ndjson").read_text().splitlines()]
    assert [e["resourceType"] for e in network if e["url"].endswith("/files/expenses.csv")] == ["download"]
    # Each dialog is logged once, with the answer it got.
    dialogs = [(e["type"], e["message"], e["action"]) for e in read_log(_session(logs, "confirm_and_prompt"))
               if str(e.get("class", "")).endswith("WebDialogLog")]
    assert dialogs == [("confirm", "Delete Taxi?", "dismiss"), ("prompt", "New name for Hotel?", "accept"),
                       ("confirm", "Delete Taxi?", "accept")]
    # The report renders the evidence, links the kept file and lists the dialogs.
    report = Path(re.search(r"^Report: (.+)$", result.output, re.MULTILINE).group(1))  # type: ignore[union-attr]
    html = report.read_text(encoding="utf-8")
    assert "evidence: {" not in html
    assert "1 downloads · 0 dialogs" in html and "0 downloads · 3 dialogs" in html
    assert re.search(r"<a href='\.\./[^']*download_the_expenses[^']*/downloads/expenses\.csv'>expenses\.csv</a>", html)
    assert "<td>prompt</td><td>New name for Hotel?</td><td>accept with &quot;Hotel Berlin&quot;</td>" in html


def test_the_same_checks_written_with_playwright_pass_on_the_same_pages(tmp_path: Path) -> None:
    """What the three trails check, in Playwright's API: the new tab, the popup, the download's name and
    content, the dialogs' messages. Both must hold on the same pages, or one of them tests the wrong thing."""
    from playwright.sync_api import expect, sync_playwright
    from trailblaze_driver_web.browser import find_chromium
    from trailblaze_driver_web.config import WebDriverConfig
    from trailblaze_example_web_shop.plugin import load_server_module

    server = load_server_module(EXAMPLE).ShopServer("127.0.0.1", port=0)
    url = server.start()
    choice = find_chromium(WebDriverConfig())
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(**({"executable_path": choice.path} if choice.path else {}))
            page = browser.new_context().new_page()
            # account-tabs
            page.goto(url + "/account/help.html")
            with page.expect_popup() as tab:
                page.get_by_role("link", name="Expense policy").click()
            policy = tab.value
            expect(policy.get_by_role("heading", name="Expense policy")).to_be_visible()
            expect(policy.get_by_text("Taxis are reimbursed up to $40 a ride.")).to_be_visible()
            policy.close()
            with page.expect_popup() as popup:
                page.get_by_role("button", name="Open support chat").click()
            chat = popup.value
            chat.get_by_role("textbox", name="Message").fill("Where is my refund?")
            chat.get_by_role("button", name="Send").click()
            expect(chat.get_by_role("list", name="Messages").get_by_role("listitem")).to_have_text(
                ["You: Where is my refund?", "Agent: Thanks, we will answer within a day."])
            page.bring_to_front()
            expect(page.get_by_text("The chat opened in a new window")).to_be_visible()
            # account-downloads
            page.goto(url + "/account/reports.html")
            with page.expect_download() as download_info:
                page.get_by_role("link", name="Download expenses (CSV)").click()
            download = download_info.value
            assert download.suggested_filename == "expenses.csv"
            saved = tmp_path / download.suggested_filename
            download.save_as(saved)
            assert "2026-11-02,Taxi,Travel,32.00" in saved.read_text()
            # account-dialogs
            messages: list[str] = []
            answers: list[Any] = [lambda d: d.dismiss(), lambda d: d.accept("Hotel Berlin"), lambda d: d.accept()]

            def on_dialog(dialog: Any) -> None:
                messages.append(dialog.message)
                answers.pop(0)(dialog)

            page.on("dialog", on_dialog)
            page.get_by_role("button", name="Delete Taxi").click()
            expect(page.get_by_text("Kept Taxi")).to_be_visible()
            page.get_by_role("button", name="Rename Hotel").click()
            expect(page.get_by_role("button", name="Delete Hotel Berlin")).to_be_visible()
            page.get_by_role("button", name="Delete Taxi").click()
            expect(page.get_by_text("Deleted Taxi")).to_be_visible()
            assert messages == ["Delete Taxi?", "New name for Hotel?", "Delete Taxi?"]
            browser.close()
    finally:
        server.stop()
