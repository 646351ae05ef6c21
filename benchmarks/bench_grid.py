"""A web trail through a Selenium Grid 4 hub against the same trail on a local browser, and two trails
queued on a one-slot Grid.

A standalone Grid on loopback (tests/selenium_grid.py: the npm jar, Debian's Java and chromedriver; one
Chromium slot) is started once, outside the timings. Each command is a ``trailblaze run`` subprocess,
timed wall clock, start-up included, rounds alternated so machine load hits both alike:

- ``trailblaze run sign-in.trail.yaml``: the baseline (local Chromium);
- the same with ``-o grid_url=…``: (its time − the baseline's) is the hub's cost per trail (the
  session request, the node starting chromedriver and Chromium, DevTools through the hub's proxy);
- two such runs started together on the one slot: the second waits in the hub's queue until the
  first's browser closes; (their wall time − one run's) is the queue's wait.

    uv run python benchmarks/bench_grid.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from selenium_grid import grid_tools, start_standalone  # noqa: E402

TRAIL = REPO / "examples" / "web-shop" / "trails" / "sign-in.trail.yaml"


def command(out: Path, grid: str | None) -> list[str]:
    extra = ["-o", f"grid_url={grid}"] if grid else []
    return [sys.executable, "-m", "trailblaze.cli", "run", str(TRAIL), "--output-dir", str(out), *extra]


def timed(*commands: list[str]) -> float:
    """Wall time until every command (started together) has finished; each must pass."""
    start = time.perf_counter()
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for cmd in commands]
    outputs = [proc.communicate()[0] for proc in procs]
    seconds = time.perf_counter() - start
    for proc, output in zip(procs, outputs):
        assert proc.returncode == 0 and "Results: 1 passed" in output, output[-2000:]
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    tools = grid_tools()
    if isinstance(tools, str):
        sys.exit(tools)
    times: dict[str, list[float]] = {"local": [], "grid": [], "two queued": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        grid = start_standalone(tools, root / "grid", slots=1)
        print(f"Grid ready in {time.perf_counter() - started:.1f} s (not counted)")
        try:
            timed(command(root / "warm-up", grid.url))  # the node's first chromedriver start, bytecode
            for r in range(args.rounds):
                order = list(times) if r % 2 == 0 else list(reversed(times))
                for name in order:
                    out = root / f"{r}-{name.replace(' ', '-')}"
                    if name == "local":
                        times[name].append(timed(command(out, None)))
                    elif name == "grid":
                        times[name].append(timed(command(out, grid.url)))
                    else:
                        times[name].append(timed(command(out / "a", grid.url), command(out / "b", grid.url)))
        finally:
            grid.stop()
    med = {name: statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        print(f"{name}: median {med[name]:.1f} s ({', '.join(f'{v:.1f}' for v in values)})")
    print(f"the hub's cost per trail: {med['grid'] - med['local']:+.1f} s ({med['grid'] / med['local']:.2f}x local)")
    print(f"the queue's wait (two runs on one slot against one run): {med['two queued'] - med['grid']:.1f} s")


if __name__ == "__main__":
    main()
