"""Replay overhead: the longest example trail replayed by ``trailblaze run``'s runner against a plain
Playwright script doing the same actions, in the same process, browser start excluded from both.

Our time is the runner's step loop (``runner.steps.run_steps``: decoding, memory interpolation, YAML-tool
expansion, validation, dispatch, logging, per-step screenshots and the trace as configured); the
browser launch, the shop server and the session set-up before the first step are not counted, and
neither are the baseline's. The baseline script is ``checkout.trail.yaml`` written by hand with
Playwright's own locators and ``expect`` assertions (same waits, same checks).

Our configurations: the defaults (a screenshot of a failed step only, no trace, ``network: errors``:
Playwright sends no event per request, failed requests and HTTP ≥ 400 are heard, network and console
captured and written for a failed trail), the evidence written always and not captured at all, a JPEG after every
step, the trace recorded and kept on failure (with and without its screencast), screenshots and trace off
(the evidence as by default), everything off (no screenshot, trace or evidence), and ``network: all``
(every request heard as it ends: Playwright's Request, Response and event for each). The
plain script is also run under Playwright tracing with each part of a trace (DOM snapshots, the
screencast, sources) to show what a trace costs by itself. Aims: defaults ≤ 1.05, everything off ≤ 1.03.

How it measures: paired and interleaved. Each side keeps one browser for the whole benchmark (the
baseline's on a thread of its own, since Playwright's sync API allows one instance per thread; ours in a
reuse scope, a fresh context per trail as ``trailblaze run`` does), so a pair is two runs of the trail
seconds apart, without a browser launch between them. Each round runs every configuration once, each
right next to its own run of the plain script, the order within a pair alternating (plain first, then
ours first); a pair's ratio is ours over its plain run. The figure is the median of the per-pair
ratios, printed with their interquartile range: one slow run (another process took the CPU) moves one
pair, not the figure, as it did when a round's single baseline run divided every configuration.
Beside wall time each run's CPU is taken (Linux): this process's (only the running side uses it, the
other waits on a queue) plus that side's Playwright driver and Chromium, read from /proc. On a machine
shared with other work wall time says little; the Python CPU difference per pair is our own overhead.

    uv run python benchmarks/bench_web_replay.py [--rounds 3] [--only "defaults,everything off"]
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# The example plugin trailblaze-acme (a workspace member) registers an observer that prints a line per
# tool call (its acme_timings entry point). It is an example of a third party's wrapper, not part of what
# a user of the product runs, so the replay is measured without it (the same plugins as before it was
# registered).
os.environ.setdefault("TRAILBLAZE_DISABLE_PLUGINS", "acme_timings")
SHOP = REPO / "examples" / "web-shop"
TRAIL = SHOP / "trails" / "checkout.trail.yaml"


def baseline_script(page: Any, base: str) -> None:
    """checkout.trail.yaml, step by step, as a Playwright user would write it."""
    from playwright.sync_api import expect

    def role(name: str, label: str, **kw: Any) -> Any:
        return page.get_by_role(name, name=label, exact=True, **kw).first

    def text_visible(text: str) -> None:
        expect(page.get_by_text(re.compile(re.escape(text))).filter(visible=True).first).to_be_visible()

    # 1. shop_login + shop_addToCart (with shop_openProduct)
    page.goto(base + "/")
    role("textbox", "Email").fill("buyer@example.com")
    role("textbox", "Password").fill("secret123")
    role("button", "Sign in").click()
    page.wait_for_url(re.compile(r"/products\.html$"))
    page.goto(base + "/products.html")
    role("link", "View Trail Mug").click()
    expect(role("heading", "Trail Mug", level=1)).to_be_visible()
    role("spinbutton", "Quantity").fill("1")
    role("button", "Add to cart").click()
    text_visible("Added to cart")
    # 2.
    page.goto(base + "/cart.html")
    role("button", "Checkout").click()
    page.wait_for_url(re.compile(r"/checkout\.html$"))
    # 3.
    role("button", "Place order").click()
    # 4.
    text_visible("Please fix 6 errors")
    form = role("form", "Shipping details")
    for item in ("Full name is required", "Address is required", "City is required", "Postcode is required",
                 "Country is required", "You must agree to the terms"):
        expect(form.get_by_text(re.compile(re.escape(item))).filter(visible=True).first).to_be_visible()
    expect(page.locator(":focus").first).to_have_attribute("id", "full-name")
    # 5.
    role("textbox", "Full name").fill("Robin Hiker")
    role("textbox", "Address").fill("1 Trailhead Road")
    role("textbox", "City").fill("Springfield")
    role("textbox", "Postcode").fill("1234")
    role("combobox", "Country").select_option(["Finland"])
    role("checkbox", "I agree to the terms").click()
    role("button", "Place order").click()
    # 6.
    text_visible("Please fix 1 error")
    text_visible("Postcode must be 5 digits")
    expect(role("textbox", "Postcode")).to_have_attribute("aria-invalid", "true")
    # 7.
    role("textbox", "Postcode").fill("12345")
    role("button", "Place order").click()
    page.wait_for_url(re.compile(r"/confirmation\.html$"))
    # 8.
    text_visible("Order #")
    number = page.evaluate("document.querySelector('[data-testid=\"order-number\"]').textContent.replace('Order #', '')")
    # 9.
    expect(role("heading", "Thank you for your order!", level=1)).to_be_visible()
    expect(page.locator('[data-testid="order-number"]').first).to_have_text(f"Order #{number}")
    text_visible("Order #TB-2250")
    text_visible("We will ship your order to Robin Hiker, 1 Trailhead Road, 12345 Springfield, Finland.")
    expect(page.locator('[data-testid="order-total"]').first).to_have_text("Total: $12.50")
    expect(role("link", "Cart (0)")).to_be_visible()


def baseline_run(browser: Any, base: str, procs: set[int], trace: dict[str, bool] | None = None
                 ) -> Run:
    """The plain script in a fresh context (its times); with ``trace``, under Playwright tracing with
    those options, discarded at the end (what ``retain-on-failure`` does on a pass)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(5000)
    page = context.new_page()
    try:
        with Measured(procs) as took:
            if trace is not None:
                context.tracing.start(**trace)
            baseline_script(page, base)
            if trace is not None:
                context.tracing.stop()
        return took.wall, took.cpu, took.python
    finally:
        context.close()


