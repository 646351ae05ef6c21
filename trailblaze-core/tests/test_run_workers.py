"""``trailblaze run -n N`` and ``pytest --trails … -n N``: N xdist workers, one merged report and summary,
a worker killed mid-run reported as an infrastructure error, nothing left running."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest
from junitparser import JUnitXml
from trailblaze.report.bundle import read_bundle

PASSING = """\
config:
  id: {name}
  tags: [{tag}]
trail:
  - step: wait a moment
    recording:
      host:
        - wait: {{timeToWaitInSeconds: 0.05}}
"""

FAILING = """\
config:
  id: broken
trail:
  - step: run false
    recording:
      host:
        - exec: {argv: ["false"]}
"""

KILLS_ITS_WORKER = """\
config:
  id: killer
trail:
  - step: the process running this trail dies
    recording:
      host:
        - exec: {argv: ["sh", "-c", "kill -9 $PPID"]}
"""


def _suite(root: Path, extra: dict[str, str]) -> None:
    trails = root / "trails"
    trails.mkdir()
    for i in range(4):
        (trails / f"p{i}.trail.yaml").write_text(PASSING.format(name=f"p{i}", tag="smoke" if i % 2 else "slow"))
    for name, text in extra.items():
        (trails / name).write_text(text)


def _processes_with(run_id: str) -> list[int]:
    """Processes (workers, their children) that still carry this run's id in their environment."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if f"TRAILBLAZE_RUN_ID={run_id}".encode() in environ.split(b"\0"):
            found.append(int(entry))
    return found


def test_run_n_2_ends_with_one_report_summary_and_junit(tmp_path: Path, trailblaze_cmd) -> None:  # type: ignore[no-untyped-def]
    _suite(tmp_path, {"broken.trail.yaml": FAILING})
    # An earlier plain run left its own bundle in the output directory: the -n merge is not misled by it.
    assert trailblaze_cmd(["run", "trails/p0.trail.yaml", "--output-dir", "out"], cwd=tmp_path).returncode == 0
    run_id = uuid.uuid4().hex
    done = trailblaze_cmd(["run", "trails", "-n", "2", "--junit-xml", "out/junit.xml", "--output-dir", "out"],
                          cwd=tmp_path, env={"TRAILBLAZE_RUN_ID": run_id})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Results: 4 passed, 1 failed, 0 skipped (2 workers)" in done.stdout
    assert '✗ broken [host]: step 1 "run false"' in done.stdout
    out = tmp_path / "out"
    merged = read_bundle(out)
    assert merged.manifest.run_id == run_id and len(merged.manifest.merged_from) == 2
    assert sorted(r.title for r in merged.records) == ["broken", "p0", "p1", "p2", "p3"]
    assert {r.worker for r in merged.records} <= {"gw0", "gw1"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["results"][0]["title"] == "broken" and len(summary["results"]) == 5
    cases = [case for suite in JUnitXml.fromfile(str(out / "junit.xml")) for case in suite]
    assert len(cases) == 5 and not (out / "gw0" / "junit.xml").exists()
    assert f"Report: {out / 'report.html'}" in done.stdout
    assert not _processes_with(run_id)

    # --tags become a marker expression; bad usage is refused before pytest starts.
    tagged = trailblaze_cmd(["run", "trails", "-n", "2", "--tags", "smoke", "--output-dir", "tagged"], cwd=tmp_path)
    assert tagged.returncode == 0 and "Results: 2 passed, 0 failed, 0 skipped" in tagged.stdout, tagged.stdout
    refused = trailblaze_cmd(["run", "trails", "-n", "2", "--test-name", "x"], cwd=tmp_path)
    assert refused.returncode == 3 and "--test-name is not supported with -n yet" in refused.stderr


def test_a_worker_killed_mid_run_is_an_infrastructure_error_for_its_trail_only(tmp_path: Path, trailblaze_cmd) -> None:  # type: ignore[no-untyped-def]
    _suite(tmp_path, {"killer.trail.yaml": KILLS_ITS_WORKER})
    run_id = uuid.uuid4().hex
    done = trailblaze_cmd(["run", "trails", "-n", "2", "--output-dir", "out"], cwd=tmp_path,
                          env={"TRAILBLAZE_RUN_ID": run_id})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Results: 4 passed, 1 failed, 0 skipped" in done.stdout
    merged = read_bundle(tmp_path / "out")
    by_title = {r.title: r for r in merged.records}
    assert sorted(by_title) == ["killer", "p0", "p1", "p2", "p3"]
    killed = by_title["killer"]
    assert killed.outcome == "Error" and killed.exit_code == 2 and killed.failure_kind == "WorkerCrashed"
    assert killed.worker in {"gw0", "gw1"} and "crashed while running this trail" in (killed.message or "")
    assert all(r.outcome == "Succeeded" for t, r in by_title.items() if t != "killer")
    assert not _processes_with(run_id)


def test_run_n_without_pytest_xdist_says_so(tmp_path: Path, trailblaze_cmd) -> None:  # type: ignore[no-untyped-def]
    _suite(tmp_path, {})
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys\nsys.modules['xdist'] = None  # as if not installed\n")
    done = trailblaze_cmd(["run", "trails", "-n", "2"], cwd=tmp_path, pythonpath=site)
    assert done.returncode == 3
    assert "trailblaze: error: -n needs pytest-xdist, which is not installed" in done.stderr
    assert "pip install pytest-xdist" in done.stderr and "Traceback" not in done.stderr


def test_pytest_n_2_merges_the_workers_into_one_report(pytester: pytest.Pytester) -> None:
    _suite(pytester.path, {"broken.trail.yaml": FAILING})
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--trails", "trails", "-n", "2",
                                           "--trailblaze-output-dir", "logs", "--trailblaze-junit-xml", "j.xml")
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(["*merged 2 worker bundle(s): 5 trail runs, 4 passed, 1 failed, 0 skipped*",
                                 "report: *logs/report.html", "summary: *logs/summary.json", "junit: *j.xml"])
    summary = json.loads((pytester.path / "logs" / "summary.json").read_text())
    assert sorted(r["title"] for r in summary["results"]) == ["broken", "p0", "p1", "p2", "p3"]
    assert len([case for suite in JUnitXml.fromfile(str(pytester.path / "j.xml")) for case in suite]) == 5
