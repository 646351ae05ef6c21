"""Starting and stopping session processes from the CLI side."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

from ..errors import BadInputError, ExitCode, InfrastructureError
from .protocol import request
from .registry import SessionFiles, files_for, lock_is_held, pid_alive, read_state
from .server import SessionConfig

START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 60.0


def start(config: SessionConfig) -> dict[str, Any]:
    """Start the session process and wait until it serves (its state file names its pid)."""
    files = files_for(config.name)
    state = read_state(files)
    if state is not None:
        raise BadInputError(f"session '{config.name}' is already running (pid {state['pid']})",
                            hint=f"use it with --session {config.name}, or stop it: trailblaze session stop "
                                 f"--name {config.name}")
    log_fd = os.open(files.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "trailblaze.live.server"], stdin=subprocess.PIPE,
                                stdout=log_fd, stderr=subprocess.STDOUT, start_new_session=True)
    finally:
        os.close(log_fd)
    assert proc.stdin is not None
    proc.stdin.write(config.model_dump_json().encode())  # secrets travel here, never in argv
    proc.stdin.close()
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        state = read_state(files)
        if state is not None and state.get("pid") == proc.pid:
            return state
        code = proc.poll()
        if code is not None:
            raise _failed_start(files, code)
        time.sleep(0.1)
    proc.terminate()
    proc.wait(30)
    raise InfrastructureError(f"session '{config.name}' did not start within {START_TIMEOUT_S:g} s",
                              hint=f"see its log: {files.log}")


def _failed_start(files: SessionFiles, code: int) -> Exception:
    try:
        text = files.log.read_text(encoding="utf-8", errors="replace")
        lines = [ln for ln in text.splitlines() if ln.strip()]
    except OSError:
        lines = []
    said = next((ln.removeprefix("trailblaze: ") for ln in reversed(lines) if ln.startswith("trailblaze: ")),
                lines[-1] if lines else f"exit code {code}")
    if code == int(ExitCode.BAD_INPUT):
        return BadInputError(f"session '{files.name}' did not start: {said}")
    return InfrastructureError(f"session '{files.name}' did not start: {said}", hint=f"see {files.log}")


def stop(name: str) -> str:
    """Ask the session to stop and wait until its process has ended (device closed, name let go)."""
    files = files_for(name)
    state = read_state(files)
    reply = request(name, "stop")
    pid = int(state["pid"]) if state else 0
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while lock_is_held(files) or pid_alive(pid):
        if time.monotonic() > deadline:
            raise InfrastructureError(f"session '{name}' is still closing after {STOP_TIMEOUT_S:g} s",
                                      hint=f"see its log: {files.log}")
        time.sleep(0.1)
    return reply.output
