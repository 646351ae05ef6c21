"""The HTML run report in a real Chromium: failures first and open, filter by status, search by trail and
step text, a failed step's error, and a screenshot thumbnail that opens full size."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from trailblaze.errors import ExitCode
from trailblaze.memory import Redactor
from trailblaze.report import write_html_report
from trailblaze.runner.results import RunResult, StepResult, TrailResult
from trailblaze.session import SessionOutcome

LOG = "xyz.block.trailblaze.logs.client.TrailblazeLog."


@pytest.fixture
def page(chromium: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=None if chromium == "playwright" else chromium, headless=True)
        try:
            yield browser.new_page(viewport={"width": 1200, "height": 900})
        finally:
            browser.close()


def _steps(*texts: str, failed_at: int | None = None, shot: str | None = None) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for i, text in enumerate(texts, 1):
        ok = i != failed_at
        entries.append({"class": LOG + "ObjectiveStartLog", "stepIndex": i, "kind": "step", "description": text})
        entries.append({"class": LOG + "TrailblazeToolLog", "toolName": "web_click", "successful": ok, "depth": 0,
                        "trailblazeTool": {"toolName": "web_click", "raw": {"ref": f"e{i}"}}, "durationMs": 7,
                        **({} if ok else {"exceptionMessage": "no element matches button \"Pay now\""})})
        if shot is not None and i == (failed_at or 1):
            entries.append({"class": LOG + "TrailblazeSnapshotLog", "screenshot": shot, "stepIndex": i,
                            "screenName": f"after step {i}"})
        entries.append({"class": LOG + "ObjectiveCompleteLog", "stepIndex": i, "successful": ok, "mode": "replay",
                        "message": None if ok else "tool 'web_click' failed: no element matches button \"Pay now\""})
    return entries


def _result(tmp: Path, title: str, outcome: SessionOutcome, texts: tuple[str, ...], *, failed_at: int | None = None,
            shot: bytes | None = None) -> TrailResult:
    log_dir = tmp / "logs" / title.replace(" ", "_")
    log_dir.mkdir(parents=True)
    if shot is not None:
        (log_dir / "step.png").write_bytes(shot)
    code = ExitCode.SUCCESS if outcome is not SessionOutcome.FAILED else ExitCode.TRAIL_FAILED
    result = TrailResult(Path(f"trails/{title.replace(' ', '-')}.trail.yaml"), title, outcome, code, session_id=title,
                         log_dir=log_dir, driver="playwright-native", classifier="web",
                         message="step 2 failed" if failed_at else None)
    result.started_at = time.time() - 3
    result.completed_at = result.started_at + 2.25
    result.steps = [StepResult(i, "step", t, "replay", i != failed_at, duration_ms=100 * i, number=i)
                    for i, t in enumerate(texts, 1)]
    result.log_entries = _steps(*texts, failed_at=failed_at, shot="step.png" if shot is not None else None)
    return result


def test_the_report_in_a_browser(page: Any, tmp_path: Path) -> None:
    page.set_content("<body style='margin:0;background:#0a7'><h1>checkout screen</h1></body>")
    page.set_viewport_size({"width": 800, "height": 600})
    shot = page.screenshot(type="png")
    page.set_viewport_size({"width": 1200, "height": 900})
    run = RunResult(Redactor(), trails=[
        _result(tmp_path, "Sign in", SessionOutcome.SUCCEEDED, ("Open the sign-in page", "Sign in as hiker")),
        _result(tmp_path, "Search and sort", SessionOutcome.SUCCEEDED, ("Search for mugs", "Sort by price")),
        _result(tmp_path, "Checkout", SessionOutcome.FAILED, ("Open the cart", "Pay with the saved card"),
                failed_at=2, shot=shot),
        TrailResult(Path("trails/phone.trail.yaml"), "Phone only", SessionOutcome.SKIPPED, ExitCode.SUCCESS,
                    skip_reason="web: no phone here"),
    ])
    report = write_html_report(run, tmp_path / "logs" / "reports" / "report.html")
    page.goto(report.as_uri())

    trails = page.locator("details.trail")
    visible = page.locator("details.trail:not(.hidden) > summary")

    def shown() -> list[str]:
        return [text.split("\n")[0] for text in visible.all_inner_texts()]

    # failures first, and open on the failure: the failed step is expanded with its error
    assert trails.first.get_attribute("data-status") == "failed"
    assert trails.first.evaluate("d => d.open") is True
    failed_step = trails.first.locator("details.step").nth(1)
    assert failed_step.evaluate("d => d.open") is True
    assert failed_step.locator(".error").inner_text().startswith("tool 'web_click' failed")
    assert trails.nth(1).evaluate("d => d.open") is False
    # expanding a passing trail shows its steps with their durations
    trails.nth(1).locator("summary").first.click()
    assert trails.nth(1).locator("details.step").first.is_visible()
    assert "100 ms" in trails.nth(1).locator("details.step > summary").first.inner_text()

    # filter by status
    page.get_by_role("button", name="Passed 2").click()
    assert shown() == ["PASSEDSign in", "PASSEDSearch and sort"]
    page.get_by_role("button", name="Skipped 1").click()
    assert shown() == ["SKIPPEDPhone only"]
    page.get_by_role("button", name="All 4").click()
    assert visible.count() == 4

    # search by step text: the trail is shown and opened, the step highlighted
    page.get_by_placeholder("Search trails and steps").fill("sort by")
    assert shown() == ["PASSEDSearch and sort"]
    hit = page.locator("details.step.hit")
    assert hit.count() == 1 and "Sort by price" in hit.inner_text() and hit.is_visible()
    page.get_by_placeholder("Search trails and steps").fill("nothing like this")
    assert visible.count() == 0 and page.locator("#none").is_visible()
    page.get_by_placeholder("Search trails and steps").fill("")
    assert visible.count() == 4

    # the failed step's screenshot: a thumbnail that opens full size, and closes again
    thumb = failed_step.locator("img.thumb")
    assert thumb.evaluate("i => i.complete && i.naturalWidth") == 800
    assert thumb.bounding_box()["width"] < 300
    thumb.click()
    big = page.locator("#overlay img")
    assert big.is_visible() and big.evaluate("i => i.naturalWidth") == 800
    assert big.bounding_box()["width"] > 700
    page.keyboard.press("Escape")
    assert not big.is_visible()
