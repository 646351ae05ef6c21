"""Finding an element inside an iframe: the web driver's descriptor resolution against Playwright's own
``frame_locator`` + ``get_by_role``, in the same process, browser and page.

The page holds five iframes (served by the example shop's server from a temporary root); the button
``Approve`` is in the third. Each round clicks it N times each way, interleaved:

* Playwright: ``page.frame_locator('iframe[title="Frame 3"]').get_by_role("button", name="Approve",
  exact=True).click()`` - the author already knows which frame;
* ours, unscoped: ``resolve_target(driver, 'button "Approve"')`` then ``click()`` - the driver finds the
  frame (one count per frame, and the check that no other frame has the name);
* ours, scoped: the same with ``frame='iframe "Frame 3"'``, as a recording with ``frame:`` replays;
* and, for the fast path, a page without iframes: ``resolve_target`` against ``page.get_by_role``.

Aim: unscoped ≤ 1.3, scoped and no-iframe ≈ 1.0 (ratio: median of the per-round ratios; "best": the
fastest round of each side).

    uv run python benchmarks/bench_web_frames.py [--rounds 5] [--clicks 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHOP = REPO / "examples" / "web-shop"

FRAME = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Frame {n}</title></head><body>
<h1>Frame {n}</h1><p>Some text in frame {n}.</p><label>Note {n} <input></label>
<button>Edit {n}</button><button>Delete {n}</button>{extra}
<p id="count">0</p>
<script>document.querySelectorAll('button').forEach(b => b.addEventListener('click', () => {{
  const c = document.getElementById('count'); c.textContent = String(Number(c.textContent) + 1); }}));</script>
</body></html>"""
INDEX = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Five frames</title></head><body>
<h1>Five frames</h1>{frames}</body></html>"""
PLAIN = FRAME.format(n=0, extra="<button>Approve</button>")


def write_site(root: Path) -> None:
    frames = "".join(f'<iframe title="Frame {n}" src="/frame-{n}.html" width="300" height="150"></iframe>'
                     for n in range(1, 6))
    (root / "index.html").write_text(INDEX.format(frames=frames), encoding="utf-8")
    for n in range(1, 6):
        extra = "<button>Approve</button>" if n == 3 else ""
        (root / f"frame-{n}.html").write_text(FRAME.format(n=n, extra=extra), encoding="utf-8")
    (root / "plain.html").write_text(PLAIN, encoding="utf-8")


def timed(fn: Callable[[], None], clicks: int) -> float:
    start = time.perf_counter()
    for _ in range(clicks):
        fn()
    return (time.perf_counter() - start) / clicks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--clicks", type=int, default=20)
    args = parser.parse_args()

    from trailblaze_driver_web.config import WebDriverConfig
    from trailblaze_driver_web.driver import PlaywrightDriver
    from trailblaze_driver_web.targets import resolve_target
    from trailblaze_example_web_shop.plugin import load_server_module

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_site(root)
        server = load_server_module(SHOP).ShopServer("127.0.0.1", port=0, root=root, peer=False)
        base = server.start()
        driver = PlaywrightDriver(WebDriverConfig())
        driver.launch()
        try:
            page = driver.page
            page.goto(base + "/index.html")
            page.frame_locator('iframe[title="Frame 3"]').get_by_role("button", name="Approve").wait_for()
            assert len(page.frames) == 6

            def playwright() -> None:
                page.frame_locator('iframe[title="Frame 3"]').get_by_role(
                    "button", name="Approve", exact=True).click()

            def ours() -> None:
                resolve_target(driver, 'button "Approve"', None, tool="bench").locator.click()

            def ours_scoped() -> None:
                resolve_target(driver, 'button "Approve"', None, tool="bench",
                               frame='iframe "Frame 3"').locator.click()

            def plain_playwright() -> None:
                page.get_by_role("button", name="Approve", exact=True).first.click()

            sides = {"playwright": playwright, "unscoped": ours, "scoped": ours_scoped}
            times: dict[str, list[float]] = {name: [] for name in [*sides, "plain_playwright", "plain"]}
            ratios: dict[str, list[float]] = {"unscoped": [], "scoped": [], "plain": []}
            for name, fn in sides.items():  # warm up each path once
                fn()
            for _ in range(args.rounds):
                page.goto(base + "/index.html")
                page.frame_locator('iframe[title="Frame 3"]').get_by_role("button", name="Approve").wait_for()
                for name, fn in sides.items():
                    times[name].append(timed(fn, args.clicks))
                ratios["unscoped"].append(times["unscoped"][-1] / times["playwright"][-1])
                ratios["scoped"].append(times["scoped"][-1] / times["playwright"][-1])
                page.goto(base + "/plain.html")
                times["plain_playwright"].append(timed(plain_playwright, args.clicks))
                times["plain"].append(timed(lambda: resolve_target(driver, 'button "Approve"', None,
                                                                   tool="bench").locator.click(), args.clicks))
                ratios["plain"].append(times["plain"][-1] / times["plain_playwright"][-1])
        finally:
            driver.stop()
            server.stop()

    def ms(name: str) -> str:
        return f"{statistics.median(times[name]) * 1000:7.2f} ms"

    def best(name: str, base: str) -> str:
        """The ratio of the best rounds: on a busy machine the medians wander, the floors less so."""
        return f"(best {min(times[name]) / min(times[base]):4.2f})"

    print(f"a click on button \"Approve\" in the third of five iframes (rounds: {args.rounds} x {args.clicks} "
          "clicks, interleaved; medians per click)")
    print(f"  Playwright frame_locator + get_by_role:          {ms('playwright')}")
    print(f"  resolve_target, unscoped (finds the frame):       {ms('unscoped')}   "
          f"ratio {statistics.median(ratios['unscoped']):5.2f} {best('unscoped', 'playwright')}")
    print(f"  resolve_target, frame='iframe \"Frame 3\"':         {ms('scoped')}   "
          f"ratio {statistics.median(ratios['scoped']):5.2f} {best('scoped', 'playwright')}")
    print("the same button on a page without iframes")
    print(f"  Playwright get_by_role:                           {ms('plain_playwright')}")
    print(f"  resolve_target (no frames: no count, no wait):    {ms('plain')}   "
          f"ratio {statistics.median(ratios['plain']):5.2f} {best('plain', 'plain_playwright')}")
    print("aim: unscoped ≤ 1.3; scoped and without iframes ≈ 1.0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
