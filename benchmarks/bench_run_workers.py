"""``trailblaze run -n 2`` against ``-n 1`` and against plain ``trailblaze run`` on 12 web trails.

The six runnable example-shop trails twice each (``bench_browser_reuse.make_workspace``), each command a
subprocess timed wall clock, start-up included, rounds alternated so machine load hits all alike:

- ``trailblaze run trails`` (one process, one browser): the baseline;
- ``trailblaze run trails -n 1``: the same through one pytest-xdist worker, then the workers' merge —
  (its time − the baseline's) / 12 is the per-trail orchestration overhead of ``-n`` (aim ≤ 50 ms);
- ``trailblaze run trails -n 2``: the speed-up over ``-n 1`` on this machine.

Every command runs with a warm bytecode cache (``PYTHONPYCACHEPREFIX`` in the temporary directory, one
unmeasured warm-up run first), as on a developer's machine or a CI runner: with
``PYTHONDONTWRITEBYTECODE`` set, each of the three processes ``-n 1`` starts would compile trailblaze,
pytest and pydantic from source, and the benchmark would measure the compiler.

    uv run python benchmarks/bench_run_workers.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_browser_reuse import make_workspace  # noqa: E402

COMMANDS = {"plain": [], "-n 1": ["-n", "1"], "-n 2": ["-n", "2"]}


def timed(ws: Path, extra: list[str], out: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", "trails", "--output-dir", str(out), *extra],
                          cwd=ws, capture_output=True, text=True, check=False, env=env)
    seconds = time.perf_counter() - start
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Results: 12 passed" in done.stdout, done.stdout[-2000:]
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        trails = make_workspace(ws)
        assert len(trails) == 12
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        timed(ws, COMMANDS["-n 1"], Path(tmp) / "out-warm-up", env)
        for r in range(args.rounds):
            order = list(COMMANDS) if r % 2 == 0 else list(reversed(COMMANDS))
            for name in order:
                times[name].append(timed(ws, COMMANDS[name], Path(tmp) / f"out-{r}-{name.replace(' ', '')}", env))
    med = {name: statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        print(f"trailblaze run {name or ''}: median {med[name]:.1f} s ({', '.join(f'{v:.1f}' for v in values)})")
    print(f"-n 2 vs -n 1 speed-up: {med['-n 1'] / med['-n 2']:.2f}x")
    print(f"-n 1 overhead against plain run: {(med['-n 1'] - med['plain']) / 12 * 1000:.0f} ms per trail "
          "(aim ≤ 50 ms; pytest and one worker's start-up and the merge included)")


if __name__ == "__main__":
    main()
