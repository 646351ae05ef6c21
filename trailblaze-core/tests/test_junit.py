"""``trailblaze run --junit-xml``: the JUnit file CI servers read, checked with junitparser."""

from __future__ import annotations

from pathlib import Path

from junitparser import Error, Failure, JUnitXml, Skipped
from trailblaze.errors import ExitCode
from trailblaze.memory import Redactor
from trailblaze.report.junit import write_junit_xml
from trailblaze.runner.results import RunResult, TrailResult
from trailblaze.session import SessionOutcome


def _trail(name: str, outcome: SessionOutcome, code: ExitCode, tmp: Path, **kw: object) -> TrailResult:
    return TrailResult(tmp / f"{name}.trail.yaml", f"Shop: {name}", outcome, code, started_at=100.0,
                       completed_at=101.5, trail_id=f"shop/{name}", classifier="web", driver="playwright-native",
                       root=tmp.parent, **kw)  # type: ignore[arg-type]


def test_one_suite_a_case_per_trail_with_failures_errors_skips_and_log_paths(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs" / "s1"
    run = RunResult(trails=[
        _trail("ok", SessionOutcome.SUCCEEDED, ExitCode.SUCCESS, tmp_path, session_id="s0", log_dir=tmp_path / "s0"),
        _trail("broken", SessionOutcome.FAILED, ExitCode.TRAIL_FAILED, tmp_path, session_id="s1", log_dir=log_dir,
               failure_kind="ToolFailure", message="step 2 \"Pay\": tool 'web_type' (x.trail.yaml:9:11) typed "
               "hunter2 into textbox \"Card\" failed",
               log_entries=[{"screenshot": "step_002_failed.png"}, {"trace": "trace.zip", "path": str(log_dir / "trace.zip")}]),
        _trail("no-browser", SessionOutcome.ERROR, ExitCode.INFRASTRUCTURE, tmp_path, message="Chromium failed to launch"),
        _trail("pending", SessionOutcome.SKIPPED, ExitCode.SUCCESS, tmp_path, skip_reason="no menu yet"),
    ], redactor=Redactor(["hunter2"]))  # what the runner passes: its one redaction point
    path = write_junit_xml(run, tmp_path / "out" / "junit.xml")
    xml = JUnitXml.fromfile(str(path))
    suites = list(xml)
    assert len(suites) == 1
    suite = suites[0]
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (4, 1, 1, 1)
    cases = {case.name: case for case in suite}
    assert set(cases) == {"Shop: ok [web]", "Shop: broken [web]", "Shop: no-browser [web]", "Shop: pending [web]"}
    assert cases["Shop: ok [web]"].is_passed and cases["Shop: ok [web]"].classname == f"{tmp_path.name}.ok.trail.yaml"
    assert cases["Shop: ok [web]"].time == 1.5
    failure = cases["Shop: broken [web]"].result[0]
    assert isinstance(failure, Failure) and failure.type == "ToolFailure"
    assert "x.trail.yaml:9:11" in failure.message and "hunter2" not in failure.message and "***" in failure.message
    assert "hunter2" not in path.read_text(encoding="utf-8")
    out = cases["Shop: broken [web]"].system_out or ""
    assert f"log_dir: {log_dir}" in out and f"screenshot: {log_dir / 'step_002_failed.png'}" in out
    assert f"trace: {log_dir / 'trace.zip'}" in out
    assert isinstance(cases["Shop: no-browser [web]"].result[0], Error)
    skipped = cases["Shop: pending [web]"].result[0]
    assert isinstance(skipped, Skipped) and skipped.message == "no menu yet"
