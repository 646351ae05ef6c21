"""``trailblaze run -n N`` and ``pytest --trails … -n N``: N xdist workers, one merged report and summary,
a worker killed mid-run reported as an infrastructure error, nothing left running."""

from __future__ import annotations

import json
import os
import re
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
    assert done.stdout.splitlines()[-1] == "Results: 4 passed, 1 failed, 0 skipped"
    assert '  → FAILED: broken — step 1 "run false"' in done.stdout
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
    bad = trailblaze_cmd(["run", "trails", "-n", "2", "--shard", "3/2"], cwd=tmp_path)
    assert bad.returncode == 3 and "--shard" in bad.stderr and "Traceback" not in bad.stderr, bad.stderr


def _console(text: str) -> list[str]:
    """A run's trail, step and outcome lines and its closing line, without timings, in trail order."""
    lines = [re.sub(r" \(\d+ ms\)$", "", line) for line in text.splitlines()
             if line.startswith(("▶", "✗", "  ✓", "  ✗", "  →", "      ", "Results:"))]
    blocks: list[list[str]] = []
    for line in lines:
        if line.startswith(("▶", "✗", "Results:")) or not blocks:
            blocks.append([])
        blocks[-1].append(line)
    return [line for block in sorted(blocks) for line in block]


def test_run_n_shows_the_console_of_a_plain_run(tmp_path: Path, trailblaze_cmd) -> None:  # type: ignore[no-untyped-def]
    _suite(tmp_path, {"broken.trail.yaml": FAILING})
    plain = trailblaze_cmd(["run", "trails", "--output-dir", "plain"], cwd=tmp_path)
    workers = trailblaze_cmd(["run", "trails", "-n", "2", "--output-dir", "workers"], cwd=tmp_path)
    assert plain.returncode == workers.returncode == 1, workers.stdout + workers.stderr
    assert '▶ broken  (trails/broken.trail.yaml, host)' in workers.stdout
    assert "  ✓ step 1: wait a moment" in workers.stdout
    assert _console(workers.stdout) == _console(plain.stdout)
    assert workers.stdout.splitlines()[-1] == plain.stdout.splitlines()[-1] == "Results: 4 passed, 1 failed, 0 skipped"

    # A trail file that does not parse: bad input (3) for the run, listed in the summary; the others run.
    (tmp_path / "trails" / "unreadable.trail.yaml").write_text("trail:\n  - step: [oops\n")
    plain = trailblaze_cmd(["run", "trails", "--output-dir", "plain-3"], cwd=tmp_path)
    workers = trailblaze_cmd(["run", "trails", "-n", "2", "--output-dir", "workers-3"], cwd=tmp_path)
    assert plain.returncode == workers.returncode == 3, workers.stdout + workers.stderr
    assert _console(workers.stdout) == _console(plain.stdout)
    assert workers.stdout.splitlines()[-1] == "Results: 4 passed, 2 failed, 0 skipped (1 error)"
    assert "unreadable.trail.yaml" in {r.title for r in read_bundle(tmp_path / "workers-3").records}
    # pytest's own output is not shown: no header, no progress dots, no pytest summary.
    for pytest_text in ("bringing up nodes", "[100%]", "test session starts", "short test summary", " in "):
        assert pytest_text not in workers.stdout


def test_run_n_counts_a_quarantined_failure_as_a_plain_run_does(tmp_path: Path, trailblaze_cmd) -> None:  # type: ignore[no-untyped-def]
    # A quarantined trail's failure is reported but does not fail the run: the merged workers' exit code,
    # Results line and summary say so exactly as a plain run does.
    _suite(tmp_path, {"broken.trail.yaml": FAILING.replace("config:\n", "config:\n  tags: [quarantine]\n")})
    plain = trailblaze_cmd(["run", "trails", "--output-dir", "plain"], cwd=tmp_path)
    workers = trailblaze_cmd(["run", "trails", "-n", "2", "--output-dir", "workers"], cwd=tmp_path)
    assert plain.returncode == workers.returncode == 0, workers.stdout + workers.stderr
    last = "Results: 4 passed, 1 failed, 0 skipped (1 quarantined)"
    assert workers.stdout.splitlines()[-1] == plain.stdout.splitlines()[-1] == last
    summary = json.loads((tmp_path / "workers" / "summary.json").read_text())
    broken = [r for r in summary["results"] if r["test_key"] == "broken"]
    assert broken and broken[0]["quarantined"] is True, broken
    assert read_bundle(tmp_path / "workers").manifest.exit_code == 0


ARGS_TRAIL = """\
config:
  id: greeter
  args:
    who: string
trail:
  - step: the argument arrived
    recording:
      host:
        - exec: {argv: ["test", "{{args.who}}", "=", "ada"]}
"""


