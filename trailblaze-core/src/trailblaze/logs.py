"""Session logs: one append-only NDJSON stream per session, ``logs/<sessionId>/session.ndjson``.

Every event of a session is one JSON object on one line of that file, in the order it happened. A tool
call pays for building its entry and a list append: a background writer turns pending entries into
lines and appends them with one ``write`` per batch, and ``flush`` (called by the runner at every step
boundary) writes whatever is still pending before it returns. Once a line is written it is in the
operating system's hands, so a runner killed with SIGKILL loses at most the events since the last
flush; ``close`` (every exit path: a pass, a failure, Ctrl-C, an exception; and ``atexit`` for a log
somebody forgot) flushes and ``fsync``s, so a machine that loses power after the run loses nothing.

Upstream's layout, one pretty-printed ``NNN_<Kind>.json`` per event (upstream §8), is still there for
tools that read it: ``--log-layout files`` or ``TRAILBLAZE_LOG_LAYOUT=files``. It costs a file per
event (about a millisecond per tool call on a small machine), which is why it is not the default.

Every entry passes through the session's redactor when it is written, so secrets reach neither the
in-memory entries the reports read nor the disk. Screenshots, page sources and traces stay files of
their own (``write_file``), named from the event that refers to them.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Literal, cast

from .files import write_atomic
from .memory import Redactor
from .untrusted import MAX_OUTPUT_CHARS, capped, valid_data

LOG_PACKAGE = "xyz.block.trailblaze.logs.client.TrailblazeLog"
STREAM_FILE = "session.ndjson"
"""The session's event stream, one JSON object per line."""
LAYOUT_ENV = "TRAILBLAZE_LOG_LAYOUT"
LogLayout = Literal["stream", "files"]
LAYOUTS: tuple[str, ...] = ("stream", "files")
WRITER_INTERVAL_S = 0.2
"""How long pending entries may wait for the background writer when nobody flushes (a step boundary
flushes at once)."""

_open_logs: "weakref.WeakSet[SessionLog]" = weakref.WeakSet()
_CLASS_NAMES: dict[str, str] = {}


def default_layout() -> LogLayout:
    """``TRAILBLAZE_LOG_LAYOUT`` (``stream`` or ``files``), else ``stream``."""
    value = os.environ.get(LAYOUT_ENV, "").strip().lower()
    return cast("LogLayout", value) if value in LAYOUTS else "stream"


