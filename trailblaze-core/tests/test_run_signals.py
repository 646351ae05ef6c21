"""Signals on every path: SIGINT, SIGTERM and SIGHUP to a plain ``trailblaze run``, to ``run -n 2`` and to
``pytest --trails -n 2`` (their controller) while trails run, and SIGKILL of a controller.

Real processes, real signals, real files. Each trail's second step notes that it started (a marker file)
and then waits for the test to release it (another file), so the test knows exactly which trails finished,
which run and which never started before it signals; nothing waits on the clock. Every path must end
with every trail in the summary and the JUnit file — the finished ones with their outcome, the running
ones CANCELLED with the step they reached, the rest CANCELLED as not started — ``interrupted_by`` in the
summary, complete files, exit code 2, and no process of the run left (``CliProcess`` marks them all).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml

from trailblaze.report.bundle import read_records
from trailblaze.testing import CliProcess, run_cli

NAMES = ("a", "b", "c", "d", "e", "f")
WAITING_STEP = 'step 2 "wait for the test to release it"'

TRAIL = """\
config:
  id: {name}
trail:
  - step: a first step
    recording:
      host:
        - exec: {{argv: ["true"]}}
  - step: wait for the test to release it
    recording:
      host:
        - exec: {{argv: [sh, -c, "touch '{marks}/started.{name}'; while [ ! -e '{marks}/release.{name}' ]; do sleep 0.05; done"]}}
"""

PYTEST = [sys.executable, "-m", "pytest"]


def workspace(root: Path) -> Path:
    (root / "trails").mkdir(parents=True)
    (root / "marks").mkdir()
    for name in NAMES:
        (root / "trails" / f"{name}.trail.yaml").write_text(TRAIL.format(name=name, marks=root / "marks"))
    return root


def start(path: str, ws: Path) -> CliProcess:
    if path == "plain":
        return CliProcess(["run", "trails", "--output-dir", "out", "--junit-xml", "out/junit.xml"], cwd=ws)
    if path == "run -n 2":
        return CliProcess(["run", "trails", "-n", "2", "--output-dir", "out", "--junit-xml", "out/junit.xml"], cwd=ws)
    return CliProcess(["-p", "xdist", "-p", "no:cacheprovider", "-c", os.devnull, "--rootdir", str(ws),
                       "--trails", "trails", "-n", "2", "--trailblaze-output-dir", "out",
                       "--trailblaze-junit-xml", "out/junit.xml"], cwd=ws, program=PYTEST)


def marks(ws: Path, kind: str) -> set[str]:
    return {p.name.split(".", 1)[1] for p in (ws / "marks").glob(f"{kind}.*")}


def running(ws: Path) -> set[str]:
    return marks(ws, "started") - marks(ws, "release")


def summary_of(ws: Path, path: str) -> dict:  # type: ignore[type-arg]
    if path == "plain":
        found = list((ws / "out" / "reports").glob("trailblaze_test_results_*.json"))
        assert len(found) == 1, found
        return json.loads(found[0].read_text())  # type: ignore[no-any-return]
    return json.loads((ws / "out" / "summary.json").read_text())  # type: ignore[no-any-return]


PARALLEL = {"plain": 1, "run -n 2": 2, "pytest -n 2": 2}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
@pytest.mark.parametrize("path", list(PARALLEL))
def test_a_signal_lists_every_trail_finished_running_and_not_started(path: str, sig: signal.Signals,
                                                                     tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    run = start(path, ws)
    parallel = PARALLEL[path]
    run.wait_until(lambda: len(running(ws)) == parallel)
    finished = min(running(ws))
    (ws / "marks" / f"release.{finished}").touch()
    # The released trail has ended once its process started the next one: all busy again, one more started.
    run.wait_until(lambda: len(running(ws)) == parallel and len(marks(ws, "started")) == parallel + 1)
    stopped = running(ws)
    os.kill(run.pid, sig)
    code, output = run.finish()

    assert code == 2, output
    assert "Traceback" not in output, output
    summary = summary_of(ws, path)
    assert summary["metadata"]["interrupted_by"] == sig.name
    outcomes = {r["title"]: (r["outcome"], r["failure_reason"]) for r in summary["results"]}
    assert len(summary["results"]) == len(NAMES), outcomes
    expected = {name: ("PASSED", None) if name == finished else
                ("CANCELLED", f"interrupted by {sig.name} while running {WAITING_STEP}") if name in stopped else
                ("CANCELLED", f"interrupted by {sig.name}: not started") for name in NAMES}
    assert outcomes == expected
    cases = {case.name: case for suite in JUnitXml.fromfile(str(ws / "out" / "junit.xml")) for case in suite}
    assert len(cases) == len(NAMES), sorted(cases)
    verdicts = {name: [type(r).__name__ for r in case.result] for name, case in cases.items()}
    assert sum(1 for v in verdicts.values() if not v) == 1, verdicts  # the finished trail passed
    assert all(set(v) <= {Error.__name__, Failure.__name__} for v in verdicts.values()), verdicts
    assert f"Results: 1 passed, 5 failed, 0 skipped (5 cancelled: interrupted by {sig.name})" in output, output
    assert run.children_left() == []
    # The run's bundle names the signal too, and merge-reports carries it on.
    merged = run_cli(["merge-reports", "out", "--output-dir", "merged"], cwd=ws)
    assert merged.exit_code == 2, merged.output
    assert json.loads((ws / "merged" / "summary.json").read_text())["metadata"]["interrupted_by"] == sig.name


@pytest.mark.parametrize("path", ["run -n 2", "pytest -n 2"])
def test_sigkill_of_the_controller_stops_its_workers_mid_trail(path: str, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    run = start(path, ws)
    run.wait_until(lambda: len(running(ws)) == 2)
    stopped = running(ws)
    run.kill()
    # Nothing releases the trails: a worker that finished its trail first would wait for ever. (A worker
    # still writes its own outputs before it ends: the time limit is for a busy machine.)
    assert run.children_left(timeout=90) == []
    # Each worker was stopped by the kernel's SIGTERM (its parent died) and recorded its trail as stopped.
    records = [r for bundle in (ws / "out").glob("gw*") for r in read_records(bundle)]
    assert {r.title: r.message for r in records} == {
        name: f"interrupted by SIGTERM while running {WAITING_STEP}" for name in stopped}


def test_run_n_interrupted_before_the_first_trail_ends_still_writes_every_output(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    run = start("run -n 2", ws)
    run.wait_until(lambda: len(running(ws)) == 2)
    stopped = running(ws)
    os.kill(run.pid, signal.SIGTERM)
    code, output = run.finish()
    assert code == 2, output
    assert "Results: 0 passed, 6 failed, 0 skipped (6 cancelled: interrupted by SIGTERM)" in output, output
    reasons = {r["title"]: r["failure_reason"] for r in summary_of(ws, "run -n 2")["results"]}
    assert reasons == {name: f"interrupted by SIGTERM while running {WAITING_STEP}" if name in stopped
                       else "interrupted by SIGTERM: not started" for name in NAMES}
    assert "interrupted by SIGTERM" in (ws / "out" / "report.html").read_text()
    assert len([c for suite in JUnitXml.fromfile(str(ws / "out" / "junit.xml")) for c in suite]) == len(NAMES)
    assert run.children_left() == []


RETRIED = """\
config:
  id: retried
