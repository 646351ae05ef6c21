"""Several devices in one trail (issue 35): a ``parallel:`` block, and the start-up of a second web actor.

Two comparisons, each against its own baseline in this one process, rounds alternated:

1. A trail whose ``parallel:`` block has two children (two web actors) that each wait 2 s, against the
   same steps one after the other, through ``trailblaze run``'s runner. The block is timed by the order
   and time a loopback server saw each child's start and end marks (the steps, not the browsers' start);
   the whole trail is printed too. Aim: block ≤ 0.6 of the sequence.
2. A second web actor's start-up in a browser the first already runs (its own thread: Playwright's own
   start on that thread, CDP connect, its context and page; ``actor_browser.py``) against Playwright's
   own ``browser.new_context()`` + ``new_page()`` on the open browser. Also printed: a second actor with
   a browser of its own (what the driver did before), the parts of ours, and what the second actor adds
   when both open at once as the runner opens them (two actors minus one, wall). Aim: ≤ 1.2.

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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar
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
    marks = Marks()
    block, sequence = tmp / "parallel.trail.yaml", tmp / "sequence.trail.yaml"
    block.write_text(trail_text(marks, True), encoding="utf-8")
    sequence.write_text(trail_text(marks, False), encoding="utf-8")
    run_trail(block, tmp / "warm", marks)  # tools and imports loaded outside the timings
    par: list[tuple[float, float]] = []
    seq: list[tuple[float, float]] = []
    for r in range(rounds):
        par.append(run_trail(block, tmp / f"p{r}", marks))
        seq.append(run_trail(sequence, tmp / f"s{r}", marks))
        print(f"  round {r + 1}: parallel steps {par[-1][0]:.2f} s (trail {par[-1][1]:.2f} s), "
              f"in sequence {seq[-1][0]:.2f} s (trail {seq[-1][1]:.2f} s)")
    p_steps, s_steps = statistics.median(x[0] for x in par), statistics.median(x[0] for x in seq)
    p_whole, s_whole = statistics.median(x[1] for x in par), statistics.median(x[1] for x in seq)
    print(f"parallel block: {p_steps:.2f} s vs {s_steps:.2f} s in sequence, ratio {p_steps / s_steps:.2f} "
          f"(aim ≤ 0.6); whole trails {p_whole:.2f} vs {s_whole:.2f} s, ratio {p_whole / s_whole:.2f}")


def on_thread(fn: Callable[[], T]) -> T:
    """``fn`` on a new thread, as the runner starts each actor on its own."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(fn())
        except BaseException as exc:  # noqa: BLE001 - raised below, on the caller's thread
            out.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]  # type: ignore[no-any-return]


def bench_startup(rounds: int) -> None:
    from playwright.sync_api import sync_playwright

    from trailblaze_driver_web.actor_browser import ActorBrowser
    from trailblaze_driver_web.browser_session import BrowserSession
    from trailblaze_driver_web.config import WebDriverConfig

    cfg = WebDriverConfig()
    context_options = {"viewport": {"width": cfg.viewport.width, "height": cfg.viewport.height}}
    shared = ActorBrowser()
    first = BrowserSession(cfg, lambda _page: None)
    first.open(context_options, shared.seat("alice"))  # the first actor: Chromium with its DevTools port
    first.open_page()
    baseline: list[float] = []
    ours: list[float] = []
    own: list[float] = []
    parts: list[tuple[float, float]] = []
    marginal: list[float] = []
    assert first.browser is not None

    def playwright_context() -> float:
        start = time.perf_counter()
        context = first.browser.new_context(**context_options)  # type: ignore[union-attr]
        context.new_page()
        elapsed = time.perf_counter() - start
        context.close()
        return elapsed

    def second_actor() -> float:
        session = BrowserSession(cfg, lambda _page: None)
        start = time.perf_counter()
        session.open(context_options, shared.seat("bob"))
        session.open_page()
        elapsed = time.perf_counter() - start
        session.close()
        return elapsed

    def own_browser() -> float:
        session = BrowserSession(cfg, lambda _page: None)
        start = time.perf_counter()
        session.open(context_options)
        session.open_page()
        elapsed = time.perf_counter() - start
        session.close()
        return elapsed

    def playwright_start() -> tuple[float, float]:
        start = time.perf_counter()
        playwright = sync_playwright().start()
        started = time.perf_counter() - start
        assert shared.endpoint is not None
        start = time.perf_counter()
        browser = playwright.chromium.connect_over_cdp(shared.endpoint)
        connected = time.perf_counter() - start
        browser.close()
        playwright.stop()
        return started, connected

    def actors_together(count: int) -> float:
        """``count`` web actors of a new trail opened at once, each on its thread, as the runner opens
        them: the time until the last one has its page."""
        together = ActorBrowser()
        sessions = [BrowserSession(cfg, lambda _page: None) for _ in range(count)]
        ready = threading.Barrier(count + 1)

        def open_one(session: BrowserSession, name: str) -> None:
            ready.wait()
            session.open(context_options, together.seat(name) if count > 1 else None)
            session.open_page()

        threads = [threading.Thread(target=open_one, args=(s, f"actor{i}")) for i, s in enumerate(sessions)]
        for thread in threads:
            thread.start()
        ready.wait()
        start = time.perf_counter()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - start
        closers = [threading.Thread(target=s.close) for s in sessions]  # each on a thread, as the runner does
        for thread in closers:
            thread.start()
        for thread in closers:
            thread.join()
        return elapsed

    try:
        playwright_context(), on_thread(second_actor)  # warm-up
        for r in range(rounds):
            baseline.append(playwright_context())
            ours.append(on_thread(second_actor))
            own.append(on_thread(own_browser))
            parts.append(on_thread(playwright_start))
            one, two = actors_together(1), actors_together(2)
            marginal.append(two - one)
            print(f"  round {r + 1}: new_context {baseline[-1] * 1000:.0f} ms, second actor {ours[-1] * 1000:.0f} ms "
                  f"(Playwright start {parts[-1][0] * 1000:.0f}, CDP connect {parts[-1][1] * 1000:.0f}), "
                  f"own browser {own[-1] * 1000:.0f} ms; one actor opening {one * 1000:.0f} ms, two at once "
                  f"{two * 1000:.0f} ms")
    finally:
        first.close()
    b, o, w = statistics.median(baseline), statistics.median(ours), statistics.median(own)
    pw = statistics.median(p[0] for p in parts)
    print(f"second actor start-up: {o * 1000:.0f} ms vs Playwright's new_context() + new_page() {b * 1000:.0f} ms, "
          f"ratio {o / b:.2f} (aim ≤ 1.2); without Playwright's own start on the actor's thread "
          f"({pw * 1000:.0f} ms) {max(o - pw, 0) / b:.2f}; a browser of its own {w * 1000:.0f} ms, ratio {w / b:.2f}")
    m = statistics.median(marginal)
    print(f"opened at once as the runner does (2 actors minus 1): +{m * 1000:.0f} ms for the second, ratio {m / b:.2f} "
          f"to new_context()")


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
