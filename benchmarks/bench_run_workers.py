"""``trailblaze run -n 1`` against a plain ``trailblaze run``: the per-trail overhead of the worker path, and
``run -n 2``'s speed-up.

Each command is a subprocess timed wall clock and CPU (user + system of it and every process it waited
for: the workers, the browser), rounds alternated so machine load hits all alike:

- ``trailblaze run trails`` (one process, one browser): the baseline;
- ``trailblaze run trails -n 1``: the same through one pytest-xdist worker, then the workers' merge.

Each runs on two workspaces, one with twice the trails of the other (the six runnable example-shop trails
once and twice, ``bench_browser_reuse.make_workspace``; with ``--host``, 24 and 48 trails of one host
``wait`` step, no browser: the orchestration alone). A command's time per trail is the difference between
its two workspaces over the extra trails, so the start-up of its processes (paid once per run, whatever
the trails) drops out; the per-trail overhead of ``-n 1`` is its time per trail minus the plain run's
(aim ≤ 25 ms). The whole-run difference on the bigger workspace (start-up included) is printed too; both
figures also round by round, with their median (the rounds are paired: a drift in the machine's speed
moves both sides of a round alike, where a difference of medians mixes rounds). CPU is
the figure to trust on a shared machine; wall time there mostly measures the other processes.

Each run's timeline is read from the trails' own start and end times in its JSON summary (``timeline``):
the time before the first trail (``head``), after the last (``tail``), between two trails (``gap``) and
in one (``trail``). ``-n 1``'s gap over a plain run's is its per-trail cost outside the trails, a figure
the machine's load hardly moves, where the whole-run differences above swing by ±100 ms a trail.

Every command runs with a warm bytecode cache (``PYTHONPYCACHEPREFIX`` in the temporary directory, one
unmeasured warm-up run first), as on a developer's machine or a CI runner: with
``PYTHONDONTWRITEBYTECODE`` set, each of the processes ``-n 1`` starts would compile trailblaze,
pytest and pydantic from source, and the benchmark would measure the compiler.

With ``--instructions`` each command runs once per workspace under valgrind's callgrind instead
(``instructions.py``): the instructions it and its processes execute, which the machine's load does not
move, so two trees compare exactly; ``--python`` runs another tree's ``.venv/bin/python`` (its own
plugins and sources) to compare with.

    uv run python benchmarks/bench_run_workers.py [--rounds 2] [--host] [--speed-up]
    uv run python benchmarks/bench_run_workers.py --host --instructions [--python OTHER/.venv/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_browser_reuse import make_workspace  # noqa: E402
from instructions import available, instructions  # noqa: E402

COMMANDS = {"plain": [], "-n 1": ["-n", "1"]}
HOST_TRAIL = """\
config:
  id: t{n}
trail:
  - step: wait a moment
    recording:
      host:
        - wait: {{timeToWaitInSeconds: 0.01}}
"""


def host_workspace(root: Path, count: int) -> list[Path]:
    (root / "trails").mkdir(parents=True)
    paths = [root / "trails" / f"t{n:03d}.trail.yaml" for n in range(count)]
    for n, path in enumerate(paths):
        path.write_text(HOST_TRAIL.format(n=n))
    return paths


PYTHON = sys.executable


def _command(out: Path, extra: list[str]) -> list[str]:
    return [PYTHON, "-m", "trailblaze.cli", "run", "trails", "--output-dir", str(out), *extra]


def _passed(done: subprocess.CompletedProcess[str], trails: int) -> None:
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"Results: {trails} passed" in done.stdout, done.stdout[-2000:]


def timed(ws: Path, extra: list[str], out: Path, env: dict[str, str], trails: int) -> tuple[float, float]:
    """Wall and CPU seconds of one ``trailblaze run`` (CPU: it and the processes it waited for); its
    timeline (``timeline``) is kept in ``TIMELINES`` under ``out``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start, clock = time.perf_counter(), time.time()
    done = subprocess.run(_command(out, extra), cwd=ws, capture_output=True, text=True, check=False, env=env)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    _passed(done, trails)
    TIMELINES[out] = timeline(out, clock, clock + seconds)
    return seconds, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


TIMELINES: dict[Path, dict[str, float]] = {}


