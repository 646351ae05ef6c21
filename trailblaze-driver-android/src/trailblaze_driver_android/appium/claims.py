"""Cross-process claims: one session per device, unique local ports per session.

Appium's parallel rule is one session per device and distinct ``systemPort`` / ``wdaLocalPort`` /
``mjpegServerPort`` per session; a clash can silently route commands to the wrong device. Claims are
``flock``-ed lock files in one directory (``TRAILBLAZE_LOCK_DIR``, default ``$TMPDIR/trailblaze-appium``),
held open for the life of the session, so every Trailblaze process on the machine (xdist workers,
parallel CI jobs) sees them, and a crashed process's claims vanish with it: the kernel drops the lock.
"""

from __future__ import annotations

import os
import re
import socket
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from trailblaze import DriverError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

ENV_DIR = "TRAILBLAZE_LOCK_DIR"

PORT_RANGES = {
    "systemPort": (8200, 8299),       # UiAutomator2 server port forwarded to the host
    "wdaLocalPort": (8100, 8199),     # WebDriverAgent port on the host
    "mjpegServerPort": (9100, 9199),  # screen streaming
    "chromedriverPort": (9515, 9614),
}


def lock_dir() -> Path:
    path = Path(os.environ.get(ENV_DIR) or Path(tempfile.gettempdir()) / "trailblaze-appium")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _try_lock(path: Path) -> IO[str] | None:
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the claim's life
    if fcntl is None:  # pragma: no cover
        return handle
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:120]


@dataclass
class Claims:
    """What one session holds. ``release`` is idempotent."""

    ports: dict[str, int] = field(default_factory=dict)
    device: str | None = None
    _handles: list[IO[str]] = field(default_factory=list, repr=False)

    def claim_device(self, udid: str, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for ``udid``; another session holding it makes us wait, not share."""
        path = lock_dir() / f"device-{_safe(udid)}.lock"
        deadline = time.monotonic() + timeout
        while True:
            handle = _try_lock(path)
            if handle is not None:
                self._handles.append(handle)
                self.device = udid
                return
            if time.monotonic() >= deadline:
                holder = path.read_text(encoding="utf-8").strip() if path.exists() else "?"
                raise DriverError(f"device '{udid}' is in use by another Trailblaze session (pid {holder or '?'})",
                                  hint=f"waited {timeout:g}s; pick another udid, raise claim_timeout, or run fewer "
                                       "devices in parallel")
            time.sleep(0.2)

    def claim_port(self, capability: str, *, start: int | None = None, end: int | None = None) -> int:
        lo, hi = PORT_RANGES.get(capability, (start or 20000, end or 20999))
        lo, hi = start or lo, end or hi
        for port in range(lo, hi + 1):
            handle = _try_lock(lock_dir() / f"port-{port}.lock")
            if handle is None:
                continue
            if not _port_free(port):
                handle.close()
                continue
            self._handles.append(handle)
            self.ports[capability] = port
            return port
        raise DriverError(f"no free local port for {capability} in {lo}-{hi}",
                          hint="too many parallel sessions on this machine, or set the port explicitly")

    def release(self) -> None:
        for handle in self._handles:
            try:
                handle.close()
            except OSError:
                pass
        self._handles.clear()
        self.ports.clear()
        self.device = None
