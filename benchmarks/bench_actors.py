"""Several devices in one trail (issue 35): a ``parallel:`` block, and the start-up of a second web actor.

Two comparisons, each against its own baseline in this one process, rounds alternated:

1. A trail whose ``parallel:`` block has two children (two web actors) that each wait 2 s, against the
   same steps one after the other, through ``trailblaze run``'s runner. The block is timed by the order
   and time a loopback server saw each child's start and end marks (the steps, not the browsers' start);
   the whole trail is printed too. Aim: block ≤ 0.6 of the sequence.
2. A second web actor's start-up in the browser the first already runs, through the driver's own code
   (``BrowserSession`` with the ``KeptSeat`` the web driver takes on an actor thread) on the runner's
   actor threads (``runner.crew.ActorThreads``), against Playwright's own ``browser.new_context()`` +
   ``new_page()`` on that open browser (on its thread). What a user pays differs between the trails of a
   run, so both are printed: in the *first* trail of a run (or of a device thread, or a pytest worker)
   the actors' threads are new: each starts Playwright (its node driver process), the first launches
   Chromium and the second connects to it over CDP; in every *later* trail the run lends the same
   threads again, each with its Playwright and its hold on that Chromium, so the second actor pays its
   context and page. Also printed, for both: what the second actor adds when both actors open at once
   as the runner opens them (two actors minus one, wall clock until the last page). Aim: ≤ 1.2 (later
   trails; the first trail's figure is printed beside it, not hidden).

    uv run python benchmarks/bench_actors.py [--rounds 3] [--only parallel|startup]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import wait
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TypeVar
from urllib.parse import parse_qs, urlparse

T = TypeVar("T")

WAIT = "{web_wait: {seconds: 2}}"


class Marks:
    """A loopback page that notes when each ``/mark?e=NAME`` arrived."""

    def __init__(self) -> None:
        self.seen: dict[str, float] = {}
        marks = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                name = parse_qs(urlparse(self.path).query).get("e", ["?"])[0]
                marks.seen[name] = time.perf_counter()
                data = b"<!doctype html><p>ok</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def mark(self, name: str) -> str:
        return f"{{web_navigate: {{url: '{self.url}/mark?e={name}'}}}}"


def trail_text(marks: Marks, parallel: bool) -> str:
    alice = f"[{marks.mark('start-alice')}, {WAIT}, {marks.mark('end-alice')}]"
    bob = f"[{marks.mark('start-bob')}, {WAIT}, {marks.mark('end-bob')}]"
    if parallel:
        body = (f"  - parallel:\n      - step: Alice waits\n        actor: alice\n        recording: {{web: {alice}}}\n"
                f"      - step: Bob waits\n        actor: bob\n        recording: {{web: {bob}}}\n")
    else:
        body = (f"  - step: Alice waits\n    actor: alice\n    recording: {{web: {alice}}}\n"
                f"  - step: Bob waits\n    actor: bob\n    recording: {{web: {bob}}}\n")
    return f"config:\n  title: Two waits\n  actors: {{alice: web, bob: web}}\ntrail:\n{body}"


def run_trail(path: Path, out: Path, marks: Marks) -> tuple[float, float]:
    """(the steps: first start mark to last end mark, the whole trail) in seconds."""
    from trailblaze.runner import RunOptions
    from trailblaze.runner.progress import QuietProgress
    from trailblaze.runner.run import Runner

    marks.seen.clear()
    runner = Runner(RunOptions(output_dir=out, report=False, logging=True, save_recording=False),
                    progress=QuietProgress())
    start = time.perf_counter()
    result = runner.run_trail(path)
    whole = time.perf_counter() - start
    if result is None or not result.passed:
        raise SystemExit(f"{path.name} failed: {getattr(result, 'message', None)}")
    seen = marks.seen
    steps = max(seen["end-alice"], seen["end-bob"]) - min(seen["start-alice"], seen["start-bob"])
    return steps, whole


def bench_parallel(rounds: int, tmp: Path) -> None:
    from trailblaze.reuse import reuse_scope

    marks = Marks()
    block, sequence = tmp / "parallel.trail.yaml", tmp / "sequence.trail.yaml"
    block.write_text(trail_text(marks, True), encoding="utf-8")
    sequence.write_text(trail_text(marks, False), encoding="utf-8")
    par: list[tuple[float, float]] = []
    seq: list[tuple[float, float]] = []
    with reuse_scope():  # as in ``trailblaze run``: the run's actor threads are kept between its trails
        run_trail(block, tmp / "warm", marks)  # tools, imports and the threads' start outside the timings
        for r in range(rounds):
            par.append(run_trail(block, tmp / f"p{r}", marks))
            seq.append(run_trail(sequence, tmp / f"s{r}", marks))
            print(f"  round {r + 1}: parallel steps {par[-1][0]:.2f} s (trail {par[-1][1]:.2f} s), "
                  f"in sequence {seq[-1][0]:.2f} s (trail {seq[-1][1]:.2f} s)")
    p_steps, s_steps = statistics.median(x[0] for x in par), statistics.median(x[0] for x in seq)
    p_whole, s_whole = statistics.median(x[1] for x in par), statistics.median(x[1] for x in seq)
    print(f"parallel block: {p_steps:.2f} s vs {s_steps:.2f} s in sequence, ratio {p_steps / s_steps:.2f} "
          f"(aim ≤ 0.6); whole trails {p_whole:.2f} vs {s_whole:.2f} s, ratio {p_whole / s_whole:.2f}")


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def bench_startup(rounds: int) -> None:
    from trailblaze import ActorShare
    from trailblaze.runner.crew import ActorThread, ActorThreads

    from trailblaze_driver_web.actor_browser import KeptSeat
    from trailblaze_driver_web.browser_session import BrowserSession
    from trailblaze_driver_web.config import WebDriverConfig
    from trailblaze_driver_web.connection import browser_key

    cfg = WebDriverConfig()
    key = browser_key(cfg)
    context_options = {"viewport": {"width": cfg.viewport.width, "height": cfg.viewport.height}}

    def seat(pool: ActorThreads, names: list[str], name: str) -> KeptSeat:
        """The seat the web driver takes on an actor thread (``PlaywrightDriver._actor_seat``)."""
        return KeptSeat(ActorShare({n: "playwright-native" for n in names}, run=pool.share), key, name)

    def close_all(pairs: list[tuple[ActorThread, BrowserSession]]) -> None:
        """Each session closed on its thread, at once, as the runner does."""
        wait([thread.submit(session.close) for thread, session in pairs])

    def one_by_one(pool: ActorThreads, threads: list[ActorThread]) -> tuple[float, float]:
        """A trail's two web actors, alice first, then bob: (bob's start-up, ``new_context()`` +
        ``new_page()`` on alice's browser), each on its actor's thread."""
        names = ["alice", "bob"]
        alice, bob = BrowserSession(cfg, lambda _page: None), BrowserSession(cfg, lambda _page: None)
        try:
            threads[0].submit(lambda: (alice.open(context_options, seat(pool, names, "alice")),
                                       alice.open_page())).result()

            def playwright_context() -> None:
                assert alice.browser is not None
                context = alice.browser.new_context(**context_options)
                context.new_page()
                context.close()

            def open_bob() -> None:
                bob.open(context_options, seat(pool, names, "bob"))
                bob.open_page()

            baseline = threads[0].submit(lambda: timed(playwright_context)).result()
            ours = threads[1].submit(lambda: timed(open_bob)).result()
        finally:
            close_all([(threads[0], alice), (threads[1], bob)])
        return ours, baseline

    def together(pool: ActorThreads, threads: list[ActorThread]) -> float:
        """The trail's web actors (one per thread) opened at once: the time until the last has its page."""
        names = [f"actor{i}" for i in range(len(threads))]
        sessions = [BrowserSession(cfg, lambda _page: None) for _ in threads]

        def open_one(session: BrowserSession, name: str) -> None:
            session.open(context_options, seat(pool, names, name) if len(threads) > 1 else None)
            session.open_page()

        try:
            start = time.perf_counter()
            wait([t.submit(open_one, s, n) for t, s, n in zip(threads, sessions, names)])
            return time.perf_counter() - start
        finally:
            close_all(list(zip(threads, sessions)))

    def first_trail(work: Callable[[ActorThreads, list[ActorThread]], T], count: int = 2) -> T:
        """``work`` on the threads of a new run: each starts its Playwright, and the browser is launched,
        in this trail."""
        pool = ActorThreads()
        try:
            return work(pool, pool.lease([f"actor{i}" for i in range(count)]))
        finally:
            pool.close()

    kept = ActorThreads()  # a run's threads, kept between its trails
    threads = kept.lease(["alice", "bob"])
    first_pairs: list[tuple[float, float]] = []
    later_pairs: list[tuple[float, float]] = []
    first_marginal: list[float] = []
    later_marginal: list[float] = []
    try:
        one_by_one(kept, threads)  # warm-up, and the kept threads' first trail: Playwright and Chromium start
        together(kept, threads[:1])  # (a lone actor's browser, kept by its thread like a single-device run's)
        for r in range(rounds):
            later_pairs.append(one_by_one(kept, threads))
            first_pairs.append(first_trail(one_by_one))
            later_marginal.append(together(kept, threads) - together(kept, threads[:1]))
            first_marginal.append(first_trail(together) - first_trail(together, 1))
            (lo, lb), (fo, fb) = later_pairs[-1], first_pairs[-1]
            print(f"  round {r + 1}: later trail: second actor {lo * 1000:.0f} ms vs new_context {lb * 1000:.0f} ms; "
                  f"first trail: {fo * 1000:.0f} ms vs {fb * 1000:.0f} ms; opened at once, the second adds "
                  f"{later_marginal[-1] * 1000:.0f} ms (later) / {first_marginal[-1] * 1000:.0f} ms (first)")
    finally:
        kept.close()
    lo, lb = statistics.median(p[0] for p in later_pairs), statistics.median(p[1] for p in later_pairs)
    fo, fb = statistics.median(p[0] for p in first_pairs), statistics.median(p[1] for p in first_pairs)
    print(f"second actor start-up, later trails of a run: {lo * 1000:.0f} ms vs Playwright's new_context() + "
          f"new_page() {lb * 1000:.0f} ms, ratio {lo / lb:.2f} (aim ≤ 1.2)")
    print(f"second actor start-up, first trail of a run (its thread starts Playwright and connects to the "
          f"browser): {fo * 1000:.0f} ms vs {fb * 1000:.0f} ms, ratio {fo / fb:.2f}")
    lm, fm = statistics.median(later_marginal), statistics.median(first_marginal)
    print(f"opened at once as the runner does (2 actors minus 1): the second adds {lm * 1000:.0f} ms in later trails "
          f"(ratio {lm / lb:.2f}), {fm * 1000:.0f} ms in the first (ratio {fm / fb:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=["parallel", "startup"])
    args = parser.parse_args()
    print(f"{args.rounds} rounds, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="bench-actors-") as tmp:
        if args.only in (None, "parallel"):
            bench_parallel(args.rounds, Path(tmp))
        if args.only in (None, "startup"):
            bench_startup(args.rounds)
    print(f"load average now {os.getloadavg()[0]:.1f} (the machine is shared: ratios vary with it)")


if __name__ == "__main__":
    main()
