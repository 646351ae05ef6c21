"""A tool server process: spawn it in its own process group, keep its stderr tail, stop it in order.

Stopping follows upstream's sequence: close stdin (an MCP stdio server exits on EOF), wait 5 s, SIGTERM
the group, wait 2 s, SIGKILL the group. stderr is read continuously (so the server never blocks on a
full pipe), appended to a per-server file in the session's log directory and kept as a rolling 64-line
tail that every crash message quotes.
"""

from __future__ import annotations

import asyncio
import collections
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from trailblaze import MAX_OUTPUT_CHARS, die_with_parent, truncated

from . import reaper

STDERR_TAIL_LINES = 64
STDIN_GRACE_SECONDS = 5.0
TERM_GRACE_SECONDS = 2.0
KILL_WAIT_SECONDS = 2.0
STDOUT_LINE_LIMIT = 1 << 28
"""Longest stdout line (one JSON-RPC message) we accept: screenshots in results can be large."""


@dataclass(frozen=True)
class Launch:
    """How to start one server: argv, working directory and the complete environment."""

    argv: tuple[str, ...]
    cwd: Path
    env: dict[str, str]
    runtime: str = "command"

    def describe(self) -> str:
        return " ".join(self.argv)


class ServerProcess:
    """One spawned server. All methods run on the session's event loop."""

    def __init__(self, name: str, launch: Launch, *, stderr_file: Path | None = None,
                 on_stderr: Callable[[str], None] | None = None) -> None:
        self.name = name
        self.launch = launch
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_file_path = stderr_file
        self._stderr_file: IO[str] | None = None
        self._on_stderr = on_stderr
        self.proc: asyncio.subprocess.Process | None = None
        self._stderr_task: asyncio.Task[None] | None = None
        self.mark = reaper.new_mark()
        """In the server's environment, inherited by every descendant: how ``stop`` finds those that left
        the group (``setsid``)."""
        self.stop_result: str | None = None
        self.protocol_error: str | None = None
        """The first stdout line that was not JSON-RPC, when the server broke the protocol."""

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode if self.proc is not None else None

    async def start(self) -> None:
        """Spawn; raises ``OSError`` when the program cannot be executed."""
        self.proc = await asyncio.create_subprocess_exec(
            *self.launch.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd=str(self.launch.cwd),
            env={**self.launch.env, reaper.MARK_ENV: self.mark},
            start_new_session=True, limit=STDOUT_LINE_LIMIT, preexec_fn=die_with_parent(signal.SIGKILL))
        reaper.track(self.proc.pid, self.name, self.mark)
        if self._stderr_file_path is not None:
            self._stderr_file = _open_log(self._stderr_file_path)
        self._stderr_task = asyncio.create_task(self._pump_stderr(), name=f"mcp-stderr-{self.name}")

    async def _pump_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        stream = self.proc.stderr
        while True:
            try:
                raw = await stream.readline()
            except ValueError:  # a line longer than the limit: take what is there
                raw = await stream.read(65536)
            except (OSError, asyncio.CancelledError):
                break
            if not raw:
                break
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            # The tail is quoted in error messages (console, event log): cut as files are.
            self.stderr_tail.append(truncated(line, MAX_OUTPUT_CHARS))
            if self._stderr_file is not None:
                try:
                    self._stderr_file.write(line + "\n")
                    self._stderr_file.flush()
                except OSError:
                    pass
            if self._on_stderr is not None:
                self._on_stderr(line)

    async def wait_exit(self, timeout: float) -> bool:
        """Whether the process exited within ``timeout`` (polls ``returncode``: ``wait()`` would also wait
        for pipes a grandchild may hold open)."""
        if self.proc is None:
            return True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.proc.returncode is None:
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(0.01)
        return True

    async def stderr_settled(self, timeout: float = 1.0) -> None:
        """Let the stderr pump read what a dead process wrote before a message quotes the tail."""
        if self._stderr_task is not None and not self._stderr_task.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._stderr_task), timeout)
            except (TimeoutError, asyncio.CancelledError):
                pass

    async def stop(self, *, stdin_grace: float = STDIN_GRACE_SECONDS, term_grace: float = TERM_GRACE_SECONDS) -> str:
        """close stdin → wait → SIGTERM (group) → wait → SIGKILL (group). Returns how it ended."""
        proc = self.proc
        if proc is None:
            return "not started"
        if self.stop_result is not None:
            return self.stop_result
        how = "exited"
        if proc.returncode is None and proc.stdin is not None:
            try:
                proc.stdin.close()
            except (OSError, RuntimeError):
                pass
        if not await self.wait_exit(stdin_grace):
            how = "terminated (SIGTERM)"
            reaper.kill_group(proc.pid, signal.SIGTERM)
            if not await self.wait_exit(term_grace):
                how = "killed (SIGKILL)"
                reaper.kill_group(proc.pid, signal.SIGKILL)
                await self.wait_exit(KILL_WAIT_SECONDS)
        # Whatever the leader left behind in its group (a runtime's workers) goes too, and descendants
        # that left the group (setsid) but carry the server's mark.
        reaper.kill_group(proc.pid, signal.SIGKILL)
        reaper.kill_marked(self.mark)
        reaper.untrack(proc.pid)
        await self.stderr_settled(1.0)
        if self._stderr_task is not None and not self._stderr_task.done():
            self._stderr_task.cancel()
        if self._stderr_file is not None:
            self._stderr_file.close()
            self._stderr_file = None
        self.stop_result = how
        return how

    def kill_now(self) -> None:
        """From any thread, at any time: SIGKILL the group (interrupted teardown)."""
        if self.proc is not None:
            reaper.kill_group(self.proc.pid, signal.SIGKILL)
            reaper.kill_marked(self.mark)
            reaper.untrack(self.proc.pid)


def _open_log(path: Path) -> IO[str] | None:
    """Open the per-server stderr file (a local file: a quick, bounded blocking call)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return path.open("a", encoding="utf-8")
    except OSError:
        return None


def tail_text(lines: collections.deque[str] | list[str], limit: int = 12) -> str:
    """The last ``limit`` non-empty stderr lines on one line, for error messages."""
    picked = [ln.strip() for ln in list(lines) if ln.strip()][-limit:]
    if not picked:
        return "stderr was empty"
    return "stderr tail: " + " | ".join(picked)