Run = tuple[float, float, float]
"""A run's seconds: wall, CPU (``Measured``), and the CPU of this process alone (our Python, or the plain
script's: the browser's share is the same work on both sides, so this is where our overhead shows)."""


def _children() -> dict[int, list[int]]:
    """Every process's children, from /proc (Linux; elsewhere nothing: the CPU figures are then left out)."""
    kids: dict[int, list[int]] = {}
    for name in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            kids.setdefault(int(stat[stat.rindex(")") + 2:].split()[1]), []).append(int(name))
    return kids


def tree_cpu(roots: set[int]) -> float:
    """CPU seconds used so far by ``roots`` and their descendants (a Playwright driver, its browser)."""
    kids, total, stack = _children(), 0.0, list(roots)
    while stack:
        pid = stack.pop()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / _TICK
        stack.extend(kids.get(pid, []))
    return total


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def own_children() -> set[int]:
    return set(_children().get(os.getpid(), []))


class Measured:
    """What one run took: wall time, and CPU time (this process — only the side running uses it, the
    other waits — plus that side's Playwright driver and browser processes)."""

    def __init__(self, procs: set[int]) -> None:
        self.procs = procs
        self.wall = self.cpu = self.python = 0.0

    def __enter__(self) -> Measured:
        tree = tree_cpu(self.procs)  # read outside the timings: scanning /proc costs a few ms
        self._t = (tree, time.process_time(), time.perf_counter())
        return self

    def __exit__(self, *exc: object) -> None:
        wall = time.perf_counter()
        py = time.process_time()
        tree0, py0, wall0 = self._t
        self.wall = wall - wall0
        self.python = py - py0
        self.cpu = self.python + tree_cpu(self.procs) - tree0


