"""Selector resolution on a 2,000-node UiAutomator2 hierarchy: µs per resolve for a plain, a relative
and an indexed nodeSelector, against a hand-written loop that finds the same node (the floor).

Usage: uv run python benchmarks/bench_appium_selectors.py [--rows 400] [--repeat 200]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from trailblaze_driver_android.appium.hierarchy import Hierarchy, Node, parse_page_source
from trailblaze.selectors import NodeSelector
from trailblaze_driver_android.appium.selectors import resolve


def page_source(rows: int) -> str:
    parts = ['<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">',
             '<android.widget.FrameLayout class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">',
             ('<androidx.recyclerview.widget.RecyclerView class="androidx.recyclerview.widget.RecyclerView" '
              'scrollable="true" bounds="[0,0][1080,2400]">')]
    for i in range(rows):
        top = i * 150
        parts.append(f'<android.widget.LinearLayout class="android.widget.LinearLayout" clickable="true" '
                     f'resource-id="com.example:id/row" bounds="[0,{top}][1080,{top + 150}]">'
                     f'<android.widget.TextView class="android.widget.TextView" text="Item {i}" '
                     f'resource-id="com.example:id/name" bounds="[40,{top + 10}][700,{top + 70}]"/>'
                     f'<android.widget.TextView class="android.widget.TextView" text="${i}.99" '
                     f'resource-id="com.example:id/price" bounds="[40,{top + 80}][300,{top + 140}]"/>'
                     f'<android.widget.Button class="android.widget.Button" text="Add" clickable="true" '
                     f'resource-id="com.example:id/add" bounds="[800,{top + 30}][1040,{top + 120}]"/>'
                     f'</android.widget.LinearLayout>')
    parts.append("</androidx.recyclerview.widget.RecyclerView></android.widget.FrameLayout></hierarchy>")
    return "".join(parts)


def timed(fn: Callable[[], Any], repeat: int) -> float:
    fn()
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat * 1e6


def baseline_plain(tree: Hierarchy, text: str) -> Node | None:
    for node in tree.nodes:
        if node.text == text:
            return node
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=500, help="4 nodes per row (+3): 500 rows = 2,003 nodes")
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    tree = parse_page_source(page_source(args.rows), "android")
    print(f"hierarchy: {len(tree.nodes)} nodes")
    target = args.rows * 3 // 4
    cases = {
        "plain": {"androidAccessibility": {"textRegex": f"Item {target}"}},
        "relative": {"androidAccessibility": {"textRegex": "Add"},
                     "below": {"androidAccessibility": {"textRegex": f"Item {target}"}}, "index": 0},
        "indexed": {"androidAccessibility": {"resourceIdRegex": "com.example:id/add", "isClickable": True},
                    "index": target},
        "childOf+containsChild": {"androidAccessibility": {"textRegex": "Add"},
                                  "childOf": {"containsChild": {"androidAccessibility": {"textRegex": f"Item {target}"}}}},
    }
    floor = timed(lambda: baseline_plain(tree, f"Item {target}"), args.repeat)
    print(f"baseline (hand-written scan for one text): {floor:8.1f} µs")
    for name, raw in cases.items():
        selector = NodeSelector.model_validate(raw)
        found = resolve(tree, selector).nodes
        assert found, name
        us = timed(lambda sel=selector: resolve(tree, sel), args.repeat)
        verdict = "ok" if us <= 2000 else "over the 2 ms aim"
        print(f"{name:24s} {us:8.1f} µs per resolve  (ratio {us / floor:5.1f} to the scan; aim ≤ 2000 µs: {verdict})")


if __name__ == "__main__":
    main()
