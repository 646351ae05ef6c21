"""Prompt size per model request on the example web shop: what the agent sends against a naive baseline.

Baseline (per request, measured at the same moment on the same page): the page's ``page.aria_snapshot()``
plus the OpenAI descriptors of *every* tool registered in the session (web, Android, iOS, YAML, ...).
Our path: the whole JSON body the agent actually sent (system prompt, step, earlier steps, memory, this
step's calls and results, the compact snapshot with refs, and the descriptors of only the tools the
session offers: its driver's, its toolsets', ``surface_to_llm`` ones; verification only on ``verify:``).

A scripted model (over HTTP, through the real ``openai`` client) signs in, searches the catalogue, opens a
product and checks the page, reading refs from the snapshot as a real model would. Aim: ratio <= 0.6.

A second flow runs on a page of 2,000 list items (``big.html``, written into the workspace and served on
loopback like the shop): open it, load one more item, check it. Both flows also print the characters of
each request that are *new* — beyond the longest prefix it shares with the request before it, which a
provider's prompt cache can serve (the static prefix: system text and tools; on big screens the kept
earlier looks).

With ``--before SRC`` (another tree's ``trailblaze-core/src``, e.g. a ``git archive`` of the commit before
a change), the same flows run on that tree in a subprocess and the mean request sizes are set side by
side (issue 36's aim: the shop flow's mean request <= 0.5 of before).

    uv run python benchmarks/bench_prompt_size.py [--before /tmp/before/trailblaze-core/src]
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


BIG_ITEMS = 2_000
BIG_PAGE = """<!doctype html><html><head><title>Trail maps</title><style>#maps {display: grid; margin: 0; padding: 0;
grid-template-columns: repeat(8, 1fr)} #maps li {list-style: none; height: 18px; font-size: 12px}</style></head>
<body><main><h1>Trail maps</h1>
<button id="more" onclick="const li = document.createElement('li'); li.textContent = 'Map ' + 
document.querySelectorAll('#maps li').length; document.getElementById('maps').appendChild(li)">Load more</button>
<ul id="maps">%s</ul></main></body></html>"""

BIG_TRAIL = """\
config:
  title: big-page benchmark
  target: shop
  devices: {web: PLAYWRIGHT_NATIVE}
trail:
  - step: Open the trail maps page
  - step: Load one more map and check that Map %d is listed