def test_the_run_only_options_work_with_n(tmp_path: Path, trailblaze_cmd) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "trails").mkdir()
    for name in ("ada", "bob", "cy"):
        (tmp_path / "trails" / f"{name}.trail.yaml").write_text(ARGS_TRAIL.replace("greeter", name))
    (tmp_path / "args.yaml").write_text("who: ada\n")
    done = trailblaze_cmd(["run", "trails", "-n", "2", "--args-file", "args.yaml", "--test-name", "nightly",
                           "--log-layout", "files", "--no-report", "--output-dir", "out"], cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Results: 3 passed, 0 failed, 0 skipped" in done.stdout and "Report:" not in done.stdout
    out = tmp_path / "out"
    merged = read_bundle(out)
    assert "report" not in merged.manifest.files and not list(out.rglob("*.html"))
    assert all("nightly" in (r.session_id or "") for r in merged.records)
    log_dirs = [out / r.log_dir for r in merged.records if r.log_dir]
    assert len(log_dirs) == 3 and all(list(d.glob("0*_*.json")) and not (d / "session.ndjson").exists()
                                      for d in log_dirs)

    # --no-logging: no event logs; --no-use-recorded-steps hands every step to the agent (none is set up
    # here), so the trails end as a plain run ends them; --max-llm-calls and --no-save-recording ride along.
    flags = ["--no-logging", "--no-use-recorded-steps", "--no-save-recording", "--max-llm-calls", "1",
             "--arg", "who=ada"]
    plain = trailblaze_cmd(["run", "trails", *flags, "--output-dir", "plain"], cwd=tmp_path)
    workers = trailblaze_cmd(["run", "trails", "-n", "2", *flags, "--output-dir", "quiet"], cwd=tmp_path)
    assert workers.returncode == plain.returncode != 0, workers.stdout + workers.stderr
    assert _console(workers.stdout) == _console(plain.stdout)
    for name in ("plain", "quiet"):
        assert not list((tmp_path / name).rglob("session.ndjson")) and not list((tmp_path / name).rglob("0*_*.json"))
    assert list((tmp_path / "out").rglob("0*_*.json"))  # what the first run wrote, with logging on
    assert (tmp_path / "trails" / "ada.trail.yaml").read_text() == ARGS_TRAIL.replace("greeter", "ada")


def test_every_run_option_reaches_the_workers_as_a_plain_run_reads_it(tmp_path: Path,
                                                                        pytester: pytest.Pytester) -> None:
    """``run -n`` hands each option to the workers through its ``--trailblaze-*`` twin: the workers'
    ``RunOptions`` are a plain run's."""
    from trailblaze.commands.run import command
    from trailblaze.commands.run_parallel import build_args
    from trailblaze.commands.session_options import options_for, session_values
    from trailblaze.pytest_plugin.state import STATE
    from trailblaze.runner.options import RunOptions

    (pytester.path / "trails").mkdir()
    argv = ["trails", "--args-file", "a.yaml", "--test-name", "nightly", "--log-layout", "files",
            "--no-use-recorded-steps", "--no-save-recording", "--no-report", "--no-logging", "--max-llm-calls", "7",
            "--no-self-heal", "--no-heal-check", "--retries", "2", "--fail-on-flaky", "--memory", "k=v", "--secret", "pw=s3",
            "--arg", "n=1", "-o", "viewport=390x844", "--driver", "host", "--llm", "openai/gpt-4.1",
            "--max-llm-cost", "0.5", "--no-history", "--results-db", "h.db", "--junit-xml", "j.xml"]
    params = command.make_context("run", list(argv)).params
    args = build_args(["trails"], 2, params, [], pytester.path / "out")
    config = pytester.parseconfigure(*args[args.index("--trailblaze-relative-paths"):])
    workers = config.stash[STATE].options()
    plain = RunOptions(**session_values("run", dict(params)))
    for row in options_for("run"):
        if row.field in ("output_dir", "secret_env", "secrets_files"):  # the last two are read into secrets
            continue
        if row.pytest_flag is None:  # upstream's spellings, folded into the rows above; --markdown: the controller's
            continue
        mine, theirs = getattr(workers, row.field), getattr(plain, row.field)
        if isinstance(theirs, Path):
            theirs = theirs.resolve()
        if row.field == "junit_xml":  # the controller writes the one JUnit file, from the merged bundles
            assert "--trailblaze-junit-xml" in args
            continue
        assert mine == theirs, row.field
    assert workers.use_recorded_steps is False and workers.save_recording is False and workers.report is False
    assert workers.heal_check is False


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


STOPS_THE_RUN = """\
config:
  id: a-stop
trail:
  - step: the run is stopped (SIGTERM to the trailblaze process, as CI does) while this trail runs
    recording:
      host:
        - exec: {argv: ["sh", "-c", "kill -TERM $(ps -o ppid= -p $PPID); exec sleep 60"]}
"""


def test_an_interrupted_run_n_lists_the_trails_no_worker_started(tmp_path: Path, trailblaze_cmd) -> None:  # type: ignore[no-untyped-def]
    # The first trail sends SIGTERM to `trailblaze run -n` itself (its worker's parent): the controller hands
    # it on to the workers, which stop the trails they are running (CANCELLED, with the step they reached),
    # and the summary lists every trail once — the rest CANCELLED, as a plain run lists the trails it never
    # started. The step sleeps after its kill so that the signal, handed on asynchronously, always finds it
    # running (a step that returned first passed its trail: CI saw that race). (tests/test_run_signals.py
    # signals every path from outside.)
    _suite(tmp_path, {"a-stop.trail.yaml": STOPS_THE_RUN})
    for i in range(4, 10):
        (tmp_path / "trails" / f"p{i}.trail.yaml").write_text(PASSING.format(name=f"p{i}", tag="smoke"))
    run_id = uuid.uuid4().hex
    done = trailblaze_cmd(["run", "trails", "-n", "2", "--output-dir", "out"], cwd=tmp_path,
                          env={"TRAILBLAZE_RUN_ID": run_id})
    assert done.returncode == 2, done.stdout + done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    outcomes = {Path(r["trail_source"]).name: (r["outcome"], r["failure_reason"]) for r in summary["results"]}
    assert len(outcomes) == len(summary["results"]) == 11, outcomes
    cancelled = [name for name, (outcome, _) in outcomes.items() if outcome == "CANCELLED"]
    assert cancelled, outcomes
    assert outcomes["a-stop.trail.yaml"][0] == "CANCELLED"
    assert outcomes["a-stop.trail.yaml"][1].startswith('interrupted by SIGTERM while running step 1 "the run is stopped')
    assert all(outcomes[name][1] == "interrupted by SIGTERM: not started"
               or outcomes[name][1].startswith("interrupted by SIGTERM while running") for name in cancelled), outcomes
    assert all(outcome == "PASSED" for name, (outcome, _) in outcomes.items() if name not in cancelled), outcomes
    last = done.stdout.splitlines()[-1]
    assert last == (f"Results: {11 - len(cancelled)} passed, {len(cancelled)} failed, 0 skipped "
                    f"({len(cancelled)} cancelled: interrupted by SIGTERM)"), done.stdout
    assert not _processes_with(run_id)


def test_tags_that_select_nothing_are_bad_input_with_and_without_n(tmp_path: Path, trailblaze_cmd) -> None:  # type: ignore[no-untyped-def]
    _suite(tmp_path, {})
    for workers in ([], ["-n", "2"]):
        done = trailblaze_cmd(["run", "trails", "--tags", "nightly", *workers, "--output-dir", "out"], cwd=tmp_path)
        assert done.returncode == 3, (workers, done.stdout + done.stderr)
        assert "trailblaze: error: --tags nightly selected none of the 4 trail file(s) given" in done.stderr, workers
    # A shard that gets no trail is no error: more shards than trails is a CI matrix's normal case.
    for workers in ([], ["-n", "2"]):
        done = trailblaze_cmd(["run", "trails/p0.trail.yaml", "--shard", "2/2", *workers], cwd=tmp_path)
        assert done.returncode == 0, (workers, done.stdout + done.stderr)
        assert "Results: 0 passed, 0 failed, 0 skipped" in done.stdout, workers


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


def test_markdown_with_n_is_written_once_from_the_merged_results(tmp_path: Path, trailblaze_cmd) -> None:  # type: ignore[no-untyped-def]
    """Upstream's ``--markdown`` has no pytest twin: with ``-n`` the controller writes it from the merged
    bundle, one row per trail, as a plain run does; an upstream spelling with no twin is refused by name."""
    _suite(tmp_path, {})
    done = trailblaze_cmd(["run", "trails", "-n", "2", "--markdown", "--output-dir", "out"], cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    [markdown] = (tmp_path / "out" / "reports").glob("trailblaze_summary_*.md")
    assert f"Markdown: {markdown}" in done.stdout
    text = markdown.read_text()
    assert "Results: 4 passed" in text and text.count("| PASSED |") == 4
    refused = trailblaze_cmd(["run", "trails", "-n", "2", "--capture-video"], cwd=tmp_path)
    assert refused.returncode == 3 and "--capture-video is not supported with -n" in refused.stderr
