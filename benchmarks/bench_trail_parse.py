"""Trail parsing: ``load_trail`` of a 2,000-step unified trail against a bare C safe load of the file.

The trail (~300 KiB) is generated in a temp dir with realistic recordings: selector taps with nested
``nodeSelector`` maps, text input with memory tokens, verifications, a trailhead and a few classifiers.
Baseline: ruamel.yaml ``YAML(typ="safe")`` with the C parser (``ruamel.yaml.clib``) loading the same
file to plain data. Ours: ``trailblaze.trail.parser.load_trail`` — reading, validating every rule,
decoding every tool call and recording every call's file:line:column. Best of N, same process.
Two more lines time save-back into the same file (lock + splice + validate + atomic write): one slot,
and every step's slot in one pass (what a recording run writes).

Usage: uv run python benchmarks/bench_trail_parse.py [--steps 2000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ruamel.yaml import YAML
from trailblaze.tools.base import ToolCall
from trailblaze.trail.parser import load_trail
from trailblaze.trail.saveback import save_recording, save_recordings


def make_trail(steps: int, seed: int = 7) -> str:
    rnd = random.Random(seed)
    lines = [
        "# Generated benchmark trail: a long checkout regression.",
        "config:",
        "  id: bench/checkout-regression",
        "  title: 'Checkout regression (generated)'",
        "  target: shop",
        "  tags: [regression, checkout]",
        "  devices:",
        "    android: ANDROID_ONDEVICE_ACCESSIBILITY",
        "    web: PLAYWRIGHT_NATIVE",
        "  memory:",
        "    email: test@example.com",
        "trailhead:",
        "  step: Launch the shop app fresh",
        "  recording:",
        "    android:",
        "      launchApp: {appId: com.example.shop, launchMode: REINSTALL}",
        "trail:",
    ]
    for i in range(steps):
        kind = rnd.choice(("step", "step", "step", "verify"))
        lines.append(f"  - {kind}: Open item {i}")
        lines.append("    recording:")
        lines.append("      android:")
        roll = rnd.random()
        if kind == "verify":
            lines += ["        - assertVisibleBySelector:",
                      "            nodeSelector:",
                      "              androidAccessibility:",
                      f"                textRegex: Item {i}"]
        elif roll < 0.3:
            lines.append("        - inputText: {text: \"{{email}}\"}")
        else:
            lines += ["        - tapOnElementBySelector:",
                      "            nodeSelector:",
                      "              androidAccessibility:",
                      f"                resourceIdRegex: id/item_{i}"]
    return "\n".join(lines) + "\n"


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.trail.yaml"
        path.write_text(make_trail(opts.steps), encoding="utf-8")
        size = path.stat().st_size
        safe = YAML(typ="safe", pure=False)
        if safe.Parser.__module__.startswith("ruamel.yaml.parser"):
            raise SystemExit("ruamel.yaml.clib is not installed: the baseline would be the pure-Python parser")
        baseline = best(lambda: safe.load(path.read_text(encoding="utf-8")), opts.repeat)
        trail = load_trail(path)
        ours = best(lambda: load_trail(path), opts.repeat)
        calls = sum(len(c) for s in trail.steps for c in (s.recordings or {}).values())
        save = best(lambda: save_recording(path, 1, "web", [ToolCall("web_click", {"ref": "e1"})]), opts.repeat)
        every = [(i, "web", [ToolCall("web_click", {"ref": f"e{i}"})]) for i in range(1, len(trail.steps))]
        start = time.perf_counter()
        save_recordings(path, every)
        save_all = time.perf_counter() - start
    print(f"trail: {opts.steps} steps + trailhead, {calls} recorded calls, {size / 1024:.0f} KiB")
    print(f"baseline  ruamel.yaml C safe load     {baseline * 1000:8.1f} ms")
    print(f"ours      load_trail (validated)      {ours * 1000:8.1f} ms")
    print(f"ratio     ours / baseline             {ours / baseline:8.2f}   (aim <= 1.5)")
    print(f"save-back one slot (lock+splice+write) {save * 1000:7.1f} ms")
    print(f"save-back {len(every)} slots in one pass   {save_all * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
