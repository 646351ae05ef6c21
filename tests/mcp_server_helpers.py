"""Shared by the ``trailblaze mcp`` tests and its benchmark: workspaces, process trees, and the example-shop
flow an agent performs through the official MCP client SDK."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHOP = REPO / "examples" / "web-shop"
FAKE_APP_DIR = REPO / "examples" / "mobile" / "fake-shop" / "app"
INVENTORY_SERVER = REPO / "examples" / "mcp-tools" / "servers" / "inventory.py"
TRAILBLAZE = Path(sys.executable).parent / "trailblaze"
PASSWORD = "secret123"
EMAIL = "hiker@example.com"
SAVED = "trails/mcp-sign-in.trail.yaml"


def shop_workspace(root: Path, extra_config: str = "") -> Path:
    """A copy of the example shop's workspace (the example plugin serves the shop for its sessions)."""
    shutil.copytree(SHOP / "trails" / "config", root / "trails" / "config")
    shutil.copytree(SHOP / "app", root / "app")
    shutil.copy(SHOP / "server.py", root / "server.py")
    config = root / "trails" / "config" / "trailblaze.yaml"
    config.write_text(config.read_text() + extra_config)
    return root


def devices_workspace(root: Path) -> Path:
    """No target: a browser, the Appium fake driver (Trailblaze starts Appium itself) and a Python MCP
    tool server started for every session."""
    shutil.copytree(FAKE_APP_DIR, root / "app")
    (root / "trails" / "config").mkdir(parents=True)
    (root / "trails" / "config" / "trailblaze.yaml").write_text(f"""\
drivers:
  android-appium-uiautomator2:
    platform_name: Fake
    automation_name: Fake
    app: {root / 'app' / 'shop-android.xml'}
    wait_timeout_ms: 800
    poll_interval_ms: 50
  ios-appium-xcuitest:
    platform_name: Fake
    automation_name: Fake
    app: {root / 'app' / 'shop-ios.xml'}
    wait_timeout_ms: 800
    poll_interval_ms: 50
mcpServers:
  - name: inventory
    script: {INVENTORY_SERVER}
""")
    return root


def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.pop("TRAILBLAZE_DEFAULT_MODEL", None)
    env.update(extra)
    return env


HttpServer = tuple["subprocess.Popen[bytes]", dict[str, Any]]


@contextmanager
def http_server(ws: Path, token_file: Path, *args: str,
                preexec_fn: Callable[[], None] | None = None) -> Iterator[HttpServer]:
    """``trailblaze mcp --http`` on a free port in ``ws`` (stderr to ``ws/server.stderr``), once its token
    file is written: yields the process and the token file's document. At exit: SIGTERM, then wait."""
    with open(ws / "server.stderr", "w") as err:
        command = [str(TRAILBLAZE), "mcp", "--http", "--port", "0", "--token-file", str(token_file),
                   "--output-dir", str(ws / "logs"), *args]
        proc = subprocess.Popen(command, cwd=ws, env=server_env(), stderr=err, preexec_fn=preexec_fn)
    try:
        deadline = time.monotonic() + 60
        # Written means: a regular file (a symlink there is replaced, not written through) with the token.
        while token_file.is_symlink() or not token_file.is_file() or "token" not in token_file.read_text():
            assert proc.poll() is None, (ws / "server.stderr").read_text()
            assert time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.1)
        yield proc, json.loads(token_file.read_text())
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@asynccontextmanager
async def http_session(info: dict[str, Any], timeout: float = 120.0) -> AsyncIterator[Any]:
    """An initialized MCP ``ClientSession`` over Streamable HTTP, with the headers of ``info`` (the token
    file's document)."""
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    client = httpx2.AsyncClient(headers=info["headers"], timeout=httpx2.Timeout(timeout))
    async with client, streamable_http_client(info["url"], http_client=client) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=timeout) as session:
            await session.initialize()
            yield session


def live_tree(root_pid: int) -> dict[int, str]:
    """``root_pid``'s live descendants (zombies excluded) with their command lines, from /proc."""
    children: dict[int, list[int]] = {}
    commands: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                command = fh.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except (OSError, IndexError):
            continue
        if fields[0] == "Z":
            continue
        commands[int(entry)] = command
        children.setdefault(int(fields[1]), []).append(int(entry))
    out: dict[int, str] = {}
    stack = [root_pid]
    while stack:
        for child in children.get(stack.pop(), []):
            if child in commands and child not in out:
                out[child] = commands[child]
                stack.append(child)
    return out


def alive(pids: list[int]) -> list[int]:
    """Which of ``pids`` still run (zombies count as gone)."""
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
                state = fh.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            out.append(pid)
    return out


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def ref(snapshot: str, element: str) -> str:
    found = re.search(r"\[([a-z][a-z0-9]*\d)\] " + re.escape(element), snapshot)
    assert found, f"{element} not on screen:\n{snapshot}"
    return found.group(1)


async def explore_and_save(session: Any, saved: str = SAVED, password: str = "{{password}}") -> dict[str, Any]:
    """What an agent does on the shop: connect a browser, open the sign-in page, read the page, sign in by
    refs (the password as its secret token, or typed in literally), check the welcome, save the trail.
    Returns what it saw."""
    seen: dict[str, Any] = {"results": []}

    async def call(name: str, args: dict[str, Any], step: str | None = None) -> Any:
        result = await session.call_tool(name, args, meta={"trailblaze/step": step} if step else None)
        seen["results"].append(text_of(result))
        assert not result.is_error, f"{name}: {text_of(result)}"
        return result

    connected = await call("device", {"action": "WEB"})
    seen["device"] = connected.structured_content
    seen["tools"] = [t.name for t in (await session.list_tools()).tools]
    await call("web_navigate", {"url": "/"}, "Open the shop's sign-in page")
    snapshot = text_of(await call("snapshot", {}))
    seen["snapshot"] = snapshot
    await call("web_type", {"ref": ref(snapshot, 'textbox "Email"'), "text": EMAIL}, "Sign in")
    await call("web_fillSecret", {"ref": ref(snapshot, 'textbox "Password"'), "value": password}, "Sign in")
    await call("web_click", {"ref": ref(snapshot, 'button "Sign in"')}, "Sign in")
    verified = await call("verify", {"assertion": "The header welcomes the user by email",
                                     "tools": [{"web_verifyTextVisible": {"text": f"Welcome, {EMAIL}"}}]})
    seen["verified"] = verified.structured_content
    saved_result = await call("trail", {"action": "SAVE", "file": saved})
    seen["saved"] = saved_result.structured_content
    seen["recording"] = json.loads((await session.read_resource("trailblaze://recording")).contents[0].text)
    return seen