trail:
  - step: fail the first time
    recording:
      host:
        - exec: {{argv: [sh, -c, "[ -e '{marks}/failed' ] || {{ touch '{marks}/failed'; exit 1; }}"]}}
  - step: wait for the test to release it
    recording:
      host:
        - exec: {{argv: [sh, -c, "touch '{marks}/started.retried'; while [ ! -e '{marks}/release.retried' ]; do sleep 0.05; done"]}}
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["plain", "run -n 2"])
def test_a_retry_interrupted_keeps_the_attempt_before_it(workers: list[str], tmp_path: Path) -> None:
    (tmp_path / "trails").mkdir()
    (tmp_path / "marks").mkdir()
    (tmp_path / "trails" / "retried.trail.yaml").write_text(RETRIED.format(marks=tmp_path / "marks"))
    run = CliProcess(["run", "trails", "--retries", "1", *workers, "--output-dir", "out"], cwd=tmp_path)
    run.wait_until(lambda: "retried" in running(tmp_path))
    os.kill(run.pid, signal.SIGTERM)
    code, output = run.finish()
    assert code == 2, output
    [row] = summary_of(tmp_path, "plain" if not workers else "run -n 2")["results"]
    assert (row["outcome"], row["attempt"]) == ("CANCELLED", 2), row
    assert [a["outcome"] for a in row["attempts"]] == ["FAILED", "CANCELLED"], row["attempts"]
    assert row["attempts"][1]["failure_reason"] == f"interrupted by SIGTERM while running {WAITING_STEP}"
    assert run.children_left() == []


SLOW_COLLECTION = """\
import os
import time
from pathlib import Path


def pytest_collection(session):
    # In each xdist worker: say so, then hold its collection until the test releases it (it never does), so
    # the controller is signalled before any worker has listed its trails.
    worker = getattr(session.config, "workerinput", {{}}).get("workerid")
    if worker:
        (Path({marks!r}) / f"collecting.{{worker}}").touch()
        while not (Path({marks!r}) / "release.collection").exists():
            time.sleep(0.05)
"""


@pytest.mark.parametrize("path", ["run -n 2", "pytest -n 2"])
def test_a_signal_before_the_workers_list_their_trails_still_lists_every_trail(path: str, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (ws / "conftest.py").write_text(SLOW_COLLECTION.format(marks=str(ws / "marks")))
    run = start(path, ws)
    run.wait_until(lambda: marks(ws, "collecting") == {"gw0", "gw1"})
    os.kill(run.pid, signal.SIGTERM)
    code, output = run.finish()

    assert code == 2, output
    assert "Traceback" not in output, output
    assert marks(ws, "started") == set()  # no trail ran: the controller knew none of them from its workers
    summary = summary_of(ws, path)
    assert summary["metadata"]["interrupted_by"] == "SIGTERM"
    assert {r["title"]: (r["outcome"], r["failure_reason"]) for r in summary["results"]} == {
        name: ("CANCELLED", "interrupted by SIGTERM: not started") for name in NAMES}
    cases = [case for suite in JUnitXml.fromfile(str(ws / "out" / "junit.xml")) for case in suite]
    assert sorted(case.name for case in cases) == list(NAMES)
    assert all(case.result for case in cases)  # none passed
    assert "Results: 0 passed, 6 failed, 0 skipped (6 cancelled: interrupted by SIGTERM)" in output, output
    assert run.children_left() == []
