"""A worker's result bundle kept current trail by trail: appended (now) against rewritten (before).

An xdist worker keeps its bundle current after every trail, so a worker killed later still leaves
what it finished. Before bundle format 2 that meant rewriting every earlier record each time
(``write_bundle`` of the growing run: quadratic in the worker's trail count); now it is one line
appended and fsynced to ``results.jsonl`` plus the small manifest (``BundleAppender``). Both are
measured here in the same process on generated results (3 steps each), interleaved trail by trail,
for a worker's first 100 trails and its last 100: the append's cost per trail should stay flat, the
rewrite's grow. Wall time includes the fsyncs, so it also measures the disk's other users; CPU time
does not.

    uv run python benchmarks/bench_bundle_append.py [--trails 1000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from trailblaze.errors import ExitCode
from trailblaze.memory import Redactor
from trailblaze.results.output_request import BundleContext
from trailblaze.report.bundle import BundleAppender, read_bundle, write_bundle
from trailblaze.runner.results import RunResult, StepResult, TrailResult
from trailblaze.session import SessionOutcome


def trail(i: int) -> TrailResult:
    now = time.time()
    return TrailResult(path=Path(f"trails/area-{i % 7}/t{i:04d}.trail.yaml"), title=f"trail {i}",
                       outcome=SessionOutcome.SUCCEEDED, exit_code=ExitCode.SUCCESS, session_id=f"s{i}",
                       started_at=now, completed_at=now + 1.5, tags=["smoke"],
                       steps=[StepResult(index=n, kind="step", text=f"step {n}", mode="replay", success=True, number=n,
                                         duration_ms=500) for n in range(1, 4)])


def per_trail(times: list[tuple[float, float]]) -> str:
    wall = sum(t for t, _ in times) / len(times) * 1000
    cpu = sum(c for _, c in times) / len(times) * 1000
    return f"{wall:.2f} / {cpu:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trails", type=int, default=1000)
    args = parser.parse_args()
    trails = [trail(i) for i in range(args.trails)]
    context = BundleContext(run_id="bench", worker="gw0")
    # Interleaved, trail by trail, so both see the same disk (other processes' fsyncs) at the same moment.
    rewritten: list[tuple[float, float]] = []
    appended: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        appender = BundleAppender(Path(tmp) / "append", context, Redactor())
        for n in range(1, len(trails) + 1):
            w0, c0 = time.perf_counter(), time.process_time()
            write_bundle(RunResult(redactor=Redactor(), trails=trails[:n]), Path(tmp) / "rewrite", context, {})
            w1, c1 = time.perf_counter(), time.process_time()
            appender.append(trails[n - 1])
            rewritten.append((w1 - w0, c1 - c0))
            appended.append((time.perf_counter() - w1, time.process_time() - c1))
        assert len(read_bundle(Path(tmp) / "append").records) == len(trails)
        assert len(read_bundle(Path(tmp) / "rewrite").records) == len(trails)
    first, last = slice(0, 100), slice(len(trails) - 100, len(trails))
    print(f"{len(trails)} trails on one worker, the bundle kept current after each; per trail, wall (fsyncs "
          "included, so the disk's other users too) / CPU:")
    for name, times in (("rewrite every record (before)", rewritten), ("append one line (now)", appended)):
        print(f"  {name:30s} trails 1-100 {per_trail(times[first])}, last 100 {per_trail(times[last])}, "
              f"total {sum(t for t, _ in times):.2f} s")
    print(f"  ratio now/before on the last 100 trails: wall {ratio(appended, rewritten, last, 0):.3f}, "
          f"CPU {ratio(appended, rewritten, last, 1):.3f} (aim: the append's per-trail cost flat)")


def ratio(now: list[tuple[float, float]], before: list[tuple[float, float]], part: slice, which: int) -> float:
    return sum(t[which] for t in now[part]) / sum(t[which] for t in before[part])

if __name__ == "__main__":
    main()
