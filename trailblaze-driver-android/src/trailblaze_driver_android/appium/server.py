"""A local Appium server Trailblaze starts itself when no ``server_url`` is configured.

The server runs in its own process group on a free loopback port, is shared by every session of the
process (starting Appium takes seconds; a run of fifty trails should pay that once), and is stopped,
group and all, when the last user releases it at the end of the run or when the process exits, and
on Linux also when this process is killed outright (``die_with_parent``).

Its log is read through a pipe, never written to a temporary file: Appium logs request bodies, so a
secret typed into a field would sit in plain text in /tmp. The last lines are kept in memory (quoted
when the server fails to start or dies), and each session that uses the server gets the lines of its
own time redacted in its log directory (``appium.log``, kept only when the trail did not pass).
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from trailblaze import DriverError, die_with_parent

ENV_BIN = "TRAILBLAZE_APPIUM_BIN"

_lock = threading.Lock()
_servers: dict[tuple[str, tuple[str, ...]], ManagedServer] = {}


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def find_appium(explicit: str | None = None) -> str | None:
    """The appium executable: the setting, else ``TRAILBLAZE_APPIUM_BIN``, else ``appium`` on PATH."""
    for candidate in (explicit, os.environ.get(ENV_BIN)):
        if candidate:
            found = shutil.which(candidate) or (candidate if Path(candidate).is_file() else None)
            if found:
                return found
            raise DriverError(f"the appium executable '{candidate}' does not exist",
                              hint=f"fix appium_bin or {ENV_BIN}, or set server_url")
    return shutil.which("appium")


def status_ok(url: str, timeout: float = 2.0) -> bool:
    import urllib.error  # here, not at the top: every command loads the driver, few ask a server
    import urllib.request

    try:
        with urllib.request.urlopen(f"{url}/status", timeout=timeout) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


class LogSink:
    """One session's copy of the server log: the lines written while it is attached, redacted."""

    def __init__(self, path: Path, redact: Callable[[Any], Any]) -> None:
        self.path = path
        self.redact = redact
        self.lines = 0
        self._file: IO[str] | None = None

    def write(self, line: str) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()
        self._file.write(str(self.redact(line)) + "\n")
        self._file.flush()
        self.lines += 1

    def close(self, *, keep: bool) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if not keep or self.lines == 0:
            self.path.unlink(missing_ok=True)