class SessionLog:
    def __init__(self, directory: Path, session_id: str, redactor: Redactor,
                 *, enabled: bool = True, layout: str | None = None) -> None:
        """``redactor`` is the run's one redaction point: every entry and file passes through it, so a
        secret another output hides is hidden here too, and there is no log that forgot it."""
        self.directory = directory
        self.session_id = session_id
        self.redactor = redactor
        self.enabled = enabled
        if layout is not None and layout not in LAYOUTS:
            raise ValueError(f"log layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
        self.layout: LogLayout = cast("LogLayout", layout) if layout else default_layout()
        self.entries: list[dict[str, Any]] = []
        """Every entry of this session, in order, already redacted (reports and recordings read these)."""
        self.write_errors: list[str] = []
        self._written = 0
        """How many of ``entries`` are on disk (or were given up on, see ``write_errors``)."""
        self._io = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._signalled = False
        self._thread: threading.Thread | None = None
        self._fd: int | None = None
        self._closed = False
        if enabled:
            directory.mkdir(parents=True, exist_ok=True)

    @property
    def stream_path(self) -> Path:
        return self.directory / STREAM_FILE

    def write(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Record one event of ``kind`` (e.g. ``TrailblazeToolLog``). Returns the stored entry."""
        cls = _CLASS_NAMES.get(kind)
        if cls is None:
            cls = _CLASS_NAMES[kind] = f"{LOG_PACKAGE}.{kind}"
        entry = {"class": cls, "session": self.session_id, "timestamp": _iso_now(), **payload}
        entry = self.redactor(entry)
        self.entries.append(entry)  # atomic: callbacks of other threads may log too
        if self.enabled and not self._signalled:
            if self._closed:  # a late event (after close) is written at once rather than lost
                with self._io:
                    self._write_pending()
                    self._sync_and_close(sync=False)  # no fsync each, no file kept open for it
            else:
                self._signalled = True
                if self._thread is None:
                    self._start_writer()
                self._wake.set()
        return entry

    def write_file(self, name: str, data: bytes) -> Path:
        """Store an artifact (screenshot, trace, recording) next to the logs; returns its path."""
        path = self.directory / name
        if self.enabled:
            write_atomic(path, data, sync=False)
        return path

    def flush(self) -> None:
        """Write every entry recorded so far before returning (the runner calls this at each step
        boundary, so a killed run keeps every finished step)."""
        if self.enabled:
            with self._io:
                self._write_pending()

    def close(self) -> None:
        """Flush, ``fsync`` and stop the writer. Idempotent; entries written later still reach the disk."""
        if self._closed:
            return
        self._closed = True
        _open_logs.discard(self)
        self._stop.set()
        self._wake.set()
        try:
            thread = self._thread
            if thread is not None and thread is not threading.current_thread():
                thread.join()
        finally:  # a second Ctrl-C during the join still writes what is pending
            self._signalled = False
            if self.enabled:
                with self._io:
                    self._write_pending()
                    self._sync_and_close()

    def _sync_and_close(self, *, sync: bool = True) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                if sync:
                    os.fsync(fd)
            except OSError as exc:
                self.write_errors.append(f"{STREAM_FILE}: fsync: {exc}")
            finally:
                os.close(fd)

    # -- the writer -----------------------------------------------------------------------------
    def _start_writer(self) -> None:
        with self._io:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._drain, name=f"trailblaze-log-{self.session_id}",
                                            daemon=True)
            _open_logs.add(self)
            self._thread.start()

    def _drain(self) -> None:
        """Sleep until an entry is pending, give more a moment to join it, write the batch."""
        _yield_cpu()
        while True:
            self._wake.wait()
            if self._stop.wait(WRITER_INTERVAL_S):
                return  # close writes the rest itself
            self._wake.clear()
            self._signalled = False  # before reading what is pending: a later entry signals again
            with self._io:
                self._write_pending()
            if self._stop.is_set():
                return  # close() set _wake just before the clear above: waiting for it again would hang close

    def _write_pending(self) -> None:
        """Append ``entries[_written:]`` to the disk. Callers hold ``_io``."""
        end = len(self.entries)
        start = self._written
        if start >= end:
            return
        batch = self.entries[start:end]
        if self.layout == "files":
            for n, entry in enumerate(batch, start + 1):
                self._write_event_file(n, entry)
                self._written = n
            return
        data = "".join([encode_line(e, self.write_errors) for e in batch]).encode("utf-8")
        try:
            if self._fd is None:
                self._fd = os.open(self.stream_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
        except OSError as exc:
            self.write_errors.append(f"{STREAM_FILE}: {exc} ({end - start} entries)")
        # Only now: a KeyboardInterrupt before this point leaves the batch pending for close().
        self._written = end

    def _write_event_file(self, n: int, entry: dict[str, Any]) -> None:
        kind = str(entry.get("class", "")).rsplit(".", 1)[-1]
        path = self.directory / f"{n:03d}_{kind}.json"
        try:
            text = dumps(entry)
            if len(text) > MAX_LINE_CHARS:
                text = dumps(capped(entry, MAX_LOG_STRING))
            path.write_bytes(text.encode("utf-8"))
        except (OSError, TypeError, ValueError) as exc:
            self.write_errors.append(f"{path.name}: {exc}")

    def __del__(self) -> None:
        fd, self._fd = getattr(self, "_fd", None), None
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass


MAX_LINE_CHARS = 1024 * 1024
"""A log line longer than this (a tool that returned 50 MB) is written with each string cut to
``MAX_LOG_STRING`` characters and a ``[truncated: N more characters]`` marker."""
MAX_LOG_STRING = MAX_OUTPUT_CHARS
"""The cut every output file and the console make (``untrusted.MAX_OUTPUT_CHARS``, 64 KiB): a tool
server's 7 MB line is kept in the event log as it is in the report, not four times over."""


def encode_line(entry: dict[str, Any], errors: list[str] | None = None) -> str:
    """One entry as one NDJSON line. An entry that cannot be encoded still leaves a line saying so."""
    try:
        line = _LINE_ENCODER.encode(entry)
        if "\\ud" in line:
            # A surrogate (the encoder escapes them), maybe a lone one from a page: readers get valid
            # Unicode. Rare (an emoji takes this path too), so checked here, off the dispatch path.
            entry = valid_data(entry)
            line = _LINE_ENCODER.encode(entry)
        if len(line) > MAX_LINE_CHARS:
            line = _LINE_ENCODER.encode(capped(entry, MAX_LOG_STRING))
        return line + "\n"
    except (TypeError, ValueError) as exc:
        if errors is not None:
            errors.append(f"{entry.get('class')}: {exc}")
        keep = {k: entry.get(k) for k in ("class", "session", "timestamp")}
        return json.dumps({**keep, "logError": f"entry could not be encoded: {exc}"}, default=str) + "\n"


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return repr(value)


_LINE_ENCODER = json.JSONEncoder(default=_json_default, separators=(",", ":"))
"""One encoder for every line: ``json.dumps`` with options builds a new one per call."""


def read_log(directory: Path) -> list[dict[str, Any]]:
    """The entries of the session logged in ``directory``, in order, whichever layout wrote them.

    A torn last line (the process was killed while writing it) is skipped: every complete line is
    returned."""
    directory = Path(directory)
    stream = directory / STREAM_FILE
    if stream.is_file():
        entries: list[dict[str, Any]] = []
        for line in stream.read_bytes().splitlines():
            if not line.strip():
                continue
            try:
                entries.append(json.loads(line))
            except ValueError:
                continue
        return entries
    files = sorted(directory.glob("[0-9][0-9][0-9]*_*.json"), key=_event_number)
    return [json.loads(p.read_text(encoding="utf-8")) for p in files]


def _event_number(path: Path) -> tuple[int, str]:
    head = path.name.split("_", 1)[0]
    return (int(head) if head.isdigit() else 0, path.name)


@atexit.register
def _close_open_logs() -> None:
    """An interpreter that exits with a session still open (a crash outside the runner's ``finally``,
    ``sys.exit`` from a hook) still writes that session's events."""
    for log in list(_open_logs):
        try:
            log.close()
        except Exception:  # noqa: BLE001 - exiting anyway
            pass


def _yield_cpu() -> None:
    """Lower this (writer) thread's scheduling priority where the OS allows it.

    Log lines are written behind the session, and on a small machine the writer competes for a core
    with the browser or device server the session is waiting on; at a lower priority it takes the idle
    time instead. Everything is still written: ``flush`` and ``close`` write what is pending themselves."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)  # Linux: per thread
    except (AttributeError, OSError):  # pragma: no cover - other systems: normal priority
        pass


_stamp: list[tuple[int, str]] = [(-1, "")]


def _iso_now() -> str:
    t = time.time()
    whole = int(t)
    second, text = _stamp[0]
    if second != whole:  # strftime once a second, not once an event
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
        _stamp[0] = (whole, text)
    return f"{text}.{int((t - whole) * 1000):03d}Z"


def dumps(value: Any) -> str:
    return json.dumps(value, indent=2, default=_json_default)
