"""Replay overhead: the longest example trail replayed by ``trailblaze run``'s runner against a plain
Playwright script doing the same actions, in the same process, browser start excluded from both.

Our time is the runner's step loop (``runner.steps.run_steps``: decoding, memory interpolation, YAML-tool
expansion, validation, dispatch, logging, per-step screenshots and the trace as configured); the
browser launch, the shop server and the session set-up before the first step are not counted, and
neither are the baseline's. The baseline script is ``checkout.trail.yaml`` written by hand with
Playwright's own locators and ``expect`` assertions (same waits, same checks).

Our configurations: the defaults (a screenshot of a failed step only, no trace, network and console
captured and written for a failed trail), the evidence written always and not captured at all, a JPEG after every
step, the trace recorded and kept on failure (with and without its screencast), and everything off. The
plain script is also run under Playwright tracing with each part of a trace (DOM snapshots, the
screencast, sources) to show what a trace costs by itself. Rounds are interleaved. Aims: defaults ≤ 1.15,
everything off ≤ 1.05.

    uv run python benchmarks/bench_web_replay.py [--rounds 5] [--only "defaults,everything off"]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
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


def run_baseline(browser: Any, base: str, trace: dict[str, bool] | None = None) -> float:
    """The plain script in a fresh context; with ``trace``, under Playwright tracing with those options,
    discarded at the end (what ``retain-on-failure`` does on a pass)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(5000)
    page = context.new_page()
    try:
        t0 = time.perf_counter()
        if trace is not None:
            context.tracing.start(**trace)
        baseline_script(page, base)
        if trace is not None:
            context.tracing.stop()
        return time.perf_counter() - t0
    finally:
        context.close()


def run_ours(driver_options: dict[str, Any]) -> float:
    from trailblaze.runner import RunOptions
    from trailblaze.runner.progress import QuietProgress
    from trailblaze.runner.run import Runner

    timings: list[float] = []

    with tempfile.TemporaryDirectory() as out:
        options = RunOptions(output_dir=Path(out), report=False, driver_options=dict(driver_options))
        runner = Runner(options, progress=QuietProgress())
        if not hasattr(runner, "steps"):  # a tree from before the runner had parts (A/B against it)
            return _run_ours_sliced(runner, timings)
        run_steps = runner.steps.run_steps

        def timed_steps(*args: Any, **kwargs: Any) -> None:  # the step loop alone: no browser start or close
            t0 = time.perf_counter()
            try:
                run_steps(*args, **kwargs)
            finally:
                timings.append(time.perf_counter() - t0)

        runner.steps.run_steps = timed_steps  # type: ignore[method-assign]
        result = runner.run([str(TRAIL)])
        if int(result.exit_code) != 0:
            raise SystemExit(f"the trail failed: {[t.message for t in result.trails]}")
    return timings[0]


def _run_ours_sliced(runner: Any, timings: list[float]) -> float:
    """``run_ours`` on a tree whose ``Runner`` was sliced across base classes (``_run_steps``)."""
    run_steps = runner._run_steps

    def timed_steps(*args: Any, **kwargs: Any) -> None:
        t0 = time.perf_counter()
        try:
            run_steps(*args, **kwargs)
        finally:
            timings.append(time.perf_counter() - t0)

    runner._run_steps = timed_steps
    result = runner.run([str(TRAIL)])
    if int(result.exit_code) != 0:
        raise SystemExit(f"the trail failed: {[t.message for t in result.trails]}")
    return timings[0]