@dataclass
class ManagedServer:
    binary: str
    args: tuple[str, ...]
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
    users: int = 0
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=200), repr=False)
    """The server's last log lines (in memory only: they may hold secrets until redacted)."""
    _sinks: list[LogSink] = field(default_factory=list, repr=False)
    _reader: threading.Thread | None = field(default=None, repr=False)
    _sink_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def start(self, timeout: float) -> None:
        last_tail = ""
        for _attempt in range(3):
            self.port = free_port()
            self.tail.clear()
            argv = [self.binary, "--address", "127.0.0.1", "--port", str(self.port), "--log-no-colors",
                    *self.args]
            try:
                self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL, start_new_session=True,
                                                preexec_fn=die_with_parent())  # noqa: PLW1509
            except OSError as exc:
                raise DriverError(f"could not start appium ({self.binary}): {exc}",
                                  hint="install it with `npm install -g appium` or set server_url") from None
            self._reader = threading.Thread(target=self._read, args=(self.process,), daemon=True,
                                            name=f"trailblaze-appium-log-{self.port}")
            self._reader.start()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    break
                if status_ok(self.url, timeout=1.0):
                    return
                time.sleep(0.1)
            last_tail = self.log_tail()
            self.stop()
            if "EADDRINUSE" not in last_tail:
                break
        raise DriverError(f"the managed Appium server did not start within {timeout:g}s on 127.0.0.1",
                          hint=f"appium log tail: {last_tail[-600:] or '(empty)'}")

    def _read(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        for raw in process.stdout:
            line = raw.decode("utf-8", "replace").rstrip()
            self.tail.append(line)
            with self._sink_lock:
                sinks = list(self._sinks)
            for sink in sinks:
                try:
                    sink.write(line)
                except OSError:
                    pass  # a full or vanished log directory never stops the server
        process.stdout.close()

    def attach(self, path: Path, redact: Callable[[Any], Any]) -> LogSink:
        """Copy the log lines from now on, through ``redact``, into ``path`` (created on the first line)."""
        sink = LogSink(path, redact)
        with self._sink_lock:
            self._sinks.append(sink)
        return sink

    def detach(self, sink: LogSink, *, keep: bool) -> None:
        """Stop copying into ``sink``; its file stays only when ``keep`` and it holds a line."""
        with self._sink_lock:
            if sink in self._sinks:
                self._sinks.remove(sink)
        sink.close(keep=keep)

    def log_tail(self, lines: int = 15, width: int | None = None) -> str:
        """The last ``lines`` non-empty log lines joined with `` | ``, each cut to ``width`` characters
        (Appium logs whole page sources on one line)."""
        text = [line.strip() for line in list(self.tail) if line.strip()][-lines:]
        if width is not None:
            text = [t if len(t) <= width else t[: width - 1] + "…" for t in text]
        return " | ".join(text)

    def death(self, wait: float = 0.0) -> str | None:
        """Why the server is gone (``exited with code 1``, ``was killed by SIGKILL``) and what it said
        last, or None while it runs. ``wait``: how long to give a dying server to be reaped — its socket
        closes (and a request fails) a moment before its exit can be waited for, longer on a busy machine."""
        proc = self.process
        if proc is None:
            return None
        if proc.poll() is None:
            if wait <= 0:
                return None
            try:
                proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                return None
        code = proc.returncode
        how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with code {code}"
        if self._reader is not None:
            self._reader.join(timeout=2)
        last = self.log_tail(3, width=160)
        return f"the managed Appium server (pid {proc.pid}, {self.url}) {how}" + \
            (f"; its last log lines: {last}" if last else "")

    def stop(self) -> None:
        """Stop the server's whole process group (appium spawns node children). Idempotent."""
        proc = self.process
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError, OSError):
                proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, OSError):
                    proc.kill()
                proc.wait(timeout=10)
        if proc is not None:
            # Children that outlived the leader still belong to the group.
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError, OSError):
                pass
        if self._reader is not None:
            self._reader.join(timeout=5)
            self._reader = None
        self.process = None


def _on_sigterm(signum: int, _frame: object) -> None:
    shutdown_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_sigterm() -> None:
    """A run killed with SIGTERM (CI timeouts) still takes its Appium down; only when nobody else
    handles SIGTERM and we are on the main thread."""
    try:
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):
        pass


def acquire(binary: str, args: list[str], timeout: float) -> ManagedServer:
    """Start (or share) the managed server for ``binary`` + ``args``; pair with ``release``."""
    key = (binary, tuple(args))
    _install_sigterm()
    with _lock:
        server = _servers.get(key)
        if server is None or server.process is None or server.process.poll() is not None:
            server = ManagedServer(binary, tuple(args))
            server.start(timeout)
            _servers[key] = server
        server.users += 1
        return server


def release(server: ManagedServer, *, keep: bool = False) -> None:
    """Drop one user; the last one stops the server unless ``keep`` (then it stops at exit)."""
    with _lock:
        server.users = max(0, server.users - 1)
        if server.users == 0 and not keep:
            server.stop()
            for key, value in list(_servers.items()):
                if value is server:
                    del _servers[key]


def shutdown_all() -> None:
    """Stop every managed server of this process (registered with ``atexit``)."""
    with _lock:
        servers = list(_servers.values())
        _servers.clear()
    for server in servers:
        server.stop()


def running() -> list[ManagedServer]:
    with _lock:
        return [s for s in _servers.values() if s.process is not None and s.process.poll() is None]


atexit.register(shutdown_all)
