"""``trailblaze mcp`` per-call overhead: the same click, three ways, on the example shop in headless Chromium.

1. **dispatcher** — what ``trailblaze run`` does for a recorded call: ``session.dispatcher.call`` in-process
   (memory interpolation, validation, plugin execution hook, the web tool, event log).
2. **trailblaze mcp (stdio)** — the official Python MCP client calls ``web_click`` on a ``trailblaze mcp``
   subprocess: JSON-RPC over pipes, the hop to the device thread, recording the call into the pending step.
3. **@playwright/mcp** — Microsoft's MCP server doing ``browser_click`` on the same element, installed from
   npm into a temporary directory (skipped, with the reason, when npm or the package is unavailable),
   pointed at the same Chromium (``TRAILBLAZE_CHROMIUM``, else ``/usr/bin/chromium-headless-shell``). It
   is measured with its defaults (a full page snapshot after every action, 500 ms settle time) and with
   ``--snapshot-mode none --timeout-settle 0``, which is the closest to what the other two do.

The click is on the sign-in page's ``textbox "Email"`` by its snapshot ref (``e12``-style), an action that
changes nothing, so every call does the same work. Browser start, server start and the first snapshot are
outside the timed loop for all three. Ours is measured with the shop workspace's settings (a Playwright
trace recorded, kept on failure) and with ``-o trace=off``. Prints ms per call (median of the rounds) and
ratios.

    uv run python benchmarks/bench_mcp_server.py [--calls 50] [--rounds 3] [--no-playwright-mcp]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from mcp_server_helpers import TRAILBLAZE, server_env, shop_workspace  # noqa: E402

EMAIL = 'textbox "Email"'


def _ref(snapshot: str) -> str:
    line = next(ln for ln in snapshot.splitlines() if EMAIL in ln)
    found = re.search(r"\[(?:ref=)?(e\d+)\]", line)
    assert found, line
    return found.group(1)


def bench_dispatcher(ws: Path, calls: int, rounds: int, driver_options: dict[str, Any]) -> list[float]:
    from trailblaze.runner.lifecycle import SessionFactory
    from trailblaze.runner.options import RunOptions
    from trailblaze.tools.base import ToolCall

    options = RunOptions(output_dir=ws / "logs-dispatcher", report=False, save_recording=False, test_name="bench",
                         driver_options=dict(driver_options))
    out = []
    with SessionFactory(options).open(workspace=ws, driver="playwright-native") as lifecycle:
        session = lifecycle.session
        ctx = session.context(step_index=0)
        assert session.dispatcher.call(ToolCall("web_navigate", {"url": "/"}), ctx).success
        assert session.driver is not None
        ref = _ref(session.driver.snapshot())
        click = ToolCall("web_click", {"ref": ref})
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(calls):
                assert session.dispatcher.call(click, ctx).success
            out.append((time.perf_counter() - t0) * 1000 / calls)
    return out


async def _stdio_loop(command: str, args: list[str], cwd: Path, env: dict[str, str], setup: Any, calls: int,
                      rounds: int) -> list[float]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command, args=args, cwd=str(cwd), env=env)
    with open(cwd / f"bench-{Path(command).name}.stderr", "w") as err:
        async with stdio_client(params, errlog=err) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=120) as session:
                await session.initialize()
                name, arguments = await setup(session)
                out = []
                for _ in range(rounds):
                    t0 = time.perf_counter()
                    for _ in range(calls):
                        result = await session.call_tool(name, arguments)
                        assert not result.is_error, result
                    out.append((time.perf_counter() - t0) * 1000 / calls)
                return out


def bench_trailblaze_mcp(ws: Path, calls: int, rounds: int, driver_options: dict[str, Any]) -> list[float]:
    async def setup(session: Any) -> tuple[str, dict[str, Any]]:
        await session.call_tool("device", {"action": "WEB"})
        await session.call_tool("web_navigate", {"url": "/"})
        snapshot = (await session.call_tool("snapshot", {})).content[0].text
        return "web_click", {"ref": _ref(snapshot)}

    flags = [f for key, value in driver_options.items() for f in ("-o", f"{key}={value}")]
    return anyio.run(_stdio_loop, str(TRAILBLAZE), ["mcp", "--output-dir", str(ws / "logs-mcp"), *flags], ws,
                     server_env(), setup, calls, rounds)


def install_playwright_mcp(into: Path) -> tuple[Path | None, str]:
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm is not on PATH"
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(into), "@playwright/mcp@latest"],
                          capture_output=True, text=True, timeout=600, check=False)
    cli = into / "node_modules" / "@playwright" / "mcp" / "cli.js"
    if done.returncode != 0 or not cli.exists():
        return None, f"npm install @playwright/mcp failed: {(done.stderr or done.stdout).strip()[-300:]}"
    return cli, ""


@contextlib.contextmanager
def playwright_mcp_on_shop(tmp: Path, ws: Path, *, skip: bool,
                           notes: list[str]) -> Iterator[tuple[Path, str, str] | None]:
    """``@playwright/mcp`` installed from npm and the example shop served for it: (cli.js, shop URL,
    Chromium), or None with the reason added to ``notes``. Shared with bench_agent_tokens.py."""
    chromium = os.environ.get("TRAILBLAZE_CHROMIUM") or "/usr/bin/chromium-headless-shell"
    if skip:
        notes.append("@playwright/mcp skipped (--no-playwright-mcp)")
        yield None
        return
    if not Path(chromium).exists():
        notes.append(f"@playwright/mcp skipped: no Chromium at {chromium} (set TRAILBLAZE_CHROMIUM)")
        yield None
        return
    cli, why = install_playwright_mcp(tmp / "pwmcp")
    if cli is None:
        notes.append(f"@playwright/mcp skipped: {why}")
        yield None
        return
    sys.path.insert(0, str(ws))
    from server import ShopServer  # the example shop's own server module

    shop = ShopServer("127.0.0.1", port=0)
    url = str(shop.start()).rstrip("/")
    try:
        yield cli, url, chromium
    finally:
        shop.stop()


def first_error(exc: BaseException) -> str:
    """An exception group's first leaf, as one line (anyio wraps a server's failure in groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {str(exc)[:300]}"