class Baseline:
    """The plain script's side: a thread holding its own Playwright and browser for the whole benchmark,
    running the script when asked (``run``) and idle otherwise, so it takes no CPU while ours runs."""

    def __init__(self, base: str, launch: dict[str, Any]) -> None:
        self._asks: queue.Queue[dict[str, bool] | None | bool] = queue.Queue()
        self._answers: queue.Queue[Run | BaseException] = queue.Queue()
        self.procs: set[int] = set()
        """This side's Playwright driver (and so its browser): the processes it started."""
        before = own_children()
        self._thread = threading.Thread(target=self._serve, args=(base, launch), daemon=True)
        self._thread.start()
        self._result()  # the browser is up
        self.procs.update(own_children() - before)

    def run(self, trace: dict[str, bool] | None = None) -> Run:
        self._asks.put(trace if trace is not None else True)
        return self._result()

    def close(self) -> None:
        self._asks.put(None)
        self._thread.join(timeout=60)

    def _result(self) -> Run:
        answer = self._answers.get()
        if isinstance(answer, BaseException):
            raise SystemExit(f"the plain Playwright script failed: {answer}")
        return answer

    def _serve(self, base: str, launch: dict[str, Any]) -> None:
        from playwright.sync_api import sync_playwright

        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(**launch)
                self._answers.put((0.0, 0.0, 0.0))
                while (ask := self._asks.get()) is not None:
                    try:
                        self._answers.put(baseline_run(browser, base, self.procs,
                                                       ask if isinstance(ask, dict) else None))
                    except Exception as exc:  # noqa: BLE001 - reported on the asking thread
                        self._answers.put(exc)
                browser.close()
        except Exception as exc:  # noqa: BLE001
            self._answers.put(exc)


class Ours:
    """One configuration's runner, kept for the whole benchmark (its workspace and tools loaded once);
    ``run`` replays the trail once and returns the step loop's time."""

    def __init__(self, out: Path, driver_options: dict[str, Any]) -> None:
        from trailblaze.runner import RunOptions
        from trailblaze.runner.progress import QuietProgress
        from trailblaze.runner.run import Runner

        self.timings: list[Run] = []
        self.procs: set[int] = set()
        """Our side's Playwright driver, known once the first run started it (``main``)."""
        options = RunOptions(output_dir=out, report=False, driver_options=dict(driver_options))
        self.runner = Runner(options, progress=QuietProgress())
        steps = getattr(self.runner, "steps", None)
        # A tree from before the runner had parts (A/B against it) sliced it: ``Runner._run_steps``.
        owner, attr = (steps, "run_steps") if steps is not None else (self.runner, "_run_steps")
        run_steps = getattr(owner, attr)

        def timed_steps(*args: Any, **kwargs: Any) -> Any:  # the step loop alone: no context set-up
            took = Measured(self.procs)
            try:
                with took:
                    return run_steps(*args, **kwargs)
            finally:
                self.timings.append((took.wall, took.cpu, took.python))

        setattr(owner, attr, timed_steps)

    def run(self) -> Run:
        result = self.runner.run_trail(TRAIL)
        if result is None or not result.passed:
            raise SystemExit(f"the trail failed: {result.message if result is not None else 'no result'}")
        return self.timings[-1]


