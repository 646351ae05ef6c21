"""Session logs: ``logs/<sessionId>/NNN_<Kind>.json``, one JSON document per event (upstream §8).

Writes go through a background thread so a tool call pays for a queue put, not for a file system
round trip; ``close`` flushes everything, and is called on every exit path, Ctrl-C included. Every
entry passes through the session's redactor first, so secrets never reach the disk.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

LOG_PACKAGE = "xyz.block.trailblaze.logs.client.TrailblazeLog"


class SessionLog:
    def __init__(self, directory: Path, session_id: str, redact: Callable[[Any], Any] | None = None,
                 *, enabled: bool = True) -> None:
        self.directory = directory
        self.session_id = session_id
        self._redact = redact or (lambda v: v)
        self._counter = 0
        self._lock = threading.Lock()
        self.enabled = enabled
        self.entries: list[dict[str, Any]] = []
        """Every entry of this session, in order, already redacted (reports read these)."""
        self._queue: "queue.SimpleQueue[tuple[Path, dict[str, Any]] | None]" = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.write_errors: list[str] = []
        if enabled:
            directory.mkdir(parents=True, exist_ok=True)

    def write(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Record one event of ``kind`` (e.g. ``TrailblazeToolLog``). Returns the stored entry."""
        entry = {"class": f"{LOG_PACKAGE}.{kind}", "session": self.session_id,
                 "timestamp": _iso_now(), **payload}
        entry = cast("dict[str, Any]", self._redact(entry))
        with self._lock:
            self._counter += 1
            n = self._counter
            self.entries.append(entry)
        if self.enabled and not self._closed:
            if self._thread is None:
                self._thread = threading.Thread(target=self._drain, name=f"trailblaze-log-{self.session_id}",
                                                daemon=True)
                self._thread.start()
            self._queue.put((self.directory / f"{n:03d}_{kind}.json", entry))
        return entry

    def write_file(self, name: str, data: bytes) -> Path:
        """Store an artifact (screenshot, trace) next to the logs; returns its path."""
        path = self.directory / name
        if self.enabled:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return path

    def _drain(self) -> None:
        _yield_cpu()
        while True:
            item = self._queue.get()
            if item is None:
                return
            path, entry = item
            try:
                data = json.dumps(entry, indent=2, default=_json_default).encode("utf-8")
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
            except OSError as exc:
                self.write_errors.append(f"{path.name}: {exc}")

    def close(self) -> None:
        """Flush and stop the writer. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()


def _yield_cpu() -> None:
    """Lower this (writer) thread's scheduling priority where the OS allows it.

    Log files are written behind the session, and on a small machine the writer competes for a core
    with the browser or device server the session is waiting on; at a lower priority it takes the idle
    time instead. Everything is still written: ``close`` waits for the queue."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)  # Linux: per thread
    except (AttributeError, OSError):  # pragma: no cover - other systems: normal priority
        pass


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return repr(value)


def _iso_now() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int((t % 1) * 1000):03d}Z"


def dumps(value: Any) -> str:
    return json.dumps(value, indent=2, default=_json_default)