def bench_playwright_mcp(cli: Path, shop_url: str, chromium: str, calls: int, rounds: int, extra: list[str],
                         cwd: Path) -> list[float]:
    async def setup(session: Any) -> tuple[str, dict[str, Any]]:
        await session.call_tool("browser_navigate", {"url": shop_url + "/"})
        snapshot = "\n".join(c.text for c in (await session.call_tool("browser_snapshot", {})).content
                             if getattr(c, "text", None))
        # @playwright/mcp 0.0.8x names the ref argument ``target`` (earlier releases: ``ref``).
        return "browser_click", {"element": "Email textbox", "target": _ref(snapshot)}

    node = shutil.which("node") or "node"
    args = [str(cli), "--headless", "--isolated", "--no-sandbox", "--executable-path", chromium, *extra]
    return anyio.run(_stdio_loop, node, args, cwd, dict(os.environ), setup, calls, rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-playwright-mcp", action="store_true")
    args = parser.parse_args()
    results: dict[str, float] = {}
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-mcp-server-") as tmp:
        ws = shop_workspace(Path(tmp) / "shop")
        # The shop's workspace records a Playwright trace (kept on failure), which costs every action
        # something; @playwright/mcp records none, so ours is also measured with -o trace=off.
        for suffix, driver_options in (("", {}), (", trace off", {"trace": "off"})):
            results[f"dispatcher (trailblaze run){suffix}"] = statistics.median(
                bench_dispatcher(ws, args.calls, args.rounds, driver_options))
            results[f"trailblaze mcp (stdio){suffix}"] = statistics.median(
                bench_trailblaze_mcp(ws, args.calls, args.rounds, driver_options))
        with playwright_mcp_on_shop(Path(tmp), ws, skip=args.no_playwright_mcp, notes=notes) as found:
            if found is not None:
                cli, url, chromium = found
                for label, extra in (("@playwright/mcp (defaults)", []),
                                     ("@playwright/mcp (--snapshot-mode none --timeout-settle 0)",
                                      ["--snapshot-mode", "none", "--timeout-settle", "0"])):
                    try:
                        results[label] = statistics.median(bench_playwright_mcp(
                            cli, url, chromium, args.calls, args.rounds, extra, Path(tmp)))
                    except Exception as exc:  # noqa: BLE001 - report, keep the other figures
                        notes.append(f"{label} failed: {first_error(exc)}")
    base = results["dispatcher (trailblaze run)"]
    print(f"web_click by ref on the example shop, {args.calls} calls x {args.rounds} rounds (median ms per call)")
    for label, ms in results.items():
        print(f"  {label:<60} {ms:8.2f} ms   x{ms / base:5.2f} vs dispatcher")
    off = results["trailblaze mcp (stdio), trace off"]
    print(f"  trailblaze mcp / dispatcher, trace off: x{off / results['dispatcher (trailblaze run), trace off']:.2f}")
    for label, ms in results.items():
        if label.startswith("@playwright/mcp"):
            print(f"  trailblaze mcp (trace off) / {label}: x{off / ms:.2f}")
    for note in notes:
        print(f"  note: {note}")


if __name__ == "__main__":
    main()