def timeline(out: Path, began: float, ended: float) -> dict[str, float]:
    """Where one run's wall time went, read from the trails' own start and end times in its JSON
    summary (ms): ``head``, process start to the first trail's start (interpreters, imports, workers,
    collection, the browser); ``tail``, the last trail's end to the process's exit (outputs, merge,
    shutdown); ``gap``, the mean time between one trail's end and the next one's start (what a run adds
    per trail outside the trails); ``trail``, the mean trail duration. Unlike a difference of two whole
    runs, the gap does not move with how long the trails themselves took on a loaded machine."""
    merged = out / "summary.json"  # ``-n``: the workers' merge; a plain run: its own summary under reports/
    summary = merged if merged.is_file() else max((out / "reports").glob("trailblaze_test_results_*.json"))
    rows = json.loads(summary.read_text())["results"]
    starts = sorted(r["started_at_epoch_ms"] for r in rows)
    ends = sorted(r["completed_at_epoch_ms"] for r in rows)
    gaps = [max(0, nxt - end) for end, nxt in zip(ends, starts[1:], strict=False)]
    return {"head": starts[0] - began * 1000, "tail": ended * 1000 - ends[-1],
            "gap": statistics.fmean(gaps) if gaps else 0.0,
            "trail": statistics.fmean(e - s for s, e in zip(starts, ends, strict=True))}


def counted(sizes: dict[str, Path], counts: dict[str, int], tmp: Path, env: dict[str, str]) -> None:
    """``--instructions``: each command once per workspace under callgrind, in millions of instructions."""
    found: dict[tuple[str, str], float] = {}
    for name, extra in COMMANDS.items():
        for label, ws in sizes.items():
            tag = f"{label}-{name.replace(' ', '')}"
            timed(ws, extra, tmp / f"out-warm-{tag}", env, counts[label])  # the bytecode cache
            done, total = instructions(_command(tmp / f"out-cg-{tag}", extra), env=env, cwd=ws)
            _passed(done, counts[label])
            found[name, label] = total / 1e6
            print(f"trailblaze run {name} ({counts[label]} trails): {total / 1e6:,.0f} M instructions")
    extra_trails = counts["big"] - counts["small"]
    per_trail = {name: (found[name, "big"] - found[name, "small"]) / extra_trails for name in COMMANDS}
    fixed = {name: found[name, "small"] - per_trail[name] * counts["small"] for name in COMMANDS}
    for name in COMMANDS:
        print(f"{name}: {per_trail[name]:.1f} M instructions per trail (start-up excluded), "
              f"{fixed[name]:,.0f} M at start-up and exit")
    print(f"-n 1 overhead per trail against a plain run: {per_trail['-n 1'] - per_trail['plain']:.1f} M "
          f"instructions (start-up excluded); over the whole run of {counts['big']} trails "
          f"{(found['-n 1', 'big'] - found['plain', 'big']) / counts['big']:.1f} M per trail; "
          f"start-up and exit {fixed['-n 1'] - fixed['plain']:,.0f} M more")


Times = dict[tuple[str, str], list[tuple[float, float]]]


def _excluded(times: Times, counts: dict[str, int], r: int, i: int) -> float:
    """Round ``r``'s overhead per extra trail (ms; ``i``: 0 wall, 1 CPU), start-up cancelled out."""
    extra = counts["big"] - counts["small"]
    ours = times["-n 1", "big"][r][i] - times["-n 1", "small"][r][i]
    plain = times["plain", "big"][r][i] - times["plain", "small"][r][i]
    return (ours - plain) / extra * 1000


