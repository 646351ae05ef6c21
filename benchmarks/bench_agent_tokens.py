"""Tokens an agent reads per action: the session CLI (skill file once + each command's output) vs
``trailblaze mcp`` (``tools/list`` once + each result) vs ``@playwright/mcp`` with its defaults.

The same five-action flow on the example shop for all three: look at the sign-in page, type the email,
type the password, click "Sign in", check the welcome text. What the agent *reads* is counted: for the
CLI the skill file (loaded once, as agents load skills) and every stdout/stderr of the commands; for the
MCP servers the tool list (sent once per conversation) and every result's text content. Tokens are
estimated as characters / 4 for all three (the ratio is what matters, not the tokenizer).

    uv run python benchmarks/bench_agent_tokens.py [--no-playwright-mcp]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))
from mcp_server_helpers import EMAIL, PASSWORD, TRAILBLAZE, server_env, shop_workspace  # noqa: E402


def tokens(text: str) -> int:
    return (len(text) + 3) // 4


def ref_of(snapshot: str, descriptor: str) -> str:
    import re

    line = next(ln for ln in snapshot.splitlines() if descriptor in ln)
    found = re.search(r"\[(?:ref=)?(e\d+)\]", line)
    assert found, line
    return found.group(1)


def measure_cli(ws: Path) -> tuple[int, list[int]]:
    """(tokens read once, tokens read per action) through ``trailblaze session``."""
    session_dir = Path(tempfile.mkdtemp(prefix="tbs-"))
    env = {**server_env(), "TRAILBLAZE_SESSION_DIR": str(session_dir), "TRAILBLAZE_SESSION": "bench",
           "SHOP_PASSWORD": PASSWORD}

    def tb(*args: str) -> str:
        done = subprocess.run([str(TRAILBLAZE), *args], cwd=ws, env=env, capture_output=True, text=True,
                              timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout + done.stderr

    once = tokens(tb("skill", "show")) + tokens(tb("session", "start", "--name", "bench", "--url", "/",
                                                    "--secret-env", "password=SHOP_PASSWORD"))
    try:
        snapshot = tb("snapshot")
        email, password, sign_in = (ref_of(snapshot, d) for d in ('textbox "Email"', 'textbox "Password"',
                                                                   'button "Sign in"'))
        outputs = [snapshot,
                   tb("tool", "web_type", f"ref={email}", f"text={EMAIL}"),
                   tb("tool", "web_fillSecret", f"ref={password}", "value={{password}}"),
                   tb("tool", "web_click", f"ref={sign_in}"),
                   tb("verify", "The shop greets the hiker", "--tools",
                      f"[{{web_verifyTextVisible: {{text: 'Welcome, {EMAIL}'}}}}]")]
    finally:
        tb("session", "stop", "--name", "bench")
        shutil.rmtree(session_dir, ignore_errors=True)
    return once, [tokens(o) for o in outputs]


def _texts(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


async def _mcp_flow(command: str, args: list[str], cwd: Path, env: dict[str, str], flow: Any) -> tuple[int, list[int]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command, args=args, cwd=str(cwd), env=env)
    with open(cwd / f"bench-tokens-{Path(command).name}.stderr", "w") as err:
        async with stdio_client(params, errlog=err) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=120) as session:
                await session.initialize()
                return await flow(session)


def _tool_list(listed: Any) -> str:
    return json.dumps([t.model_dump(mode="json", exclude_none=True) for t in listed.tools])


def measure_trailblaze_mcp(ws: Path) -> tuple[int, list[int]]:
    async def flow(session: Any) -> tuple[int, list[int]]:
        connect = _texts(await session.call_tool("device", {"action": "WEB"}))
        navigate = _texts(await session.call_tool("web_navigate", {"url": "/"}))
        once = tokens(_tool_list(await session.list_tools())) + tokens(connect) + tokens(navigate)
        snapshot = _texts(await session.call_tool("snapshot", {}))
        outputs = [snapshot,
                   _texts(await session.call_tool("web_type", {"ref": ref_of(snapshot, 'textbox "Email"'),
                                                               "text": EMAIL})),
                   _texts(await session.call_tool("web_fillSecret", {"ref": ref_of(snapshot, 'textbox "Password"'),
                                                                     "value": "{{password}}"})),
                   _texts(await session.call_tool("web_click", {"ref": ref_of(snapshot, 'button "Sign in"')})),
                   _texts(await session.call_tool("verify", {"assertion": "The shop greets the hiker", "tools": [
                       {"web_verifyTextVisible": {"text": f"Welcome, {EMAIL}"}}]}))]
        return once, [tokens(o) for o in outputs]

    args = ["mcp", "--output-dir", str(ws / "logs-mcp"), "--secret-env", "password=SHOP_PASSWORD"]
    return anyio.run(_mcp_flow, str(TRAILBLAZE), args, ws, {**server_env(), "SHOP_PASSWORD": PASSWORD}, flow)


def measure_playwright_mcp(cli: Path, url: str, chromium: str, cwd: Path) -> tuple[int, list[int]]:
    async def flow(session: Any) -> tuple[int, list[int]]:
        navigate = _texts(await session.call_tool("browser_navigate", {"url": url + "/"}))
        once = tokens(_tool_list(await session.list_tools()))
        snapshot = _texts(await session.call_tool("browser_snapshot", {}))

        def target(descriptor: str) -> dict[str, str]:
            ref = ref_of(snapshot, descriptor)
            return {"element": descriptor, "target": ref, "ref": ref}

        outputs = [navigate + snapshot,
                   _texts(await session.call_tool("browser_type", {**target('textbox "Email"'), "text": EMAIL})),
                   _texts(await session.call_tool("browser_type", {**target('textbox "Password"'), "text": PASSWORD})),
                   _texts(await session.call_tool("browser_click", target('button "Sign in"'))),
                   _texts(await session.call_tool("browser_snapshot", {}))]  # its way to check the page
        return once, [tokens(o) for o in outputs]

    node = shutil.which("node") or "node"
    args = [str(cli), "--headless", "--isolated", "--no-sandbox", "--executable-path", chromium]
    return anyio.run(_mcp_flow, node, args, cwd, dict(os.environ), flow)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-playwright-mcp", action="store_true")
    args = parser.parse_args()
    results: dict[str, tuple[int, list[int]]] = {}
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-agent-tokens-") as tmp:
        ws = shop_workspace(Path(tmp) / "shop")
        results["trailblaze session CLI"] = measure_cli(ws)
        results["trailblaze mcp"] = measure_trailblaze_mcp(ws)
        from bench_mcp_server import first_error, playwright_mcp_on_shop

        with playwright_mcp_on_shop(Path(tmp), ws, skip=args.no_playwright_mcp, notes=notes) as found:
            if found is not None:
                cli, url, chromium = found
                try:
                    results["@playwright/mcp (defaults)"] = measure_playwright_mcp(cli, url, chromium, Path(tmp))
                except Exception as exc:  # noqa: BLE001 - report, keep the other figures
                    notes.append(f"@playwright/mcp failed: {first_error(exc)}")
    print("Tokens an agent reads for a five-action flow (snapshot, type, type password, click, verify), chars/4")
    totals = {}
    for label, (once, per_action) in results.items():
        totals[label] = once + sum(per_action)
        print(f"  {label:<28} once {once:6d}  per action {per_action}  total {totals[label]:6d}  "
              f"({totals[label] / len(per_action):.0f} per action)")
    base = totals["trailblaze mcp"]
    print(f"  CLI / trailblaze mcp: {totals['trailblaze session CLI'] / base:.2f} (aim <= 0.5)")
    for label, total in totals.items():
        if label.startswith("@playwright"):
            print(f"  CLI / {label}: {totals['trailblaze session CLI'] / total:.2f}")
    for note in notes:
        print(f"  note: {note}")


if __name__ == "__main__":
    main()
