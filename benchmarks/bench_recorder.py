"""Recorder overhead: how long after a person's click the recorder has the event, in headless Chromium.

Baseline: a bare Playwright binding called from a minimal click listener (the cheapest way a page can
tell Python anything). Ours: ``trailblaze record``'s page script and recorder — role, accessible name,
test id and CSS path computed in the page, the report parsed, the selector proven unique on the live
page, the tool call added to its step. Both click the same button with real (trusted) mouse events,
in rounds; latency is page ``Date.now()`` at the event to Python having it (the baseline) or to the
tool call being recorded (ours: the recorder's handling included). Aim: ≤ 50 ms per click.

    uv run python benchmarks/bench_recorder.py [--clicks 100] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

PAGE = ("data:text/html,<label for=q>Query</label><input id=q><button type=button>Search "
        "<b>now</b></button><ul>" + "".join(f"<li><a href='#'>Item {i}</a></li>" for i in range(200)) + "</ul>")


def main() -> None:
    from trailblaze.recorder import RecordOptions
    from trailblaze_driver_web.config import WebDriverConfig
    from trailblaze_driver_web.driver import PlaywrightDriver
    from trailblaze_driver_web.recorder import Recorder

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clicks", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    driver = PlaywrightDriver(WebDriverConfig(trace="off"))
    driver.launch()
    try:
        page = driver.page
        page.goto(PAGE)
        bare: list[float] = []
        page.expose_binding("__bare", lambda _source, t: bare.append(time.time() * 1000 - float(t)))
        page.evaluate("document.addEventListener('click', () => window.__bare(Date.now()), true)")
        recorder = Recorder(driver, RecordOptions(pause_s=3600))
        recorder.attach()
        box = page.get_by_role("button", name="Search now").bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        ours_ms: list[float] = []
        bare_ms: list[float] = []
        for _ in range(args.rounds):
            bare.clear()
            recorder.latencies_ms.clear()
            for _ in range(args.clicks):
                page.mouse.click(x, y)
            deadline = time.monotonic() + 30
            while len(recorder.latencies_ms) < args.clicks and time.monotonic() < deadline:
                page.wait_for_timeout(20)
            ours_ms.append(statistics.median(recorder.latencies_ms))
            bare_ms.append(statistics.median(bare))
        calls = sum(len(s.calls) for s in recorder.steps)
        p95 = sorted(recorder.latencies_ms)[int(len(recorder.latencies_ms) * 0.95) - 1]
    finally:
        driver.stop()
    ours, base = statistics.median(ours_ms), statistics.median(bare_ms)
    print(f"click-to-event latency, {args.clicks} clicks x {args.rounds} rounds (median of round medians)")
    print(f"  bare Playwright binding      {base:7.2f} ms")
    print(f"  trailblaze record            {ours:7.2f} ms  (last round p95 {p95:.2f} ms; {calls} calls recorded)"
          f"   aim <= 50 ms: {'met' if ours <= 50 else 'NOT met'}")
    print(f"  ratio {ours / base if base else float('nan'):.2f}")


if __name__ == "__main__":
    main()
