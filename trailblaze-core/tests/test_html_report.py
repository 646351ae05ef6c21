"""The run report: one self-contained HTML file built from the session logs (no network to open it)."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from trailblaze.errors import ExitCode
from trailblaze.memory import Redactor
from trailblaze.runner.results import RunResult, StepResult, TrailResult
from trailblaze.session import SessionOutcome

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
LOG = "xyz.block.trailblaze.logs.client.TrailblazeLog."


def _trail(tmp_path: Path) -> TrailResult:
    log_dir = tmp_path / "logs" / "s1"
    log_dir.mkdir(parents=True)
    (log_dir / "step_001_failed.png").write_bytes(PNG)
    entries = [
        {"class": LOG + "ObjectiveStartLog", "stepIndex": 1, "kind": "step", "description": "Log in <as> admin"},
        {"class": LOG + "TrailblazeToolLog", "toolName": "web_click", "successful": True, "depth": 0,
         "trailblazeTool": {"toolName": "web_click", "raw": {"ref": "e3"}}, "durationMs": 12,
         "recordedTrailblazeTool": {"toolName": "web_click", "raw": {"ref": 'button "Log in"'}}},
        {"class": LOG + "TrailblazeToolLog", "toolName": "web_fillSecret", "successful": False, "depth": 0,
         "trailblazeTool": {"toolName": "web_fillSecret", "raw": {"ref": "e4", "value": "***"}}, "durationMs": 5,
         "exceptionMessage": "web_fillSecret: no element matches textbox \"Password\""},
        {"class": LOG + "WebConsoleLog", "type": "error", "text": "boom"},
        {"class": LOG + "TrailblazeSnapshotLog", "screenshot": "step_001_failed.png", "stepIndex": 1,
         "screenName": "step 1 (failed)"},
        {"class": LOG + "ObjectiveCompleteLog", "stepIndex": 1, "successful": False, "mode": "replay",
         "message": "tool 'web_fillSecret' failed"},
        {"class": LOG + "WebTraceLog", "trace": "trace.zip", "path": str(log_dir / "trace.zip")},
    ]
    result = TrailResult(Path("trails/login.trail.yaml"), "Log in", SessionOutcome.FAILED, ExitCode.TRAIL_FAILED,
                         session_id="s1", log_dir=log_dir, message="step 1 \"Log in\": tool failed",
                         driver="playwright-native", classifier="web")
    result.steps.append(StepResult(1, "step", "Log in <as> admin", "replay", False, "failed", number=1))
    result.log_entries = entries
    result.completed_at = result.started_at + 1.5
    return result


def test_report_is_self_contained_and_shows_trails_steps_tools_screenshots_and_errors(tmp_path: Path) -> None:
    from trailblaze.report import write_html_report

    skipped = TrailResult(Path("trails/mobile.trail.yaml"), "Mobile only", SessionOutcome.SKIPPED, ExitCode.SUCCESS,
                          skip_reason="web: not on the web")
    run = RunResult(Redactor(), trails=[_trail(tmp_path), skipped])
    path = write_html_report(run, tmp_path / "reports" / "report.html")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>")
    assert "0 passed, 1 failed, 1 skipped" in text
    assert "Log in &lt;as&gt; admin" in text and "<as>" not in text  # escaped
    assert "web_click" in text and "recorded as:" in text and r"button \&quot;Log in\&quot;" in text
    assert "no element matches textbox &quot;Password&quot;" in text
    assert "data:image/png;base64," + base64.b64encode(PNG).decode() in text
    assert "console: [error] boom" in text
    assert "playwright show-trace" in text and "Skipped: web: not on the web" in text
    # Nothing is fetched when the file is opened: no external scripts, styles, images or fonts.
    assert not re.search(r"""(src|href)=['"]?(https?:)?//""", text)
    assert not re.search(r"<script[^>]* src=", text)  # the script is inline too


def test_failures_come_first_and_each_screenshot_is_embedded_once(tmp_path: Path) -> None:
    from trailblaze.report import render_report

    passed = TrailResult(Path("trails/ok.trail.yaml"), "All good", SessionOutcome.SUCCEEDED, ExitCode.SUCCESS)
    failed = _trail(tmp_path)
    # the same picture twice (an unchanged screen after two steps): stored once, shown twice
    failed.log_entries.insert(4, dict(failed.log_entries[4], screenName="again"))
    text = render_report(RunResult(Redactor(), trails=[passed, failed]), base=tmp_path / "logs" / "reports")
    assert text.index(">Log in<span class=dur>1.50 s</span></summary>") < text.index(">All good</summary>")
    assert re.search(r"<details class=trail data-status=failed [^>]*open>", text)
    assert text.count(base64.b64encode(PNG).decode()) == 1
    assert text.count("<img class=thumb") == 2
    assert "logs: <a href='../s1'>" in text  # relative: works when logs/ is moved or attached whole
    assert "playwright show-trace ../s1/trace.zip</code> (from the report's folder)" in text  # no runner's paths
    assert str(tmp_path) not in text
    assert "run time 1.50 s" in text


def test_setup_calls_sit_under_a_setup_heading_and_evidence_is_tables_not_json(tmp_path: Path) -> None:
    from trailblaze.report.html import render_report

    log_dir = tmp_path / "logs" / "s2"
    (log_dir / "downloads").mkdir(parents=True)
    (log_dir / "downloads" / "expenses.csv").write_text("date,description\n")
    (log_dir / "network.ndjson").write_text(
        '{"ts": "t", "method": "GET", "url": "http://shop/account/reports.html", "status": 200, "durationMs": 3.5}\n'
        '{"ts": "t", "method": "GET", "url": "http://shop/api/missing", "status": 404, "durationMs": 1.0}\n'
        '{"ts": "t", "method": "GET", "url": "http://shop/account/files/expenses.csv", "resourceType": "download",'
        ' "download": "expenses.csv"}\n')
    (log_dir / "console.ndjson").write_text('{"ts": "t", "type": "error", "text": "boom <b>", "url": null}\n')

    def tool(name: str, raw: dict[str, object]) -> dict[str, object]:
        return {"class": LOG + "TrailblazeToolLog", "toolName": name, "successful": True, "depth": 0,
                "trailblazeTool": {"toolName": name, "raw": raw}, "durationMs": 3}

    entries = [
        {"class": LOG + "SetupStartLog", "setup": ["sign-in.trail.yaml"]},
        tool("web_navigate", {"url": "/"}),
        tool("web_click", {"ref": 'button "Sign in"'}),
        {"class": LOG + "SetupCompleteLog", "successful": True, "steps": 1},
        {"class": LOG + "ObjectiveStartLog", "stepIndex": 0, "kind": "step", "description": "Delete the taxi"},
        tool("web_click", {"ref": 'button "Delete Taxi"'}),
        {"class": LOG + "WebDialogLog", "type": "confirm", "message": "Delete Taxi?", "action": "accept"},
        {"class": LOG + "WebDownloadLog", "fileName": "expenses.csv", "url": "http://shop/account/files/expenses.csv",
         "download": "downloads/expenses.csv", "size": 17},
        {"class": LOG + "ObjectiveCompleteLog", "stepIndex": 0, "successful": True, "mode": "replay"},
        {"class": LOG + "WebEvidenceLog", "evidence": {"network_log": "network.ndjson", "console_log": "console.ndjson"},
         "requests": 3, "failedRequests": 1, "consoleErrors": 1},
    ]
    result = TrailResult(Path("trails/reports.trail.yaml"), "Reports", SessionOutcome.SUCCEEDED, ExitCode.SUCCESS,
                         session_id="s2", log_dir=log_dir, driver="playwright-native", classifier="web")
    result.steps.append(StepResult(0, "step", "Delete the taxi", "replay", True, "ok", number=1))
    result.log_entries = entries
    html = render_report(RunResult(Redactor(), trails=[result]), base=tmp_path)
    setup = html.index("<b>setup</b>: sign-in.trail.yaml")
    step = html.index("<b>step 1</b>: Delete the taxi")
    assert setup < html.index("web_navigate") < html.index('button \\&quot;Sign in\\&quot;') < step
    assert html.count("web_navigate") == 1  # under the setup heading only, not again at the end
    assert "evidence: {" not in html and '"network_log"' not in html
    assert "evidence: 3 requests · 1 failed · 1 console errors · 1 downloads · 1 dialogs" in html
    assert "<tr class=bad><td>GET</td><td>http://shop/api/missing</td><td>404</td>" in html
    assert "<td>boom &lt;b&gt;</td>" in html
    assert "<a href='logs/s2/downloads/expenses.csv'>expenses.csv</a>" in html
    assert html.index("<a href='logs/s2/downloads/expenses.csv'>") < html.index("<details class=evidence>")  # the step's
    assert "confirm: Delete Taxi? (accept)" in html and "<td>confirm</td><td>Delete Taxi?</td><td>accept</td>" in html