def _whole(times: Times, counts: dict[str, int], r: int, i: int) -> float:
    """Round ``r``'s whole-run difference per trail of the bigger workspace (ms), start-up included."""
    return (times["-n 1", "big"][r][i] - times["plain", "big"][r][i]) / counts["big"] * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--host", action="store_true", help="24 and 48 host trails (no browser) instead of 6 and 12 "
                        "web trails")
    parser.add_argument("--speed-up", action="store_true", help="also time -n 2 on the bigger workspace")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions under callgrind instead of timing (once per command and "
                             "workspace; the load hardly moves them)")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter to run trailblaze with (another tree's .venv/bin/python)")
    args = parser.parse_args()
    if args.instructions and not available():
        sys.exit("--instructions needs valgrind (Debian: apt-get install valgrind)")
    global PYTHON
    PYTHON = args.python
    commands = {**COMMANDS, **({"-n 2": ["-n", "2"]} if args.speed_up else {})}
    with tempfile.TemporaryDirectory() as tmp:
        sizes: dict[str, Path] = {}
        counts: dict[str, int] = {}
        for label, copies in (("small", 1), ("big", 2)):
            ws = Path(tmp) / f"ws-{label}"
            paths = host_workspace(ws, 24 * copies) if args.host else make_workspace(ws, copies=copies)
            sizes[label], counts[label] = ws, len(paths)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        if args.instructions:
            counted(sizes, counts, Path(tmp), env)
            return
        timed(sizes["small"], COMMANDS["-n 1"], Path(tmp) / "out-warm-up", env, counts["small"])
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for r in range(args.rounds):
            order = list(commands) if r % 2 == 0 else list(reversed(commands))
            for name in order:
                for label in (("small", "big") if name != "-n 2" else ("big",)):
                    out = Path(tmp) / f"out-{r}-{label}-{name.replace(' ', '')}"
                    times.setdefault((name, label), []).append(
                        timed(sizes[label], commands[name], out, env, counts[label]))
    med = {key: (statistics.median(v[0] for v in values), statistics.median(v[1] for v in values))
           for key, values in times.items()}
    extra = counts["big"] - counts["small"]
    for (name, label), values in times.items():
        print(f"trailblaze run {name} ({counts[label]} trails): median {med[name, label][0]:.1f} s wall, "
              f"{med[name, label][1]:.2f} s CPU (walls {', '.join(f'{v[0]:.1f}' for v in values)}; "
              f"CPUs {', '.join(f'{v[1]:.2f}' for v in values)})")
    per_trail = {name: [(med[name, "big"][i] - med[name, "small"][i]) / extra * 1000 for i in (0, 1)]
                 for name in COMMANDS}
    for name, (wall, cpu) in per_trail.items():
        print(f"{name}: {wall:.0f} ms wall, {cpu:.0f} ms CPU per trail (start-up excluded)")
    wall, cpu = (per_trail["-n 1"][i] - per_trail["plain"][i] for i in (0, 1))
    print(f"-n 1 overhead per trail against a plain run: {wall:.0f} ms wall, {cpu:.0f} ms CPU (aim ≤ 25 ms; "
          "process start-up excluded)")
    whole = [(med["-n 1", "big"][i] - med["plain", "big"][i]) / counts["big"] * 1000 for i in (0, 1)]
    print(f"-n 1 against plain over the whole run of {counts['big']} trails, start-up included: {whole[0]:.0f} ms "
          f"wall, {whole[1]:.0f} ms CPU per trail")
    # The same two figures round by round (a round's commands run within a minute or two, so a machine whose
    # speed drifts over the benchmark moves both sides of a round alike), then their median.
    for label, per_round in (("start-up excluded", _excluded), ("whole run", _whole)):
        rounds = range(len(times["plain", "big"]))
        walls, cpus = ([per_round(times, counts, r, i) for r in rounds] for i in (0, 1))
        print(f"-n 1 overhead per trail, {label}, round by round: "
              f"wall {', '.join(f'{w:.0f}' for w in walls)} ms (median {statistics.median(walls):.0f}); "
              f"CPU {', '.join(f'{c:.0f}' for c in cpus)} ms (median {statistics.median(cpus):.0f})")
    # The trails' own clocks (``timeline``), on the bigger workspace: the per-trail figure the load moves least.
    lines = {name: [TIMELINES[Path(tmp) / f"out-{r}-big-{name.replace(' ', '')}"] for r in range(args.rounds)]
             for name in COMMANDS}
    for name, found in lines.items():
        print(f"{name} on {counts['big']} trails, from the trails' own times (medians over rounds): "
              + ", ".join(f"{key} {statistics.median(t[key] for t in found):.0f} ms"
                          for key in ("head", "tail", "gap", "trail")))
    gap = [n["gap"] - p["gap"] for n, p in zip(lines["-n 1"], lines["plain"], strict=True)]
    trail = [n["trail"] - p["trail"] for n, p in zip(lines["-n 1"], lines["plain"], strict=True)]
    print(f"-n 1 over plain per trail, from the trails' own times, round by round: between trails "
          f"{', '.join(f'{g:+.1f}' for g in gap)} ms (median {statistics.median(gap):+.1f}); within a trail "
          f"{', '.join(f'{t:+.0f}' for t in trail)} ms (median {statistics.median(trail):+.0f}; the trails' "
          "own speed, which the load moves)")
    if args.speed_up:
        print(f"-n 2 vs -n 1 speed-up: {med['-n 1', 'big'][0] / med['-n 2', 'big'][0]:.2f}x wall")


if __name__ == "__main__":
    main()
