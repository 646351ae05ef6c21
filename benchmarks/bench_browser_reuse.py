"""Browser reuse and xdist workers on 12 web trails (the six runnable example trails, twice each).

Two comparisons, each measured in this one run against its own baseline:

1. ``trailblaze run``'s runner with a browser launched per trail (what it did before: each trail in
   its own reuse scope) against one browser per process and a fresh context per trail (each trail
   in one shared scope, what ``trailblaze run`` and the pytest plugin do now). Same process, same
   trails, rounds alternated so machine load hits both alike. Aim: ≥ 1.3×.
2. ``pytest --trails DIR -n 1`` against ``-n 2`` (pytest-xdist), as subprocesses, wall clock
   including pytest start-up. Aim on a 2-core machine: ≥ 1.6×.

    uv run python benchmarks/bench_browser_reuse.py [--rounds 2] [--skip-xdist]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHOP = REPO / "examples" / "web-shop"
RUNNABLE = ["cart", "checkout", "product-reviews", "search-and-sort", "sign-in", "sign-out"]


def make_workspace(root: Path, copies: int = 2) -> list[Path]:
    """A copy of the shop workspace whose trails/ holds each runnable example trail ``copies`` times."""
    shutil.copytree(SHOP / "app", root / "app")
    shutil.copy(SHOP / "server.py", root / "server.py")
    shutil.copytree(SHOP / "trails" / "config", root / "trails" / "config")
    paths = []
    for n in range(copies):
        for name in RUNNABLE:
            path = root / "trails" / f"{name}-{n + 1}.trail.yaml"
            path.write_text((SHOP / "trails" / f"{name}.trail.yaml").read_text())
            paths.append(path)
    return paths


def run_runner(paths: list[Path], out: Path, *, shared: bool) -> float:
    from trailblaze.reuse import reuse_scope
    from trailblaze.runner import RunOptions
    from trailblaze.runner.progress import QuietProgress
    from trailblaze.runner.run import Runner

    runner = Runner(RunOptions(output_dir=out, report=False, logging=True, save_recording=False),
                    progress=QuietProgress())
    for path in paths[:1]:
        runner.workspace_for(path)  # load tools once, outside the timing, for both series
    start = time.perf_counter()
    if shared:
        with reuse_scope():
            results = [runner.run_trail(p) for p in paths]
    else:
        results = []
        for p in paths:
            with reuse_scope():  # a scope per trail: a browser launched and closed per trail
                results.append(runner.run_trail(p))
    elapsed = time.perf_counter() - start
    failed = [r.title for r in results if r is None or not r.passed]
    if failed:
        raise SystemExit(f"trails failed: {failed}")
    return elapsed


def run_pytest(trails: Path, out: Path, workers: int) -> float:
    ini = out / "pytest.ini"
    out.mkdir(parents=True, exist_ok=True)
    ini.write_text("[pytest]\n")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c", str(ini), "--rootdir",
                           str(out), "-q", "--trails", str(trails), "-n", str(workers)], cwd=out,
                          capture_output=True, text=True, timeout=900)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pytest -n {workers} failed:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--skip-xdist", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-reuse-") as tmp:
        root = Path(tmp) / "shop"
        paths = make_workspace(root)
        print(f"{len(paths)} web trails, {args.rounds} rounds, {os.cpu_count()} CPUs, "
              f"load average {os.getloadavg()[0]:.1f}")
        per_trail: list[float] = []
        shared: list[float] = []
        for r in range(args.rounds):
            per_trail.append(run_runner(paths, Path(tmp) / f"a{r}", shared=False))
            shared.append(run_runner(paths, Path(tmp) / f"b{r}", shared=True))
            print(f"  round {r + 1}: browser per trail {per_trail[-1]:.2f} s, one browser {shared[-1]:.2f} s")
        a, b = statistics.median(per_trail), statistics.median(shared)
        print(f"browser reuse: {a:.2f} s → {b:.2f} s, speed-up {a / b:.2f}× (aim ≥ 1.3×)")
        if args.skip_xdist:
            return
        one: list[float] = []
        two: list[float] = []
        for r in range(args.rounds):
            one.append(run_pytest(root / "trails", Path(tmp) / f"n1-{r}", 1))
            two.append(run_pytest(root / "trails", Path(tmp) / f"n2-{r}", 2))
            print(f"  round {r + 1}: pytest -n 1 {one[-1]:.2f} s, -n 2 {two[-1]:.2f} s")
        c, d = statistics.median(one), statistics.median(two)
        print(f"pytest workers: -n 1 {c:.2f} s → -n 2 {d:.2f} s, speed-up {c / d:.2f}× (aim ≥ 1.6× on 2 cores)")
        print(f"load average now {os.getloadavg()[0]:.1f} (the machine is shared: ratios vary with it)")


if __name__ == "__main__":
    main()
