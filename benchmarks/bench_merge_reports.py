"""``trailblaze merge-reports`` at suite scale, and the merged report in headless Chromium.

Generates 100 result bundles × 100 trails (10,000 trails, 5 % failing, 3 steps each, no screenshots;
``--retried 0.05``: that share of the trails ran 3 attempts, the first two failed, so one line each),
then measures, each as its own ``trailblaze merge-reports`` process (wall and CPU time, peak RSS):

- 1 bundle (the fixed cost), 10 bundles (1,000 trails) and 100 bundles (10,000 trails): seconds, and
  CPU µs per trail beyond the fixed cost, which should stay roughly constant. CPU time is printed
  beside wall time because on a shared machine the wall time mostly measures the other processes;
- the baseline, in this process: reading every ``results.jsonl`` and writing them back as one JSON file
  (the least any merge has to do), for the ratio.

Then opens the 10,000-trail ``report.html`` with Playwright (the system Chromium when
``TRAILBLAZE_CHROMIUM`` is set): load to the first trail row, a search, an outcome filter.

Then a folder of many small bundles (``--folder 2000``: 2 trails each, as a CI job that downloads one
artifact per matrix job), merged by passing the folder, as 200 and as 2,000 bundles: wall and CPU time
per bundle, which stays the same when the merge is linear in the bundles (comparing every pair of
bundles made 2,000 take 29 s).

Aims (issue 23): ≤ 5 s and ≤ 500 MB for 10,000 trails; first row ≤ 1.5 s; a filter or search ≤ 200 ms;
(issue 33) ≤ 2 s for 10,000 trails with 3 attempts on 5 % of them; time per bundle at 2,000 within
noise of the time per bundle at 200.

With ``--before SRC`` (another tree's ``trailblaze-core/src``), the 10,000-trail merge of that tree and of
this one, alternated ``--rounds`` times: medians side by side, wall and CPU.

With ``--instructions``, the one-bundle and the 10,000-trail merge (and ``--before``'s) run once each under
valgrind's callgrind instead (``instructions.py``): the instructions each process executes, which the
machine's load does not move, so two trees compare exactly where their times swing by ±40 %.

    uv run python benchmarks/bench_merge_reports.py [--bundles 100] [--trails 100] [--folder 2000] [--no-browser]
        [--before /tmp/before/trailblaze-core/src --rounds 3] [--instructions]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from instructions import available, instructions  # noqa: E402
from trailblaze.report.bundle import (  # noqa: E402
    FORMAT,
    MANIFEST,
    RESULTS,
    VERSION,
    BundleManifest,
    StepRecord,
    TrailRecord,
    write_json,
    write_records,
)


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""Every ``merge-reports`` process runs with a warm bytecode cache (``PYTHONPYCACHEPREFIX``, set in
``main``; one unmeasured merge of each tree first), as on a developer's machine or a CI runner: with
``PYTHONDONTWRITEBYTECODE`` set (as on this VM), each process compiled trailblaze, pydantic and every
plugin from source, about a second of CPU that the fixed cost and every figure included."""