def shop_and_chromium() -> tuple[Any, str, dict[str, Any]]:
    """The example shop started on a free loopback port, its base URL, and the launch options of the
    Chromium the web driver would pick (both benchmarks of the checkout script use them)."""
    from trailblaze_driver_web.browser import find_chromium, launch_args
    from trailblaze_driver_web.config import WebDriverConfig
    from trailblaze_example_web_shop.plugin import load_server_module

    server = load_server_module(SHOP).ShopServer("127.0.0.1", port=0)
    base = str(server.start()).rstrip("/")
    cfg = WebDriverConfig()
    choice = find_chromium(cfg)
    launch: dict[str, Any] = {"args": launch_args(cfg)}
    if choice.path:
        launch["executable_path"] = choice.path
    return server, base, launch


def pair(ours: Callable[[], Run], plain: Callable[[], Run], plain_first: bool) -> tuple[Run, Run]:
    """One pair (ours, plain), run back to back in the order given."""
    if plain_first:
        b = plain()
        return ours(), b
    a = ours()
    return a, plain()


def spread(values: list[float]) -> str:
    """The median with the interquartile range, e.g. ``1.04 (IQR 1.01–1.07)``."""
    if len(values) < 4:
        return f"{statistics.median(values):.3f} (pairs {min(values):.2f}–{max(values):.2f})"
    q1, _, q3 = statistics.quantiles(values, n=4)
    return f"{statistics.median(values):.3f} (IQR {q1:.3f}–{q3:.3f})"


