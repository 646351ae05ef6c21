"""A local Appium server Trailblaze starts itself when no ``server_url`` is configured.

The server runs in its own process group on a free loopback port, is shared by every session of the
process (starting Appium takes seconds; a run of fifty trails should pay that once), and is stopped,
group and all, when the last user releases it at the end of the run or when the process exits. Its log
goes to a file whose tail is quoted when it fails to start.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from trailblaze.errors import DriverError

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
    try:
        with urllib.request.urlopen(f"{url}/status", timeout=timeout) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


@dataclass
class ManagedServer:
    binary: str
    args: tuple[str, ...]
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None
    users: int = 0
    _log_file: object | None = field(default=None, repr=False)

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
            fd, log_name = tempfile.mkstemp(prefix=f"trailblaze-appium-{self.port}-", suffix=".log")
            os.close(fd)
            self.log_path = Path(log_name)
            log = open(self.log_path, "ab")  # noqa: SIM115 - lives as long as the server
            self._log_file = log
            argv = [self.binary, "--address", "127.0.0.1", "--port", str(self.port), "--log-no-colors",
                    *self.args]
            try:
                self.process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                start_new_session=True)
            except OSError as exc:
                log.close()
                raise DriverError(f"could not start appium ({self.binary}): {exc}",
                                  hint="install it with `npm install -g appium` or set server_url") from None
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

    def log_tail(self, lines: int = 15) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        text = self.log_path.read_text("utf-8", "replace").strip().splitlines()
        return " | ".join(text[-lines:])

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
        self.process = None
        log = self._log_file
        if log is not None:
            log.close()  # type: ignore[attr-defined]
            self._log_file = None


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
