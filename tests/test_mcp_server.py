"""``trailblaze mcp`` as a coding agent sees it: the official MCP client SDK talks to the real command in a
subprocess (stdio and Streamable HTTP), drives headless Chromium on the example shop and Appium's fake
driver, and the trail it saves replays with ``trailblaze run`` and no model."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from trailblaze.testing_llm import RecordedRequest, Reply, ScriptedLlmServer, call, done

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import (EMAIL, PASSWORD, SAVED, TRAILBLAZE, alive, devices_workspace,  # noqa: E402
                                explore_and_save, live_tree, ref, server_env, shop_workspace, text_of)

pytestmark = [pytest.mark.browser]


@asynccontextmanager
async def stdio_session(ws: Path, *args: str, messages: list[Any] | None = None,
                        errlog: Any = None) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=str(TRAILBLAZE), args=["mcp", "--output-dir", str(ws / "logs"), *args],
                                   cwd=str(ws), env=server_env())

    async def on_message(message: Any) -> None:
        if messages is not None:
            messages.append(message)

    with open(ws / "server.stderr", "w") if errlog is None else errlog as err:
        async with stdio_client(params, errlog=err) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=120, message_handler=on_message) as session:
                yield session


def replay(ws: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``trailblaze run`` of the saved trail in a fresh process: no model is configured."""
    return subprocess.run([str(TRAILBLAZE), "run", SAVED, "--output-dir", str(ws / "replay-logs"), *extra], cwd=ws,
                          capture_output=True, text=True, env=server_env(), timeout=300, check=False)


def assert_no_secret(ws: Path) -> None:
    for path in ws.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".yaml", ".txt", ".html", ".stderr", ".log"):
            assert PASSWORD not in path.read_text(encoding="utf-8", errors="replace"), path


def check_saved_trail(ws: Path, seen: dict[str, Any]) -> None:
    saved = ws / SAVED
    text = saved.read_text()
    assert seen["saved"]["steps"] == 3 and seen["saved"]["created"] is True
    assert "target: shop" in text and "web: playwright-native" in text
    assert "- step: Open the shop's sign-in page" in text and "- step: Sign in" in text
    assert "- verify: The header welcomes the user by email" in text
    # Refs were turned into stable selectors; the password is its token, never its value.
    assert "ref: e" not in text and "{{password}}" in text and PASSWORD not in text
    assert "ariaRole: textbox" in text and "ariaNameRegex: Sign in" in text
    assert seen["recording"]["steps"] == []  # saved steps leave the pending recording


def test_stdio_session_records_a_trail_that_replays_without_a_model(tmp_path: Path) -> None:
    ws = shop_workspace(tmp_path / "shop")
    messages: list[Any] = []

    async def main() -> dict[str, Any]:
        async with stdio_session(ws, "--secret", f"password={PASSWORD}", messages=messages) as session:
            init = await session.initialize()
            assert init.server_info.name == "Trailblaze MCP server"
            assert init.capabilities.tools is not None and init.capabilities.tools.list_changed
            assert init.capabilities.resources is not None and init.capabilities.logging is not None
            before = [t.name for t in (await session.list_tools()).tools]
            assert before == ["device", "snapshot", "step", "verify", "trail", "toolbox"]
            seen = await explore_and_save(session)
            seen["registry"] = json.loads((await session.read_resource("trailblaze://registry")).contents[0].text)
            seen["trails"] = json.loads((await session.read_resource("trailblaze://trails")).contents[0].text)
            seen["last"] = (await session.read_resource("trailblaze://snapshot")).contents[0].text
            return seen

    seen = anyio.run(main)
    assert "web_click" in seen["tools"] and "exec" not in seen["tools"]
    assert 'textbox "Email"' in seen["snapshot"]
    assert seen["registry"]["tools"]["web_click"]["source"].startswith("plugin 'web'")
    assert "web_core" in seen["registry"]["groups"]
    assert SAVED in [t["file"] for t in seen["trails"]["trails"]]
    assert seen["last"] == seen["snapshot"]
    assert any(getattr(m, "method", "") == "notifications/tools/list_changed" for m in messages)
    assert any(getattr(m, "method", "") == "notifications/message" for m in messages)
    check_saved_trail(ws, seen)
    result = replay(ws, "--secret", f"password={PASSWORD}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    assert_no_secret(ws)


def test_streamable_http_needs_the_token_and_records_the_same_trail(tmp_path: Path) -> None:
    ws = shop_workspace(tmp_path / "shop")
    token_file = tmp_path / "token.json"
    proc = subprocess.Popen([str(TRAILBLAZE), "mcp", "--http", "--port", "0", "--token-file", str(token_file),
                             "--secret", f"password={PASSWORD}", "--output-dir", str(ws / "logs")],
                            cwd=ws, env=server_env(), stdout=subprocess.PIPE, stderr=open(ws / "server.stderr", "w"),
                            text=True)
    try:
        deadline = time.monotonic() + 60
        while not token_file.exists() or not token_file.read_text().strip():
            assert proc.poll() is None, (ws / "server.stderr").read_text()
            assert time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.1)
        info = json.loads(token_file.read_text())
        assert info["url"].startswith("http://127.0.0.1:") and info["url"].endswith("/mcp")
        assert (token_file.stat().st_mode & 0o777) == 0o600
        for headers in ({}, {"Authorization": "Bearer wrong-token"}):
            request = urllib.request.Request(info["url"], data=b"{}", headers={**headers, "Content-Type": "application/json"})
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=10)
            assert refused.value.code == 401

        async def main() -> dict[str, Any]:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            client = httpx2.AsyncClient(headers=info["headers"], timeout=httpx2.Timeout(120.0))
            async with client, streamable_http_client(info["url"], http_client=client) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=120) as session:
                    init = await session.initialize()
                    assert init.capabilities.tools is not None and init.capabilities.tools.list_changed
                    return await explore_and_save(session)

        seen = anyio.run(main)
        check_saved_trail(ws, seen)
        # The browser belongs to the server process, not to one HTTP session: it is still up.
        tree = live_tree(proc.pid)
        assert any("chrom" in cmd for cmd in tree.values()), tree
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
    assert proc.returncode == 0, (ws / "server.stderr").read_text()
    assert alive(list(tree)) == [], {p: tree[p] for p in alive(list(tree))}
    result = replay(ws, "--secret", f"password={PASSWORD}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert_no_secret(ws)
