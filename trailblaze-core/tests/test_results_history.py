"""The run history: every attempt lands in the SQLite store, also from concurrent writers, and
``trailblaze results`` reads flake rates, last pass and durations back."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from trailblaze.report.bundle import read_bundle
from trailblaze.results.output_request import COMMIT_VARIABLES
from trailblaze.results.store import SCHEMA_VERSION, AttemptRecord, ResultsStore
from trailblaze.testing import run_cli

# Fails when its counter is 1 modulo PERIOD: with --retries 1 every PERIOD-th attempt makes a FLAKY run.
PERIODIC_SCRIPT = """\
import sys
from pathlib import Path
counter, period = Path(sys.argv[1]), int(sys.argv[2])
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
sys.exit(1 if n % period == 1 else 0)
"""


def workspace(root: Path) -> Path:
    (root / "trails" / "config").mkdir(parents=True)
    (root / "trails" / "config" / "trailblaze.yaml").write_text("defaults: {}\n")
    (root / "periodic.py").write_text(PERIODIC_SCRIPT)
    return root / "trails"


def add_trail(trails: Path, name: str, argv: list[str]) -> Path:
    path = trails / f"{name}.trail.yaml"
    path.write_text(f"config:\n  id: shop/{name}\ntrail:\n  - step: {name}\n    recording:\n      host:\n"
                    f"        - exec: {{argv: {json.dumps(argv)}}}\n")
    return path


def test_flake_rate_over_ten_runs_last_pass_durations_and_the_report_strip(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    trails = workspace(tmp_path)
    trail = add_trail(trails, "checkout", [sys.executable, str(tmp_path / "periodic.py"), str(tmp_path / "n"), "4"])
    for i in range(10):
        result = run_cli(["run", str(trail), "--retries", "1", "--output-dir", str(tmp_path / "out" / str(i))],
                         host=plugin_host)
        assert result.exit_code == 0, result.output
    db = tmp_path / ".trailblaze" / "results.db"
    assert db.is_file()  # <workspace>/.trailblaze/results.db by default
    # counter 1,2 | 3 | 4 | 5,6 | 7 | 8 | 9,10 | 11 | 12 | 13,14: runs 1, 4, 7 and 10 were FLAKY
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == 14
    shown = run_cli(["results", "--json"], host=plugin_host, cwd=tmp_path)
    assert shown.exit_code == 0, shown.output
    (row,) = json.loads(shown.output)
    assert (row["trail_id"], row["device"], row["runs"]) == ("shop/checkout", "host", 10)
    assert row["flake_rate"] == 0.4 and row["fail_rate"] == 0.0 and row["last_pass"]
    assert row["last_statuses"] == ["FLAKY", "PASSED", "PASSED"] * 3 + ["FLAKY"]
    assert row["median_duration_s"] is not None and row["p90_duration_s"] >= row["median_duration_s"]
    flaky = run_cli(["results", "--flaky"], host=plugin_host, cwd=tmp_path)
    assert "shop/checkout" in flaky.output and "40%" in flaky.output and "≈✓✓≈" in flaky.output, flaky.output
    report = next((tmp_path / "out" / "9" / "reports").glob("trailblaze_report_*.html")).read_text()
    assert report.count("<i class='FLAKY'") == 4 and report.count("<i class='PASSED'") == 6


def test_no_history_and_a_missing_store(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    trails = workspace(tmp_path)
    trail = add_trail(trails, "ok", [sys.executable, "-c", "pass"])
    assert run_cli(["run", str(trail), "--no-history", "--output-dir", str(tmp_path / "o")],
                   host=plugin_host).exit_code == 0
    assert not (tmp_path / ".trailblaze").exists()
    shown = run_cli(["results"], host=plugin_host, cwd=tmp_path)
    assert shown.exit_code == 3 and "no run history at" in shown.output + shown.stderr


def test_two_runs_and_pytest_xdist_write_to_one_store_at_once(tmp_path: Path) -> None:
    trails = workspace(tmp_path)
    for i in range(6):
        add_trail(trails, f"t{i}", [sys.executable, "-c", "import time; time.sleep(0.05)"])
    add_trail(trails, "broken", [sys.executable, "-c", "raise SystemExit(1)"])  # 2 attempts with --retries 1
    db = tmp_path / "history.db"
    env = {**os.environ, "TRAILBLAZE_STRICT_PLUGINS": "0"}
    common = ["--retries", "1"]
    procs = [subprocess.Popen([sys.executable, "-m", "trailblaze.cli", "run", str(trails), *common,
                               "--results-db", str(db), "--output-dir", str(tmp_path / f"run{i}")],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path)
             for i in range(2)]
    procs.append(subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2",
                                   "--trails", str(trails), "--trailblaze-retries", "1", "--rootdir", str(tmp_path),
                                   "-o", "addopts=", "--trailblaze-results-db", str(db),
                                   "--trailblaze-output-dir", str(tmp_path / "py")],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path))
    outputs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [1, 1, 1], outputs
    with ResultsStore(db) as store:
        # each of the 3 runs: 6 passing trails (1 attempt) + the broken one (2 attempts)
        assert store.count() == 3 * (6 + 2)
        (broken,) = store.history(["shop/broken"])
        assert broken.runs == 3 and broken.fail_rate == 1.0 and broken.last_failure
        assert set(store.durations([f"shop/t{i}" for i in range(6)])) == {f"shop/t{i}" for i in range(6)}
    with sqlite3.connect(db) as con:
        # Each run's rows carry its own id, the one its bundle names; pytest's two workers are one run.
        run_ids = {row[0] for row in con.execute("SELECT DISTINCT run_id FROM attempts")}
        assert run_ids == {read_bundle(tmp_path / out).manifest.run_id for out in ("run0", "run1", "py")}
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_history_records_the_run_id_and_commit_the_bundle_names(  # type: ignore[no-untyped-def]
        tmp_path: Path, plugin_host, monkeypatch) -> None:
    trails = workspace(tmp_path)
    trail = add_trail(trails, "ok", [sys.executable, "-c", "pass"])
    db = tmp_path / ".trailblaze" / "results.db"
    for name in COMMIT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("TRAILBLAZE_RUN_ID", raising=False)
    assert run_cli(["run", str(trail), "--output-dir", str(tmp_path / "a")], host=plugin_host).exit_code == 0
    # The CI's variables: the history and the bundle take the same ones (the history alone read
    # TRAILBLAZE_COMMIT, and made a run id of its own that TRAILBLAZE_RUN_ID did not set).
    monkeypatch.setenv("TRAILBLAZE_RUN_ID", "ci-pipeline-42")
    monkeypatch.setenv("TRAILBLAZE_COMMIT", "c0ffee")
    monkeypatch.setenv("GITHUB_SHA", "not-this-one")
    assert run_cli(["run", str(trail), "--output-dir", str(tmp_path / "b")], host=plugin_host).exit_code == 0
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT run_id, commit_sha FROM attempts ORDER BY id").fetchall()
    first, second = read_bundle(tmp_path / "a").manifest, read_bundle(tmp_path / "b").manifest
    assert rows == [(first.run_id, first.git_commit), ("ci-pipeline-42", "c0ffee")]
    assert (second.run_id, second.git_commit) == ("ci-pipeline-42", "c0ffee")
    summary_path = next((tmp_path / "b" / "reports").glob("trailblaze_test_results_*.json"))
    summary = json.loads(summary_path.read_text())
    assert summary["metadata"]["run_id"] == "ci-pipeline-42"


def test_the_store_api_for_imports_and_shard_balancing(tmp_path: Path) -> None:
    with ResultsStore(tmp_path / "r.db") as store:
        rows = [AttemptRecord(run_id="bundle-1", trail_id="a", device="web", attempt=1, final=True,
                              outcome="PASSED", status="PASSED", started_at=1000.0 + i, duration_ms=ms)
                for i, ms in enumerate([100, 200, 300, 400, 1000])]
        store.record_attempts(rows)  # one transaction, as merge-reports imports a bundle
        assert store.durations(["a", "missing"]) == {"a": 0.3}
        (h,) = store.history()
        assert (h.median_duration_s, h.p90_duration_s, h.flake_rate) == (0.3, 1.0, 0.0)
        assert store.recent_statuses([("a", "web")], last=2) == {("a", "web"): ["PASSED", "PASSED"]}


def _results(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", "results", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120, check=False)


def test_the_same_trail_in_two_workspaces_is_two_histories(tmp_path: Path) -> None:
    """One ``--results-db`` shared by two projects whose trails have the same id and path."""
    db = tmp_path / "shared" / "history.db"
    for project, script in (("a", "raise SystemExit(1)"), ("b", "pass")):
        trails = workspace(tmp_path / project)
        trail = add_trail(trails, "login", [sys.executable, "-c", script])
        done = subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", str(trail), "--results-db", str(db),
                               "--output-dir", str(tmp_path / project / "out")], capture_output=True, text=True,
                              cwd=tmp_path / project, timeout=300, check=False)
        assert done.returncode == (1 if project == "a" else 0), done.stdout + done.stderr
    shown = _results(["--json", "--results-db", str(db)], cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    rows = sorted(json.loads(shown.stdout), key=lambda r: r["workspace"])
    assert [(r["workspace"], r["trail_id"], r["last_statuses"]) for r in rows] == [
        ("../a", "shop/login", ["FAILED"]), ("../b", "shop/login", ["PASSED"])]
    table = _results(["--results-db", str(db)], cwd=tmp_path).stdout
    assert "WORKSPACE" in table and "../a" in table and "../b" in table


SCHEMA_1 = """
CREATE TABLE attempts (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, trail_id TEXT NOT NULL, device TEXT NOT NULL,
    attempt INTEGER NOT NULL, final INTEGER NOT NULL, outcome TEXT NOT NULL, status TEXT NOT NULL,
    started_at REAL NOT NULL, duration_ms INTEGER NOT NULL, failure_signature TEXT, failure_kind TEXT,
    commit_sha TEXT, shard TEXT, endpoint TEXT, llm_calls INTEGER NOT NULL DEFAULT 0,
    llm_tokens INTEGER NOT NULL DEFAULT 0, llm_cost_usd REAL NOT NULL DEFAULT 0, session_id TEXT, trail_path TEXT,
    quarantined INTEGER NOT NULL DEFAULT 0);
