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
