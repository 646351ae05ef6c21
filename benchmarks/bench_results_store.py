"""The run history's costs: writing results, reading them back, and what it adds to a run.

1. 10,000 trail results written one transaction each (what concurrent runs do) vs the same rows
   inserted by bare ``sqlite3`` in one ``executemany`` transaction (aim: ≤ 1 s).
2. ``trailblaze results --json`` over 100,000 stored attempts (1,000 trails × 100 runs) in a fresh
   process vs ``trailblaze --version`` (aim: the query itself ≤ 0.3 s, printed separately).
3. 200 one-step trails through ``trailblaze run``'s runner with the history on vs ``--no-history``;
   rounds interleaved (aim: ≤ 2 ms per trail).

Usage: uv run python benchmarks/bench_results_store.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import fields
from operator import attrgetter
from pathlib import Path

from trailblaze.results.store import AttemptRecord, ResultsStore
from trailblaze.runner import RunOptions
from trailblaze.runner.progress import QuietProgress
from trailblaze.runner.run import Runner


def rows(n: int, trails: int) -> list[AttemptRecord]:
    return [AttemptRecord(run_id=f"run-{i // trails}", trail_id=f"suite/trail-{i % trails}", device="web", attempt=1,
                          final=True, outcome="PASSED" if i % 7 else "FAILED", status="PASSED" if i % 7 else "FAILED",
                          started_at=1_700_000_000.0 + i, duration_ms=1000 + i % 500,
                          failure_signature=None if i % 7 else "ToolFailure: step N failed", commit_sha="abc123")
            for i in range(n)]


def bench_writes(tmp: Path, n: int = 10_000) -> None:
    data = rows(n, 100)
    store = ResultsStore(tmp / "ours.db")
    t0 = time.perf_counter()
    for record in data:
        store.record_attempt(record)  # one transaction per result
    ours = time.perf_counter() - t0
    store.close()
    row = attrgetter(*(f.name for f in fields(AttemptRecord)))
    con = sqlite3.connect(tmp / "bare.db")
    con.execute("CREATE TABLE t (" + ", ".join(f"c{i}" for i in range(len(row(data[0])))) + ")")
    placeholders = ", ".join("?" for _ in row(data[0]))
    t0 = time.perf_counter()
    with con:
        con.executemany(f"INSERT INTO t VALUES ({placeholders})", [row(r) for r in data])
    bare = time.perf_counter() - t0
    con.close()
    print(f"write {n:,} results, a transaction each: {ours:.3f} s (aim ≤ 1 s); bare executemany in one "
          f"transaction {bare:.3f} s; ratio {ours / bare:.1f}")


def bench_reads(tmp: Path) -> None:
    db = tmp / "big.db"
    with ResultsStore(db) as store:
        store.record_attempts(rows(100_000, 1_000))
        t0 = time.perf_counter()
        history = store.history(last=20)
        query = time.perf_counter() - t0
    assert len(history) == 1_000

    def cli(*args: str) -> float:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "trailblaze.cli", *args], check=True, capture_output=True)
        return time.perf_counter() - t0

    version = min(cli("--version") for _ in range(3))
    results = min(cli("results", "--json", "--results-db", str(db)) for _ in range(3))
    print(f"trailblaze results over 100,000 attempts (1,000 trails): query {query:.3f} s (aim ≤ 0.3 s); "
          f"whole command {results:.3f} s vs trailblaze --version {version:.3f} s (ratio {results / version:.2f})")


def bench_run(tmp: Path, rounds: int, trails: int = 200) -> None:
    folder = tmp / "trails"
    folder.mkdir()
    for i in range(trails):
        (folder / f"t{i}.trail.yaml").write_text(
            f"config:\n  id: bench/t{i}\ntrail:\n  - step: s\n    recording:\n      host:\n        - dumpMemory: {{}}\n")
    times: dict[bool, list[float]] = {True: [], False: []}
    for r in range(rounds):
        for history in (False, True):
            options = RunOptions(output_dir=tmp / f"out-{r}-{history}", history=history, report=False,
                                 results_db=tmp / "run-history.db")
            runner = Runner(options, progress=QuietProgress())
            t0 = time.perf_counter()
            result = runner.run([str(folder)])
            times[history].append(time.perf_counter() - t0)
            assert result.exit_code == 0
    on, off = statistics.median(times[True]), statistics.median(times[False])
    print(f"{trails} trails through the runner: history on {on:.3f} s, off {off:.3f} s (medians of {rounds}); "
          f"ratio {on / off:.3f}; {(on - off) / trails * 1000:.2f} ms per trail (aim ≤ 2 ms)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        bench_writes(tmp)
        bench_reads(tmp)
        bench_run(tmp, args.rounds)


if __name__ == "__main__":
    main()