def generate(root: Path, bundles: int, trails: int, retried: float = 0.0) -> list[Path]:
    rng = random.Random(23)
    out = []
    start = 1_790_000_000.0
    for b in range(bundles):
        bundle = root / f"shard-{b + 1:03d}"
        records = []
        clock = start
        for t in range(trails):
            failed = rng.random() < 0.05
            ms = int(rng.uniform(100, 3000))
            tool = rng.choice(["web_click", "web_type", "tapOnElementBySelector"])
            records.append(TrailRecord(
                key=f"trails/area-{t % 17}/trail-{b:03d}-{t:03d}.trail.yaml", title=f"Trail {b}-{t}",
                trail_source=f"trails/area-{t % 17}/trail-{b:03d}-{t:03d}.trail.yaml", trail_id=f"t{b}-{t}",
                device=["web", "android/emulator-5554", "ios/sim-1"][t % 3], driver="playwright-native",
                platform="web", classifier="web", tags=["smoke"] if t % 4 == 0 else ["regression"],
                outcome="Failed" if failed else "Succeeded", exit_code=1 if failed else 0,
                message=(f"step 2 \"Sign in\": tool '{tool}' (trails/t{t}.trail.yaml:{t}:9) {{\"ref\": \"e{t}\"}} "
                         f"failed: no element matches 'Sign in' within {rng.randint(1, 9)}000 ms") if failed else None,
                failure_kind="ToolFailure" if failed else None, failed_tool=tool if failed else None,
                session_id=f"2026_01_01_00_00_00_t{b}_{t}", started_at=clock, completed_at=clock + ms / 1000,
                duration_ms=ms, log_dir=f"2026_01_01_00_00_00_t{b}_{t}",
                steps=[StepRecord(number=i, kind="step", text=f"step {i} of trail {t}", mode="replay",
                                  success=not (failed and i == 2), duration_ms=ms // 3) for i in range(1, 4)],
                shard=f"{b + 1}/{bundles}"))
            if rng.random() < retried:  # attempts 1 and 2 failed, before the result above
                last = records.pop()
                records += [last.model_copy(update={"attempt": n, "last": False, "outcome": "Failed", "exit_code": 1,
                                                    "message": "step 1: timed out", "failure_kind": "ToolFailure"})
                            for n in (1, 2)]
                records.append(last.model_copy(update={"attempt": 3}))
            clock += ms / 1000
        manifest = BundleManifest(run_id="bench", shard=f"{b + 1}/{bundles}", started_at=start, completed_at=clock,
                                  counts={"total": trails}, files={"results": RESULTS})
        assert manifest.format == FORMAT and manifest.version == VERSION
        write_records(bundle / RESULTS, records)
        write_json(bundle / MANIFEST, manifest.model_dump(mode="json"))
        out.append(bundle)
    return out


def folder(root: Path, count: int) -> Path:
    """``count`` small bundles (2 trails each) in one folder, the way a CI merge job downloads them."""
    generate(root, count, 2)
    return root


def _merge_command(bundles: list[Path], output: Path) -> list[str]:
    return [sys.executable, "-m", "trailblaze.cli", "merge-reports", *map(str, bundles),
            "--output-dir", str(output), "--junit-xml", str(output / "junit.xml")]


def counted(bundles: list[Path], root: Path, before: str | None) -> None:
    """``--instructions``: the one-bundle and the whole merge of this tree (and ``before``'s), counted."""
    found: dict[str, dict[str, float]] = {}
    for name, source in (("this tree", None), *((("before", before),) if before else ())):
        env = {**ENV, "PYTHONPATH": source} if source else ENV
        for label, chosen in (("one bundle", bundles[:1]), ("all", bundles)):
            out = root / f"cg-{name.replace(' ', '-')}-{label.replace(' ', '-')}"
            done, total = instructions(_merge_command(chosen, out), env=env)
            assert done.returncode in (0, 1), done.stdout + done.stderr
            found.setdefault(name, {})[label] = total / 1e6
        print(f"{name}: merge-reports of one bundle {found[name]['one bundle']:,.0f} M instructions, "
              f"of all {found[name]['all']:,.0f} M")
    if before:
        for label in ("one bundle", "all"):
            print(f"{label}: this tree / before {found['this tree'][label] / found['before'][label]:.3f}")


def merge(bundles: list[Path], output: Path, source: str | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system: what the process itself needs, whatever else loads the
    machine) and peak RSS (MB) of one ``trailblaze merge-reports`` process; ``source``: another tree's
    ``trailblaze-core/src`` to run instead of the installed one (``--before``)."""
    env = {**ENV, "PYTHONPATH": source} if source else ENV
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(_merge_command(bundles, output), capture_output=True, text=True, check=False,
                          env=env)
    seconds = time.perf_counter() - t0
    assert done.returncode in (0, 1), done.stdout + done.stderr
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return seconds, cpu, after.ru_maxrss / 1024


def baseline(bundles: list[Path], output: Path) -> float:
    t0 = time.perf_counter()
    rows = [json.loads(line) for b in bundles for line in (b / RESULTS).read_text().splitlines()]
    output.write_text(json.dumps(rows), encoding="utf-8")
    return time.perf_counter() - t0


def browse(report: Path) -> tuple[float, float, float]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("TRAILBLAZE_CHROMIUM") or None)
        try:
            page = browser.new_page()
            page.goto(report.as_uri(), wait_until="commit")
            page.wait_for_selector("#rows tr")
            first_row = page.evaluate("performance.now()") / 1000
            search = page.evaluate("""() => {const el=document.getElementById('search'),t=performance.now();
              el.value='sign in';el.dispatchEvent(new Event('input'));return performance.now()-t;}""")
            outcome = page.evaluate("""() => {const el=document.getElementById('f-outcome'),t=performance.now();
              el.value='failed';el.dispatchEvent(new Event('change'));return performance.now()-t;}""")
            assert page.locator("#rows tr").count() > 0
        finally:
            browser.close()
    return first_row, search, outcome


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bundles", type=int, default=100)
    parser.add_argument("--trails", type=int, default=100)
    parser.add_argument("--retried", type=float, default=0.05, help="share of trails with 3 attempts")
    parser.add_argument("--folder", type=int, default=2000, help="small bundles in one folder (0: skip)")
    parser.add_argument("--no-browser", action="store_true", help="skip the report in Chromium")
    parser.add_argument("--before", metavar="SRC", help="another tree's trailblaze-core/src (e.g. a `git archive` "
                        "of the commit before a change): its merge of all the bundles, alternated with this tree's "
                        "--rounds times, medians printed side by side (the machine's load hits both alike)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the --before comparison")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions under callgrind instead of timing: one bundle and all "
                             "of them, this tree and --before's (the load hardly moves them)")
    args = parser.parse_args()
    if args.instructions and not available():
        sys.exit("--instructions needs valgrind (Debian: apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ENV["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        bundles = generate(root / "in", args.bundles, args.trails, args.retried)
        for source in (None, args.before) if args.before else (None,):
            merge(bundles[:1], root / f"m-warm-up-{'before' if source else 'this'}", source)  # the bytecode cache
        if args.instructions:
            counted(bundles, root, args.before)
            return
        small = bundles[: max(1, args.bundles // 10)]
        n_small, n_all = len(small) * args.trails, len(bundles) * args.trails
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "trailblaze.cli", "--version"], capture_output=True, check=True, env=ENV)
        start_s = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        start_cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        one_s, one_cpu, _ = merge(bundles[:1], root / "m-one")  # the fixed cost: imports, set-up
        small_s, small_cpu, _ = merge(small, root / "m-small")
        all_s, all_cpu, rss = merge(bundles, root / "m-all")
        base_s = baseline(bundles, root / "baseline.json")
        size = (root / "m-all" / "report.html").stat().st_size
        print(f"process start (trailblaze --version): {start_s:.2f} s, {start_cpu:.2f} s CPU; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"merge-reports of one bundle ({args.trails} trails, the fixed cost): {one_s:.2f} s wall, "
              f"{one_cpu:.2f} s CPU")
        for n, sec, cpu in ((n_small, small_s, small_cpu), (n_all, all_s, all_cpu)):
            print(f"merge-reports {n:,} trails: {sec:.2f} s wall, {cpu:.2f} s CPU ({sec / n * 1e6:.0f} µs/trail; "
                  f"{(cpu - one_cpu) / (n - args.trails) * 1e6:.0f} µs CPU per trail beyond the fixed cost)")
        print(f"peak RSS of the {n_all:,}-trail merge: {rss:.0f} MB (aim ≤ 5 s, ≤ 500 MB)")
        print(f"baseline (read every results.jsonl, write one JSON): {base_s:.2f} s; ratio {all_s / base_s:.1f} "
              "(includes process start, summary, JUnit and HTML)")
        print(f"report.html: {size / 1e6:.1f} MB ({size / n_all:.0f} bytes/trail)")
        if args.before:
            runs: dict[str, list[tuple[float, float, float]]] = {"before": [], "this tree": []}
            for r in range(args.rounds):
                for name in (("before", "this tree") if r % 2 == 0 else ("this tree", "before")):
                    source = args.before if name == "before" else None
                    runs[name].append(merge(bundles, root / f"m-cmp-{r}-{name.replace(' ', '-')}", source))
            for name, found in runs.items():
                wall, cpu = statistics.median(x[0] for x in found), statistics.median(x[1] for x in found)
                print(f"{name}: merge-reports {n_all:,} trails: median {wall:.2f} s wall, {cpu:.2f} s CPU "
                      f"(walls {', '.join(f'{x[0]:.2f}' for x in found)}; CPUs {', '.join(f'{x[1]:.2f}' for x in found)})")
        if not args.no_browser:
            first_row, search, outcome = browse(root / "m-all" / "report.html")
            print(f"Chromium: first trail row {first_row:.2f} s (aim ≤ 1.5 s); search {search:.0f} ms, "
                  f"outcome filter {outcome:.0f} ms (aim ≤ 200 ms)")
        if args.folder:
            per_bundle = []
            for count in sorted({max(1, args.folder // 10), args.folder}):
                where = folder(root / f"folder-{count}", count)
                sec, cpu, _ = merge([where], root / f"m-folder-{count}")
                per_bundle.append((count, sec, cpu))
                print(f"merge-reports of a folder of {count:,} small bundles: {sec:.2f} s wall, {cpu:.2f} s CPU "
                      f"({sec / count * 1000:.1f} ms wall, {cpu / count * 1000:.1f} ms CPU per bundle)")
            (n1, _, c1), (n2, _, c2) = per_bundle[0], per_bundle[-1]
            print(f"CPU per bundle at {n2:,} / at {n1:,}: {(c2 / n2) / (c1 / n1):.2f} (linear: about 1; "
                  "the fixed cost of a process makes the smaller folder dearer per bundle)")


if __name__ == "__main__":
    main()
