"""A ``trail`` RUN over MCP that the client cancels, or that a SIGTERM of ``trailblaze mcp --http`` cuts
short, stops: the steps after the cancellation never run, and stderr holds no traceback (it used to run
to the end and then print a double ``InvalidStateError``)."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import TRAILBLAZE, http_server, http_session, server_env, text_of  # noqa: E402

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
    args = ["mcp", "--allow-host-tools", "--output-dir", str(ws / "logs")]
    params = StdioServerParameters(command=str(TRAILBLAZE), args=args, cwd=str(ws), env=server_env())

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
    with http_server(ws, tmp_path / "token.json", "--allow-host-tools") as (proc, info):

        async def main() -> None:
            async with http_session(info, timeout=60) as session:
                with anyio.move_on_after(1.5):
                    await session.call_tool("trail", {"action": "RUN", "file": "trails/slow.trail.yaml"})
                proc.send_signal(signal.SIGTERM)

        anyio.run(main)
        proc.wait(timeout=60)
    time.sleep(6)
    assert not (ws / "marker").exists()
    stderr = (ws / "server.stderr").read_text()
    assert "InvalidStateError" not in stderr and "Traceback" not in stderr, stderr
