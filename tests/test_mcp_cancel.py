"""A ``trail`` RUN over MCP that the client cancels, or that a SIGTERM of ``trailblaze mcp --http`` cuts
short, stops: the steps after the cancellation never run, and stderr holds no traceback (it used to run
to the end and then print a double ``InvalidStateError``)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import TRAILBLAZE, server_env, text_of  # noqa: E402

pytestmark = [pytest.mark.browser]

SLOW_TRAIL = """\
config: {id: cancel/slow}
trail:
  - step: Wait a while
    recording:
      host:
        - wait: {timeToWaitInSeconds: 6}
  - step: Leave a mark (must not happen after a cancellation)
    recording:
      host:
        - exec: {argv: [touch, marker]}
"""


def workspace(root: Path) -> Path:
    (root / "trails" / "config").mkdir(parents=True)
    (root / "trails" / "config" / "trailblaze.yaml").write_text("defaults: {}\n")
    (root / "trails" / "slow.trail.yaml").write_text(SLOW_TRAIL)
    return root


def test_a_cancelled_trail_run_stops(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    params = StdioServerParameters(command=str(TRAILBLAZE), args=["mcp", "--allow-host-tools", "--output-dir",
                                                                  str(ws / "logs")], cwd=str(ws), env=server_env())

    async def main() -> str:
        with open(ws / "server.stderr", "w") as err:
            async with stdio_client(params, errlog=err) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=60) as session:
                    await session.initialize()
                    with anyio.move_on_after(1.5):
                        await session.call_tool("trail", {"action": "RUN", "file": "trails/slow.trail.yaml"})
                    await anyio.sleep(8)  # past the wait: the second step would have run by now
                    # The server still answers.
                    return text_of(await session.call_tool("trail", {"action": "LIST"}))

    assert "trails/slow.trail.yaml" in anyio.run(main)
    assert not (ws / "marker").exists()
    stderr = (ws / "server.stderr").read_text()
    assert "InvalidStateError" not in stderr and "Traceback" not in stderr, stderr


def test_sigterm_during_a_trail_run_over_http_is_quiet(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    token_file = tmp_path / "token.json"
    with open(ws / "server.stderr", "w") as err:
        proc = subprocess.Popen([str(TRAILBLAZE), "mcp", "--http", "--port", "0", "--token-file", str(token_file),
                                 "--allow-host-tools", "--output-dir", str(ws / "logs")], cwd=ws, env=server_env(),
                                stderr=err)
    try:
        deadline = time.monotonic() + 60
        while not token_file.exists() or not token_file.read_text().strip():
            assert proc.poll() is None, (ws / "server.stderr").read_text()
            assert time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.1)
        info = json.loads(token_file.read_text())

        async def main() -> None:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            client = httpx2.AsyncClient(headers=info["headers"], timeout=httpx2.Timeout(60.0))
            async with client, streamable_http_client(info["url"], http_client=client) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=60) as session:
                    await session.initialize()
                    with anyio.move_on_after(1.5):
                        await session.call_tool("trail", {"action": "RUN", "file": "trails/slow.trail.yaml"})
                    proc.send_signal(signal.SIGTERM)

        anyio.run(main)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    time.sleep(6)
    assert not (ws / "marker").exists()
    stderr = (ws / "server.stderr").read_text()
    assert "InvalidStateError" not in stderr and "Traceback" not in stderr, stderr