CONFIGS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "defaults, evidence always kept": {"evidence": "on"},
    "defaults, evidence off": {"evidence": "off"},
    "video retain-on-failure": {"video": "retain-on-failure"},
    "screenshots on (JPEG per step)": {"screenshots": "on"},
    "trace retain-on-failure": {"trace": "retain-on-failure"},
    "trace r-o-f, no screencast": {"trace": "retain-on-failure", "trace_screenshots": False},
    "everything off": {"screenshots": "off", "trace": "off"},
}
TRACE_PARTS: dict[str, dict[str, bool]] = {
    "snapshots": {"snapshots": True, "screenshots": False, "sources": False},
    "screencast": {"snapshots": False, "screenshots": True, "sources": False},
    "snapshots+screencast": {"snapshots": True, "screenshots": True, "sources": False},
    "snapshots+screencast+sources": {"snapshots": True, "screenshots": True, "sources": True},
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="", help=(
        "comma-separated configuration names to run (e.g. 'defaults,everything off'), and no traced "
        "baselines: more rounds in the same minutes for the figures an A/B needs"))
    parsed = parser.parse_args()
    rounds = parsed.rounds
    only = [name.strip() for name in parsed.only.split(",") if name.strip()]
    if only:
        unknown = [name for name in only if name not in CONFIGS]
        if unknown:
            raise SystemExit(f"--only: unknown configuration {unknown}; known: {', '.join(CONFIGS)}")
        for name in [n for n in CONFIGS if n not in only]:
            del CONFIGS[name]
        TRACE_PARTS.clear()
    from playwright.sync_api import sync_playwright
    from trailblaze_driver_web.browser import find_chromium, launch_args
    from trailblaze_driver_web.config import WebDriverConfig
    from trailblaze_example_web_shop.plugin import load_server_module

    ours: dict[str, list[float]] = {name: [] for name in CONFIGS}
    traced: dict[str, list[float]] = {name: [] for name in TRACE_PARTS}
    base_times: list[float] = []
    ratios: dict[str, list[float]] = {name: [] for name in [*CONFIGS, *TRACE_PARTS]}
    server = load_server_module(SHOP).ShopServer("127.0.0.1", port=0)
    base = str(server.start()).rstrip("/")
    cfg = WebDriverConfig()
    choice = find_chromium(cfg)
    run_ours({})  # warm-up: imports, plugin discovery, YAML tool catalog
    kwargs: dict[str, Any] = {"args": launch_args(cfg)}
    if choice.path:
        kwargs["executable_path"] = choice.path
    for round_ in range(rounds):
        # Interleaved: each round runs the baseline next to every configuration, so a change in the
        # machine's load hits both sides of a ratio alike. (Ours cannot run inside the baseline's
        # sync_playwright block, so the baseline's browser is started per round, outside the timing.)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(**kwargs)
            try:
                if round_ == 0:
                    run_baseline(browser, base)  # warm-up (page cache, JIT)
                b = run_baseline(browser, base)
                base_times.append(b)
                for name, trace in TRACE_PARTS.items():
                    traced[name].append(run_baseline(browser, base, trace))
                    ratios[name].append(traced[name][-1] / b)
            finally:
                browser.close()
        for name, options in CONFIGS.items():
            ours[name].append(run_ours(options))
            ratios[name].append(ours[name][-1] / b)
    server.stop()
    b = statistics.median(base_times)
    print(f"trail: {TRAIL.relative_to(REPO)} (rounds: {rounds}, interleaved; medians; browser start excluded)")
    print(f"plain Playwright script:                      {b * 1000:8.1f} ms")
    print("what Playwright's tracing costs (the plain script traced, trace discarded):")
    for name, times in traced.items():
        print(f"  + tracing {name + ':':35s}{statistics.median(times) * 1000:8.1f} ms   "
              f"ratio {statistics.median(ratios[name]):5.2f}")
    print("trailblaze run (the runner's step loop):")
    for name, times in ours.items():
        r = ratios[name]
        print(f"  {name + ':':43s}{statistics.median(times) * 1000:8.1f} ms   ratio {statistics.median(r):5.2f} "
              f"(per round {min(r):.2f}–{max(r):.2f}; best times {min(times) / min(base_times):.2f})")
    if "defaults" in ours and "defaults, evidence off" in ours:
        with_evidence = [a / b for a, b in zip(ours["defaults"], ours["defaults, evidence off"], strict=True)]
        print(f"network + console capture on vs off (defaults / evidence off, per round): median "
              f"{statistics.median(with_evidence):.2f} (aim ≤ 1.10)")
    print("aim: defaults ≤ 1.15, everything off ≤ 1.05 (ratio: median of the per-round ratios; 'best times' is "
          "the fastest run of ours over the fastest baseline, the least disturbed by other load)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
