"""Prompt size per model request on the example web shop: what the agent sends against a naive baseline.

Baseline (per request, measured at the same moment on the same page): the page's ``page.aria_snapshot()``
plus the OpenAI descriptors of *every* tool registered in the session (web, Android, iOS, YAML, ...).
Our path: the whole JSON body the agent actually sent (system prompt, step, earlier steps, memory, this
step's calls and results, the compact snapshot with refs, and the descriptors of only the tools the
session offers: its driver's, its toolsets', ``surface_to_llm`` ones; verification only on ``verify:``).

A scripted model (over HTTP, through the real ``openai`` client) signs in, searches the catalogue, opens a
product and checks the page, reading refs from the snapshot as a real model would. Aim: ratio <= 0.6.

    uv run python benchmarks/bench_prompt_size.py
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "web-shop"

TRAIL = """\
config:
  title: prompt-size benchmark
  target: shop
  devices: {web: PLAYWRIGHT_NATIVE}
trail:
  - step: Open the shop's sign-in page
  - step: Sign in with the remembered email and password
  - step: Search the catalogue for "compass" and open the Compass
  - verify: The product page shows the Compass
"""


def model(request: Any) -> Any:
    from trailblaze.testing.llm import call, done

    step = request.objective
    n = len(request.tool_results())
    if "sign-in page" in step:
        return [call("web_navigate", url="/"), done()][min(n, 1)]
    if "Sign in with" in step:
        plan = [lambda: call("web_type", ref=request.ref_on_screen('textbox "Email"'), text="{{email}}"),
                lambda: call("web_fillSecret", ref=request.ref_on_screen('textbox "Password"'), value="{{password}}"),
                lambda: call("web_click", ref=request.ref_on_screen('button "Sign in"')),
                lambda: call("web_waitForUrl", pattern=r"/products\.html$"),
                lambda: done()]
        return plan[min(n, 4)]()
    if "Search the catalogue" in step:
        plan = [lambda: call("web_type", ref=request.ref_on_screen('searchbox'), text="compass"),
                lambda: call("web_click", ref=request.ref_on_screen('link "View Compass"')),
                lambda: done()]
        return plan[min(n, 2)]()
    return call("web_verifyTextVisible", text="Compass")


def main() -> int:
    from trailblaze.testing import run_cli
    from trailblaze.testing.llm import ScriptedLlmServer
    from trailblaze_driver_web.driver import PlaywrightDriver

    baselines: list[dict[str, int]] = []
    original = PlaywrightDriver.snapshot

    def measured(self: Any, *, detail: frozenset[str] = frozenset()) -> str:
        # The baseline first: an ``ai``-mode snapshot (ours) assigns the refs the next calls use, and any
        # later snapshot would invalidate them.
        aria = self.page.aria_snapshot()
        text = original(self, detail=detail)
        session = self._bench_session
        tools = [session.codec.describe(t).openai() for t in session.registry]
        baselines.append({"aria": len(aria), "tools": len(json.dumps(tools)), "tool_count": len(tools),
                          "ours_snapshot": len(text)})
        return text

    original_start = PlaywrightDriver.start

    def start(self: Any, session: Any) -> Any:
        self._bench_session = session
        return original_start(self, session)

    PlaywrightDriver.snapshot = measured  # type: ignore[method-assign]
    PlaywrightDriver.start = start  # type: ignore[method-assign]
    keep = "--keep" in sys.argv
    with tempfile.TemporaryDirectory() as tmp, ScriptedLlmServer(model) as server:
        root = Path(tempfile.mkdtemp(prefix="bench-prompt-")) / "shop" if keep else Path(tmp) / "shop"
        if keep:
            print(f"workspace kept at {root}")
        shutil.copytree(EXAMPLE / "trails" / "config", root / "trails" / "config")
        shutil.copytree(EXAMPLE / "app", root / "app")
        shutil.copy(EXAMPLE / "server.py", root / "server.py")
        config = root / "trails" / "config" / "trailblaze.yaml"
        config.write_text(config.read_text() + (
            f"llm:\n  providers:\n    openai:\n      base_url: {server.openai_base_url}\n"
            "      auth: {required: false}\n"
            # Text only: the baseline has no picture either (a vision model adds one PNG per request).
            "      models: [{id: gpt-4.1-mini, vision: false}]\n"
            "  defaults: {model: openai/gpt-4.1-mini}\n"))
        (root / "trails" / "bench.trail.yaml").write_text(TRAIL)
        result = run_cli(["run", "trails", "--output-dir", str(root / "logs"), "--no-report", "--no-save-recording",
                          "--memory", "email=hiker@example.com", "--secret", "password=secret123"], cwd=root)
        if result.exit_code != 0:
            print(result.output, file=sys.stderr)
            return 1
        if "--dump" in sys.argv:
            Path("/tmp/bench_prompt_requests.json").write_text(json.dumps([r.body for r in server.requests]))
        ours = [len(r.raw) for r in server.requests]
        steps = [r.body["messages"][1]["content"].splitlines()[0] for r in server.requests]
        offered = [len(r.tool_names) for r in server.requests]
    if len(ours) != len(baselines):
        print(f"mismatch: {len(ours)} requests, {len(baselines)} snapshots", file=sys.stderr)
        return 1
    print(f"{'request':>7}  {'offered':>7}  {'ours (chars)':>12}  {'baseline':>9}  {'ratio':>5}  step")
    ratios = []
    for i, (size, base, step, n) in enumerate(zip(ours, baselines, steps, offered)):
        total = base["aria"] + base["tools"]
        ratios.append(size / total)
        print(f"{i + 1:>7}  {n:>7}  {size:>12,}  {total:>9,}  {size / total:>5.2f}  {step[:60]}")
    b0 = baselines[0]
    print(f"\nregistered tools: {b0['tool_count']} ({b0['tools']:,} chars of descriptors); "
          f"offered per request: {min(offered)}-{max(offered)}")
    print(f"page.aria_snapshot(): mean {statistics.mean(b['aria'] for b in baselines):,.0f} chars; "
          f"our compact snapshot: mean {statistics.mean(b['ours_snapshot'] for b in baselines):,.0f} chars")
    overall = sum(ours) / sum(b["aria"] + b["tools"] for b in baselines)
    print(f"ratio (all {len(ours)} requests): {overall:.2f}  (mean per request {statistics.mean(ratios):.2f}, "
          f"max {max(ratios):.2f}; aim <= 0.6)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