""" % BIG_ITEMS


def big_model(request: Any) -> Any:
    from trailblaze.testing.llm import call, done

    n = len(request.tool_results())
    if "trail maps page" in request.objective:
        return [call("web_navigate", url="/big.html"), done()][min(n, 1)]
    plan = [lambda: call("web_click", ref=request.ref_on_screen('button "Load more"')),
            lambda: call("web_verifyTextVisible", text=f"Map {BIG_ITEMS}"), lambda: done()]
    return plan[min(n, 2)]()


def prompt_order(body: dict[str, Any]) -> str:
    """The request in the order a provider builds its prompt (tools, system, messages), which is the order
    its prefix cache matches in; the JSON body puts ``messages`` before ``tools``."""
    return json.dumps([body.get("tools"), body.get("system"), body.get("messages")], ensure_ascii=False)


def new_chars(raws: list[str]) -> list[int]:
    """Per request, the characters beyond the longest prefix it shares with the request before it."""
    out, previous = [], ""
    for raw in raws:
        shared = 0
        for a, b in zip(raw, previous):
            if a != b:
                break
            shared += 1
        out.append(len(raw) - shared)
        previous = raw
    return out


def run_flow(trail: str, script: Any, *, big: bool, keep: bool) -> tuple[list[Any], int] | None:
    """Run ``trail`` on a copy of the example shop with the scripted model; the requests and exit code."""
    from trailblaze.testing import run_cli
    from trailblaze.testing.llm import ScriptedLlmServer

    with tempfile.TemporaryDirectory() as tmp, ScriptedLlmServer(script) as server:
        root = Path(tempfile.mkdtemp(prefix="bench-prompt-")) / "shop" if keep else Path(tmp) / "shop"
        if keep:
            print(f"workspace kept at {root}")
        shutil.copytree(EXAMPLE / "trails" / "config", root / "trails" / "config")
        shutil.copytree(EXAMPLE / "app", root / "app")
        shutil.copy(EXAMPLE / "server.py", root / "server.py")
        if big:
            (root / "app" / "big.html").write_text(BIG_PAGE % "".join(f"<li>Map {i}</li>" for i in range(BIG_ITEMS)))
        config = root / "trails" / "config" / "trailblaze.yaml"
        config.write_text(config.read_text() + (
            f"llm:\n  providers:\n    openai:\n      base_url: {server.openai_base_url}\n"
            "      auth: {required: false}\n"
            # Text only: the baseline has no picture either (a vision model adds one PNG per request).
            "      models: [{id: gpt-4.1-mini, vision: false}]\n"
            "  defaults: {model: openai/gpt-4.1-mini}\n"))
        (root / "trails" / "bench.trail.yaml").write_text(trail)
        # the big page: a viewport tall enough to show every item (offscreen elements are summarised)
        tall = ["-o", "viewport=1280x6000"] if big else []
        result = run_cli(["run", "trails", "--output-dir", str(root / "logs"), "--no-report", "--no-save-recording",
                          "--memory", "email=hiker@example.com", "--secret", "password=secret123", *tall], cwd=root)
        if result.exit_code != 0:
            print(result.output, file=sys.stderr)
            return None
        return list(server.requests), result.exit_code


def sizes_only() -> int:
    """``--json``: the request sizes of both flows as JSON (what ``--before`` reads from the other tree)."""
    out = {}
    for name, trail, script, big in (("shop", TRAIL, model, False), ("big", BIG_TRAIL, big_model, True)):
        ran = run_flow(trail, script, big=big, keep=False)
        if ran is None:
            return 1
        out[name] = {"chars": [len(r.raw) for r in ran[0]], "new": new_chars([prompt_order(r.body) for r in ran[0]])}
    print(json.dumps(out))
    return 0


def before_figures(src: str) -> dict[str, Any] | None:
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run([sys.executable, __file__, "--json"], env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    if done.returncode != 0:
        print(f"--before run failed:\n{done.stdout}{done.stderr}", file=sys.stderr)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> int:
    if "--json" in sys.argv:
        return sizes_only()
    before = None
    if "--before" in sys.argv:
        before = before_figures(sys.argv[sys.argv.index("--before") + 1])
        if before is None:
            return 1
    code = shop_flow(before)
    if code:
        return code
    return big_flow(before)


def big_flow(before: dict[str, Any] | None) -> int:
    ran = run_flow(BIG_TRAIL, big_model, big=True, keep=False)
    if ran is None:
        return 1
    sizes, fresh = [len(r.raw) for r in ran[0]], new_chars([prompt_order(r.body) for r in ran[0]])
    print(f"\nPage of {BIG_ITEMS:,} list items: {len(sizes)} requests")
    print(f"{'request':>7}  {'chars':>8}  {'new':>8}  step")
    for i, (size, new, r) in enumerate(zip(sizes, fresh, ran[0])):
        print(f"{i + 1:>7}  {size:>8,}  {new:>8,}  {r.objective[:60]}")
    print(f"mean request {statistics.mean(sizes):,.0f} chars, mean new {statistics.mean(fresh):,.0f} chars")
    if before is not None:
        b = before["big"]
        print(f"before: mean request {statistics.mean(b['chars']):,.0f} chars, mean new "
              f"{statistics.mean(b['new']):,.0f} chars; new chars after/before "
              f"{statistics.mean(fresh) / statistics.mean(b['new']):.2f}")
    return 0


def shop_flow(before: dict[str, Any] | None) -> int:
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
    ran = run_flow(TRAIL, model, big=False, keep="--keep" in sys.argv)
    PlaywrightDriver.snapshot = original  # type: ignore[method-assign]
    PlaywrightDriver.start = original_start  # type: ignore[method-assign]
    if ran is None:
        return 1
    requests = ran[0]
    if "--dump" in sys.argv:
        Path("/tmp/bench_prompt_requests.json").write_text(json.dumps([r.body for r in requests]))
    ours = [len(r.raw) for r in requests]
    fresh = new_chars([prompt_order(r.body) for r in requests])
    steps = [r.objective for r in requests]
    offered = [len(r.offered_tools) if hasattr(r, "offered_tools") else len(r.tool_names) for r in requests]
    full = [len([n for n in r.tool_names if n != "toolDescriptor"]) for r in requests]
    if len(ours) != len(baselines):
        print(f"mismatch: {len(ours)} requests, {len(baselines)} snapshots", file=sys.stderr)
        return 1
    print(f"{'request':>7}  {'offered':>7}  {'in full':>7}  {'ours (chars)':>12}  {'new':>6}  {'baseline':>9}  "
          f"{'ratio':>5}  step")
    ratios = []
    for i, (size, new, base, step, n, f) in enumerate(zip(ours, fresh, baselines, steps, offered, full)):
        total = base["aria"] + base["tools"]
        ratios.append(size / total)
        print(f"{i + 1:>7}  {n:>7}  {f:>7}  {size:>12,}  {new:>6,}  {total:>9,}  {size / total:>5.2f}  {step[:60]}")
    b0 = baselines[0]
    print(f"\nregistered tools: {b0['tool_count']} ({b0['tools']:,} chars of descriptors); "
          f"offered per request: {min(offered)}-{max(offered)}")
    print(f"page.aria_snapshot(): mean {statistics.mean(b['aria'] for b in baselines):,.0f} chars; "
          f"our compact snapshot: mean {statistics.mean(b['ours_snapshot'] for b in baselines):,.0f} chars")
    overall = sum(ours) / sum(b["aria"] + b["tools"] for b in baselines)
    print(f"ratio (all {len(ours)} requests): {overall:.2f}  (mean per request {statistics.mean(ratios):.2f}, "
          f"max {max(ratios):.2f}; aim <= 0.6)")
    print(f"mean request {statistics.mean(ours):,.0f} chars, mean new (not a cacheable prefix) "
          f"{statistics.mean(fresh):,.0f} chars")
    if before is not None:
        b = before["shop"]
        print(f"before: mean request {statistics.mean(b['chars']):,.0f} chars, "
              f"mean new {statistics.mean(b['new']):,.0f}; "
              f"after/before {statistics.mean(ours) / statistics.mean(b['chars']):.2f} (aim <= 0.5)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