CREATE INDEX attempts_by_trail ON attempts (trail_id, device, final, started_at);
PRAGMA user_version = 1;
"""


def test_a_schema_1_store_is_migrated_and_its_histories_go_on(tmp_path: Path) -> None:
    trails = workspace(tmp_path)
    trail = add_trail(trails, "ok", [sys.executable, "-c", "pass"])
    db = tmp_path / ".trailblaze" / "results.db"
    db.parent.mkdir()
    with sqlite3.connect(db) as con:
        con.executescript(SCHEMA_1)
        con.executemany("INSERT INTO attempts (run_id, trail_id, device, attempt, final, outcome, status, started_at, "
                        "duration_ms) VALUES (?, 'shop/ok', 'host', 1, 1, ?, ?, ?, 10)",
                        [("old-1", "FAILED", "FAILED", 1000.0), ("old-2", "PASSED", "PASSED", 2000.0)])
    done = subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", str(trail), "--output-dir",
                           str(tmp_path / "out")], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
        assert {w for (w,) in con.execute("SELECT workspace FROM attempts")} == {".."}
    shown = _results(["--json"], cwd=tmp_path)
    (row,) = json.loads(shown.stdout)
    assert row["workspace"] == ".." and row["runs"] == 3 and row["last_statuses"] == ["PASSED", "PASSED", "FAILED"]


SCHEMA_2 = SCHEMA_1.replace("quarantined INTEGER NOT NULL DEFAULT 0)",
                            "quarantined INTEGER NOT NULL DEFAULT 0, workspace TEXT NOT NULL DEFAULT '')") \
    .replace("user_version = 1", "user_version = 2")


def test_a_schema_2_store_gains_step_counts_and_the_agent_step_rate_reads_only_runs_that_have_them(
        tmp_path: Path) -> None:
    db = tmp_path / "results.db"
    with sqlite3.connect(db) as con:
        con.executescript(SCHEMA_2)
        con.execute("INSERT INTO attempts (run_id, trail_id, device, attempt, final, outcome, status, started_at, "
                    "duration_ms, workspace) VALUES ('old', 'shop/cart', 'web', 1, 1, 'PASSED', 'PASSED', 1000.0, 10, '')")
    with ResultsStore(db) as store:
        (old,) = store.history()
        assert old.runs == 1 and old.agent_step_rate is None  # no step counts before schema 3
        for n, (replayed, agent, healed) in enumerate([(3, 1, 0), (2, 1, 1)]):
            store.record_attempts([AttemptRecord(run_id=f"new-{n}", trail_id="shop/cart", device="web", attempt=1,
                                                 final=True, outcome="PASSED", status="PASSED",
                                                 started_at=2000.0 + n, duration_ms=10, steps_replayed=replayed,
                                                 steps_agent=agent, steps_healed=healed)])
        (row,) = store.history()
    assert row.runs == 3 and row.agent_step_rate == 0.375  # (1 + 2) of (4 + 4) steps went to the model
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == 3
    table = _results(["--results-db", str(db)], cwd=tmp_path).stdout
    assert "AGENT STEPS" in table and "38%" in table, table


def test_a_damaged_store_is_one_readable_line(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"SQLite format 3\x00" + b"\x1b]0;pwned\x07" * 500)
    done = _results(["--results-db", str(garbage)], cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"trailblaze: error: {garbage}: not a readable run history (")
    assert "internal error" not in line and "Traceback" not in line

    hostile = tmp_path / "hostile.db"
    with ResultsStore(hostile) as store:
        store.record_attempts([AttemptRecord(run_id="r", trail_id="evil\x1b]0;pwned\x07\x1b[2J", device="web\x9b",
                                             attempt=1, final=True, outcome="PASSED", status="PASSED",
                                             started_at=1000.0, duration_ms=5)])
    shown = _results(["--results-db", str(hostile)], cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x9b" not in shown.stdout and "evil\\x1b]0;pwned\\x07" in shown.stdout

    with sqlite3.connect(hostile) as con:  # a row of the wrong type (a hand-edited or foreign store)
        con.execute("UPDATE attempts SET started_at = 'yesterday', duration_ms = 'long'")
    broken = _results(["--results-db", str(hostile)], cwd=tmp_path)
    assert broken.returncode == 3 and "not a readable run history" in broken.stderr, broken.stdout + broken.stderr
    assert len(broken.stderr.splitlines()) == 1 and "internal error" not in broken.stderr