CONFIGS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "defaults, evidence always kept": {"evidence": "on"},
    "defaults, evidence off": {"evidence": "off"},
    "video retain-on-failure": {"video": "retain-on-failure"},
    "screenshots on (JPEG per step)": {"screenshots": "on"},
    "trace retain-on-failure": {"trace": "retain-on-failure"},
    "trace r-o-f, no screencast": {"trace": "retain-on-failure", "trace_screenshots": False},
    "screenshots and trace off": {"screenshots": "off", "trace": "off"},
    "everything off": {"screenshots": "off", "trace": "off", "evidence": "off"},
    "network: all (every request heard)": {"network": "all"},
}
TRACE_PARTS: dict[str, dict[str, bool]] = {
    "snapshots": {"snapshots": True, "screenshots": False, "sources": False},
    "screencast": {"snapshots": False, "screenshots": True, "sources": False},
    "snapshots+screencast": {"snapshots": True, "screenshots": True, "sources": False},
    "snapshots+screencast+sources": {"snapshots": True, "screenshots": True, "sources": True},
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3, help=(
        "rounds: each runs every configuration (and traced baseline) once, next to its own plain run"))
    parser.add_argument("--only", default="", help=(
        "comma-separated configuration names to run (e.g. 'defaults,everything off'; separate them with '|' "
        "when a name holds a comma), and no traced baselines: more rounds in the same minutes for the figures "
        "an A/B needs"))
    parsed = parser.parse_args()
    rounds = parsed.rounds
    only = [name.strip() for name in parsed.only.split("|" if "|" in parsed.only else ",") if name.strip()]
    if only:
        unknown = [name for name in only if name not in CONFIGS]
        if unknown:
            raise SystemExit(f"--only: unknown configuration {unknown}; known: {', '.join(CONFIGS)}")
        for name in [n for n in CONFIGS if n not in only]:
            del CONFIGS[name]
        TRACE_PARTS.clear()
    from trailblaze.reuse import reuse_scope

    server, base, launch = shop_and_chromium()
    ours: dict[str, list[Run]] = {name: [] for name in CONFIGS}
    traced: dict[str, list[Run]] = {name: [] for name in TRACE_PARTS}
    plain: dict[str, list[Run]] = {name: [] for name in [*CONFIGS, *TRACE_PARTS]}
    baseline = Baseline(base, launch)
    try:
        with tempfile.TemporaryDirectory() as out, reuse_scope():
            runners = {name: Ours(Path(out) / str(n), options) for n, (name, options) in enumerate(CONFIGS.items())}
            known = own_children()
            for runner in runners.values():
                runner.run()  # warm-up: imports, plugin discovery, the browser, page cache, JIT
            for runner in runners.values():
                runner.procs.update(own_children() - known)  # the driver our runs started (one, reused)
            baseline.run()
            n = 0
            for _round in range(rounds):
                for name, runner in runners.items():
                    a, b = pair(runner.run, baseline.run, plain_first=n % 2 == 0)
                    ours[name].append(a)
                    plain[name].append(b)
                    n += 1
                for name, trace in TRACE_PARTS.items():
                    a, b = pair(lambda trace=trace: baseline.run(trace), baseline.run, plain_first=n % 2 == 0)  # type: ignore[misc]
                    traced[name].append(a)
                    plain[name].append(b)
                    n += 1
    finally:
        baseline.close()
        server.stop()
    cpu = bool(baseline.procs) and all(r.procs for r in runners.values())
    every_plain = [t for times in plain.values() for t in times]
    print(f"trail: {TRAIL.relative_to(REPO)} ({rounds} rounds, {n} pairs, each run next to its own plain run; "
          f"browser start excluded)")
    print(f"plain Playwright script:                      {statistics.median(r[0] for r in every_plain) * 1000:8.1f} ms"
          + (f", CPU {statistics.median(r[1] for r in every_plain) * 1000:.0f} ms" if cpu else "")
          + f", Python CPU {statistics.median(r[2] for r in every_plain) * 1000:.0f} ms (medians)")

    # Whether our run leaves work behind that slows the plain run after it (a context closing, a file
    # written): the plain runs that came right after ours against those that came first in their pair.
    firsts: list[float] = []
    seconds: list[float] = []
    k = 0  # the pairs in the order they ran (``plain_first`` alternates)
    for r in range(rounds):
        for name in CONFIGS:
            (firsts if k % 2 == 0 else seconds).append(plain[name][r][0])
            k += 1
        k += len(TRACE_PARTS)
    if firsts and seconds:
        print(f"plain runs first in their pair: {statistics.median(firsts) * 1000:.1f} ms; right after ours: "
              f"{statistics.median(seconds) * 1000:.1f} ms (medians)")

    def line(name: str, times: list[Run]) -> str:
        walls = [a[0] / b[0] for a, b in zip(times, plain[name], strict=True)]
        text = f"{statistics.median(r[0] for r in times) * 1000:8.1f} ms   ratio {spread(walls)}"
        if cpu:
            cpus = [a[1] / b[1] for a, b in zip(times, plain[name], strict=True)]
            text += f"; CPU {statistics.median(r[1] for r in times) * 1000:.0f} ms, ratio {spread(cpus)}"
        extra = statistics.median(a[2] - b[2] for a, b in zip(times, plain[name], strict=True))
        return text + f"; Python CPU {statistics.median(r[2] for r in times) * 1000:.0f} ms ({extra * 1000:+.0f} ms)"

    if traced:
        print("what Playwright's tracing costs (the plain script traced, trace discarded):")
    for name, times in traced.items():
        print(f"  + tracing {name + ':':35s}{line(name, times)}")
    print("trailblaze run (the runner's step loop):")
    for name, times in ours.items():
        print(f"  {name + ':':43s}{line(name, times)}")
    if "defaults" in ours and "defaults, evidence off" in ours:
        with_evidence = [a[0] / b[0] for a, b in zip(ours["defaults"], ours["defaults, evidence off"], strict=True)]
        print(f"network + console capture on vs off (defaults / evidence off, per round): median "
              f"{statistics.median(with_evidence):.2f} (aim ≤ 1.10)")
    print("aim: defaults ≤ 1.05, everything off ≤ 1.03 (ratio: median of the per-pair ratios, ours over the plain "
          "run next to it; IQR: the middle half of the pairs. CPU: this process's CPU during the run plus that "
          "side's Playwright driver and Chromium; Python CPU: this process's alone, and in brackets the median per "
          "pair of ours minus the plain script's: our own overhead, the figure least disturbed by other load)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
