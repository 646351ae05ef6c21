"""Resolving a recorded upstream element id (``e1900``) against Playwright's own ``aria-ref`` resolution.

A generated page of 2,000 ARIA elements (sections of a heading, equal "Open" buttons, links and text
fields). Each round resolves a late duplicate (one of 800 equal buttons) to an element handle, both ways, interleaved:

* baseline: Playwright's AI-mode snapshot (which mints the ``aria-ref`` ids) + ``aria-ref=eN``;
* ours: what a replayed ``web_click {ref: eN}`` does (``targets.resolve_target`` with ``replaying``):
  a default-mode snapshot, upstream's compact element list, ``getByRole(…).nth(k)``.

Aim: ratio ≤ 2.

    uv run python benchmarks/bench_upstream_refs.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROUNDS = 15
SECTIONS = 400  # 5 elements each: 2,000


def page_html() -> str:
    parts = ["<!doctype html><html><body><h1>Parts</h1><main>"]
    for i in range(SECTIONS):
        parts.append(f"<section><h2>Section {i}</h2><button>Open</button><button>Open</button>"
                     f"<a href='#s{i}'>Details {i}</a><input aria-label='Note {i}'></section>")
    parts.append("</main></body></html>")
    return "".join(parts)


def main() -> int:
    from trailblaze_driver_web.config import WebDriverConfig
    from trailblaze_driver_web.driver import PlaywrightDriver
    from trailblaze_driver_web.targets import resolve_target
    from trailblaze_driver_web.upstream_refs import build_compact_list, snapshot_yaml

    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "parts.html"
        html.write_text(page_html())
        driver = PlaywrightDriver(WebDriverConfig(trace="off"))
        try:
            driver.launch()
            page = driver.page
            page.goto(html.as_uri())
            ids = build_compact_list(snapshot_yaml(page, 10_000)).ids
            ref = [k for k, v in ids.items() if v.descriptor == 'button "Open"'][-20]  # a late duplicate
            print(f"page: {len(ids)} upstream ids; resolving {ref} ({ids[ref].descriptor}, occurrence "
                  f"{ids[ref].nth + 1})")
            ai = page.locator("body").aria_snapshot(mode="ai")
            ai_ref = f"e{ai.count('[ref=e') - 40}"
            base_times: list[float] = []
            our_times: list[float] = []
            for _ in range(ROUNDS):
                t0 = time.perf_counter()
                page.locator("body").aria_snapshot(mode="ai")
                handle = page.locator(f"aria-ref={ai_ref}").element_handle()
                base_times.append(time.perf_counter() - t0)
                assert handle is not None
                handle.dispose()
                t0 = time.perf_counter()
                target = resolve_target(driver, ref, None, tool="bench", replaying=True)
                handle = target.locator.element_handle()
                our_times.append(time.perf_counter() - t0)
                assert handle is not None
                handle.dispose()
        finally:
            driver.stop()
    base = statistics.median(base_times)
    ours = statistics.median(our_times)
    print(f"aria-ref (AI snapshot + locator): median {base * 1000:.1f} ms over {ROUNDS} rounds")
    print(f"upstream id (default snapshot + compact list + getByRole.nth): median {ours * 1000:.1f} ms")
    print(f"ratio {ours / base:.2f} (aim ≤ 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
