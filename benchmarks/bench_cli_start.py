"""CLI start-up: `trailblaze --version` (every workspace plugin installed) vs importing its libraries.

Usage: uv run python benchmarks/bench_cli_start.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time


def timed(cmd: list[str], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    ns = parser.parse_args()
    trailblaze = shutil.which("trailblaze") or sys.exit("trailblaze is not on PATH (run with `uv run`)")
    base = timed([sys.executable, "-c", "import click, pluggy, pydantic"], ns.repeat)
    version = timed([trailblaze, "--version"], ns.repeat)
    plugins = timed([trailblaze, "plugins"], ns.repeat)
    out = subprocess.run([trailblaze, "--version"], capture_output=True, text=True).stdout
    print(out.strip())
    print(f"baseline  python -c 'import click, pluggy, pydantic': {base * 1e3:6.0f} ms (median of {ns.repeat})")
    print(f"trailblaze --version:                                {version * 1e3:6.0f} ms  ratio {version / base:.2f} (aim <= 2.0)")
    print(f"trailblaze plugins (loads every plugin):             {plugins * 1e3:6.0f} ms  ratio {plugins / base:.2f}")


if __name__ == "__main__":
    main()
