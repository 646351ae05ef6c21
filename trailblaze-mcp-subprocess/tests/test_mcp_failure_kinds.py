"""Through ``trailblaze run`` in a subprocess: which exit code a tool server's trouble gives, and what it says.

A timeout, a crash and stdout garbage are the server's fault, not the app's: exit 2 with one line naming
the server and what it said. A tool that answers ``isError`` failed the step: exit 1. Nothing of asyncio's
internals (never-awaited coroutines, unretrieved futures, destroyed tasks) reaches the user.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ASYNCIO_NOISE = ("Traceback", "never awaited", "was never retrieved", "Task was destroyed", "Exception ignored",
                 "RuntimeWarning", "ResourceWarning", "Event loop is closed")


def trail(tool: str, args: str = "{}") -> str:
    return f"""
config:
  id: mcp/{tool}
trail:
  - step: Call {tool}
    recording:
      host:
        - {tool}: {args}
"""


def run(root: Path, name: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trailblaze.cli", "run", str(root / "trails" / f"{name}.trail.yaml"),
         "--output-dir", str(root / "out"), "--no-report"],
        capture_output=True, text=True, timeout=180, check=False, cwd=root,
        env={**os.environ, "TRAILBLAZE_MCP_STDIN_GRACE_MS": "300", "TRAILBLAZE_MCP_TERM_GRACE_MS": "300", **env})


def the_line(output: str, needle: str) -> str:
    """The one output line that holds ``needle`` (the cause must not be spread over several lines)."""
    lines = [ln for ln in output.splitlines() if needle in ln]
    assert len(lines) == 1, output
    return lines[0]


def no_noise(output: str) -> None:
    for noise in ASYNCIO_NOISE:
        assert noise not in output, output


def outcome(workspace: Any, servers: str, tool: str, args: str = "{}", **env: str) -> tuple[int, str]:
    """Run a one-call trail against ``servers``; the exit code and everything printed (checked for noise)."""
    root = workspace(servers, files={"trails/one.trail.yaml": trail(tool, args)})
    done = run(root, "one", **env)
    output = done.stdout + done.stderr
    no_noise(output)
    return done.returncode, output


PY_TOOLS = "mcpServers:\n  - script: {servers}/py_tools.py\n"
RAW_JUNK = "mcpServers:\n  - script: {servers}/raw_junk.py\n"


def test_a_call_timeout_is_infrastructure(workspace: Any) -> None:
    code, output = outcome(workspace, """
        mcpServers:
          - script: {servers}/hang.py
            callTimeoutSeconds: 1
    """, "hang_sleep", "{seconds: 60}")
    assert code == 2, output
    line = the_line(output, "did not answer")
    assert "ERROR: mcp/hang_sleep" in line
    assert ("MCP server 'hang' (" in line and "did not answer tools/call 'hang_sleep' within 1s "
            "(callTimeoutSeconds); stderr tail: hang: ignoring SIGTERM" in line)


def test_a_crash_mid_call_is_infrastructure(workspace: Any) -> None:
    code, output = outcome(workspace, PY_TOOLS, "py_die", "{code: 3}")
    assert code == 2, output
    line = the_line(output, "exited with code 3")
    assert "MCP server 'py_tools' (" in line and "during tools/call 'py_die'; stderr tail:" in line
    assert line.endswith("dying with 3 on purpose")


def test_a_tool_answering_is_error_fails_the_trail(workspace: Any) -> None:
    code, output = outcome(workspace, PY_TOOLS, "py_fail", "{reason: 'the cart is empty'}")
    assert code == 1, output
    assert "the cart is empty" in the_line(output, "FAILED")


def test_garbage_instead_of_an_answer_is_a_clear_error(workspace: Any) -> None:
    code, output = outcome(workspace, RAW_JUNK, "raw_echo", "{text: hi}", JUNK_MODE="before")
    assert code == 2, output
    line = the_line(output, "not JSON-RPC")
    assert ("MCP server 'raw_junk' (" in line and "wrote something that is not JSON-RPC to stdout during "
            "tools/call 'raw_echo': 'DEBUG handling tools/call' (stdout is the MCP channel: log to stderr)" in line)


@pytest.mark.parametrize(("mode", "garbage"), [("line", "junk after answering"), ("partial", "no newline at the end")])
def test_garbage_after_the_last_answer_is_reported(mode: str, garbage: str, workspace: Any) -> None:
    """It broke no call, so the trail passes, but the author hears of it instead of it being dropped."""
    code, output = outcome(workspace, RAW_JUNK, "raw_echo", "{text: hi}", JUNK_MODE=mode)
    assert code == 0, output
    line = the_line(output, "not JSON-RPC")
    assert f"wrote something that is not JSON-RPC to stdout after its last answer: '{garbage}'" in line
    assert "Results: 1 passed" in output


def test_garbage_between_calls_fails_the_next_call(workspace: Any) -> None:
    root = workspace(RAW_JUNK, files={"trails/junk.trail.yaml": """
        config:
          id: mcp/junk-between
        trail:
          - step: Call twice
            recording:
              host:
                - raw_echo: {text: one}
                - wait: {timeToWaitInSeconds: 0.5}
                - raw_echo: {text: two}
    """})
    done = run(root, "junk", JUNK_MODE="line")
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    line = the_line(output, "not JSON-RPC")
    # normally seen while idle ("before"); on a very slow machine the second call may get there first
    assert re.search(r"wrote something that is not JSON-RPC to stdout (before|during) tools/call 'raw_echo': "
                     r"'junk after answering'", line), line
    no_noise(output)
