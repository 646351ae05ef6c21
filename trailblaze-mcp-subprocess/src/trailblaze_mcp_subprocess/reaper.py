"""Last-resort cleanup: no tool server outlives the Trailblaze process.

Servers run in their own process group (``start_new_session``), so a terminal's Ctrl-C does not hit
them and a whole tree (``bun`` → workers, a shell wrapper → its child) can be signalled at once. The
orderly path is the session teardown; this module covers the rest:

* ``atexit``: groups still alive at interpreter exit get SIGTERM, then SIGKILL;
* SIGTERM / SIGHUP to Trailblaze: the same, then the previous handler (or the default action) runs.

The handler only calls ``os.killpg`` on a snapshot of a plain dict, which is safe to do from a signal
handler (no locks, no allocation-heavy work, no I/O beyond the kill syscalls).
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
import time
from types import FrameType
from typing import Any

_live: dict[int, str] = {}
"""pgid → server name, for every group we spawned and have not finished stopping."""
_atexit_registered = False
_signals_installed = False
_previous: dict[int, Any] = {}


def track(pgid: int, name: str) -> None:
    install()
    _live[pgid] = name


def untrack(pgid: int) -> None:
    _live.pop(pgid, None)


def live_groups() -> dict[int, str]:
    return dict(_live)


def kill_group(pgid: int, sig: int) -> bool:
    """Signal a whole group; False when it no longer exists."""
    try:
        os.killpg(pgid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def reap_all(grace: float = 0.5) -> None:
    """SIGTERM every tracked group, wait up to ``grace`` seconds, then SIGKILL what is left."""
    groups = list(_live)
    if not groups:
        return
    alive = [g for g in groups if kill_group(g, signal.SIGTERM)]
    deadline = time.monotonic() + grace
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = [g for g in alive if _group_has_running(g)]
    for g in alive:
        kill_group(g, signal.SIGKILL)
    for g in groups:
        _live.pop(g, None)


def _group_has_running(pgid: int) -> bool:
    """Whether a non-zombie process of the group exists (a zombie leader is gone for our purpose)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return kill_group(pgid, 0)
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


def _on_signal(signum: int, frame: FrameType | None) -> None:
    reap_all(grace=0.3)
    previous = _previous.get(signum)
    if callable(previous):
        previous(signum, frame)
        return
    if previous == signal.SIG_IGN:
        return
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def install() -> None:
    """Register the atexit hook and, when called on the main thread, the SIGTERM/SIGHUP handlers.

    Sessions call this on the thread that starts them (the runner's main thread) before any server is
    spawned: the spawning itself happens on the session's event-loop thread, where Python does not
    allow installing signal handlers.
    """
    global _atexit_registered, _signals_installed
    if not _atexit_registered:
        atexit.register(reap_all)
        _atexit_registered = True
    if _signals_installed or threading.current_thread() is not threading.main_thread():
        return
    _signals_installed = True
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            current = signal.getsignal(sig)
        except (ValueError, OSError):  # pragma: no cover - not on this platform
            continue
        # Only chain onto handlers Python knows; leave a foreign C-level handler alone.
        if current in (signal.SIG_DFL, None) or callable(current):
            _previous[sig] = current if current is not None else signal.SIG_DFL
            signal.signal(sig, _on_signal)
