"""Snapshot size: our compact snapshot against Playwright's ``page.aria_snapshot()`` of the same page.

Serves the example shop on 127.0.0.1, visits every page reachable from its home page by same-origin
links (and the pages after signing in), and for each prints the characters of

* Playwright's default aria snapshot (no refs: the baseline),
* Playwright's AI-mode snapshot (with refs: what an agent would otherwise read),
* our compact snapshot as the agent sees it (refs kept, offscreen elements summarised),
* our compact snapshot with ``offscreen`` (everything, refs kept),

and the ratios against the baseline. Aim: ≤ 1.0 with refs kept.

    uv run python benchmarks/bench_web_snapshot.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin, urlparse

REPO = Path(__file__).resolve().parents[1]
SHOP = REPO / "examples" / "web-shop"
MAX_PAGES = 25


def main() -> int:
    from trailblaze_driver_web.config import WebDriverConfig
    from trailblaze_driver_web.driver import PlaywrightDriver
    from trailblaze_example_web_shop.plugin import load_server_module

    server = load_server_module(SHOP).ShopServer("127.0.0.1", port=0)
    base = str(server.start()).rstrip("/")
    driver = PlaywrightDriver(WebDriverConfig(base_url=base, trace="off"))
    rows: list[tuple[str, int, int, int, int, float]] = []
    try:
        driver.launch()
        page = driver.page
        seen: set[str] = set()
        measure(driver, page, base + "/", rows)
        seen.add(base + "/")
        # Sign in and put something in the cart, so every page has its signed-in content.
        page.fill("#email", "bench@example.com")
        page.fill("#password", "secret123")
        page.click("button[type=submit]")
        page.wait_for_url("**/products.html")
        page.evaluate("Shop.addToCart('trail-mug', 1); Shop.addToCart('compass', 2)")
        queue = [base + "/products.html", base + "/cart.html", base + "/checkout.html"]
        while queue and len(seen) < MAX_PAGES:
            url = queue.pop(0)
            if url in seen:
                continue
            seen.add(url)
            measure(driver, page, url, rows)
            for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
                href = urldefrag(urljoin(page.url, href))[0]
                if href.startswith(base) and href not in seen:
                    queue.append(href)
    finally:
        driver.stop()
        server.stop()
    return report(rows)


def measure(driver: Any, page: Any, url: str, rows: list[tuple[str, int, int, int, int, float]]) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(900)  # late content (product reviews) has arrived
    baseline = page.aria_snapshot()
    ai = page.locator("body").aria_snapshot(mode="ai")
    t0 = time.perf_counter()
    ours = driver.snapshot()
    took_ms = (time.perf_counter() - t0) * 1000
    full = driver.last_snapshot.render(frozenset({"offscreen"})) if driver.last_snapshot else ours
    parsed = urlparse(page.url)
    name = (parsed.path or "/") + (f"?{parsed.query}" if parsed.query else "")
    rows.append((name, len(baseline), len(ai), len(ours), len(full), took_ms))


def report(rows: list[tuple[str, int, int, int, int, float]]) -> int:
    print(f"{'page':<32} {'aria_snapshot':>13} {'ai+refs':>8} {'ours':>6} {'ours+off':>9} "
          f"{'ratio':>6} {'ratio+off':>9} {'ms':>6}")
    for path, baseline, ai, ours, full, ms in rows:
        print(f"{path[:32]:<32} {baseline:>13} {ai:>8} {ours:>6} {full:>9} {ours / baseline:>6.2f} "
              f"{full / baseline:>9.2f} {ms:>6.1f}")
    total_b = sum(r[1] for r in rows)
    total_ai = sum(r[2] for r in rows)
    total_o = sum(r[3] for r in rows)
    total_f = sum(r[4] for r in rows)
    print(f"\npages: {len(rows)}")
    print(f"total characters: aria_snapshot {total_b}, ai-mode with refs {total_ai}, ours {total_o}, "
          f"ours with offscreen {total_f}")
    print(f"ratio ours / aria_snapshot: {total_o / total_b:.2f} (aim ≤ 1.0 with refs kept); "
          f"with offscreen elements: {total_f / total_b:.2f}; ai-mode / aria_snapshot: {total_ai / total_b:.2f}")
    print(f"median snapshot time: {statistics.median(r[5] for r in rows):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
