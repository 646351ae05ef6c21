"""Last-resort cleanup: no tool server outlives the Trailblaze process.

Servers run in their own process group (``start_new_session``), so a terminal's Ctrl-C does not hit
them and a whole tree (``bun`` → workers, a shell wrapper → its child) can be signalled at once. The
orderly path is the session teardown; this module covers the rest:

* ``atexit``: groups still alive at interpreter exit get SIGTERM, then SIGKILL;
* SIGTERM / SIGHUP to Trailblaze: the same, then the previous handler (or the default action) runs;
* SIGKILL of Trailblaze, where no code of ours runs any more: on Linux every server is spawned with
  ``PR_SET_PDEATHSIG`` (the kernel kills it when its parent dies), and a tiny *watchdog* process, told
  of every group over a pipe, kills the groups (grandchildren included, which the death signal does not
  reach) when that pipe reaches end of file — which happens however Trailblaze ends.

Descendants that leave the group — a server's child that calls ``setsid`` or double-forks, as daemons
do — escape ``killpg``. Every server is started with a random mark in its environment
(``TRAILBLAZE_TOOL_SERVER_MARK``), which its descendants inherit wherever they move; each of the paths
above also kills every process of this user that carries the mark of a server being stopped (found in
``/proc/<pid>/environ``). A descendant that also scrubs its environment is out of reach; a child
subreaper (``PR_SET_CHILD_SUBREAPER``) would catch it, but it is process-wide — every orphan of the
Trailblaze process (Playwright's, Appium's, any plugin's) would become ours to reap — and would still not
say which server an orphan came from.

The watchdog runs only while servers do (started with the first, stopped after the last). The signal
handler only calls ``os.killpg`` on a snapshot of a plain dict, which is safe to do from a signal
handler (no locks, no allocation-heavy work); the watchdog, told nothing by it, rechecks its groups
when Trailblaze's end closes its pipe.
"""

from __future__ import annotations

import atexit
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from types import FrameType
from typing import Any

_live: dict[int, str] = {}
"""pgid → server name, for every group we spawned and have not finished stopping."""
_marks: dict[int, str] = {}
"""pgid → the mark in that server's environment (``MARK_ENV``), inherited by all its descendants."""
MARK_ENV = "TRAILBLAZE_TOOL_SERVER_MARK"
_atexit_registered = False
_signals_installed = False
_previous: dict[int, Any] = {}


def new_mark() -> str:
    """A mark for a server's environment (hex: safe on the watchdog's line protocol)."""
    return secrets.token_hex(12)


def track(pgid: int, name: str, mark: str | None = None) -> None:
    install()
    with _watchdog_lock:
        _live[pgid] = name
        if mark is not None:
            _marks[pgid] = mark
        if _watchdog is None:
            _start_watchdog_locked()  # it learns every live group, this one included
        else:
            _tell_watchdog_locked(f"+{pgid}\n" + (f"m{mark}\n" if mark else ""))


def untrack(pgid: int) -> None:
    with _watchdog_lock:
        mark = _marks.pop(pgid, None)
        if _live.pop(pgid, None) is None:
            return
        _tell_watchdog_locked(f"-{pgid}\n" + (f"u{mark}\n" if mark else ""))
        if not _live:
            _stop_watchdog_locked()  # nothing left to guard: the watchdog lives only as long as servers do


# -- the watchdog (survives a SIGKILL of Trailblaze, kills the groups) ----------------------------------
_WATCHDOG = r"""
import os, signal, sys, time
for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
    signal.signal(s, signal.SIG_IGN)
groups = set()
marks = set()
for line in sys.stdin:
    line = line.strip()
    if line[:1] == "+" and line[1:].isdigit():
        groups.add(int(line[1:]))
    elif line[:1] == "-" and line[1:].isdigit():
        groups.discard(int(line[1:]))
    elif line[:1] == "m":
        marks.add(line[1:])
    elif line[:1] == "u":
        marks.discard(line[1:])
def alive(g):
    try:
        os.killpg(g, 0)
        return True
    except OSError:
        return False
for sig, pause in ((signal.SIGTERM, 0.5), (signal.SIGKILL, 0)):
    for g in list(groups):
        try:
            os.killpg(g, sig)
        except OSError:
            groups.discard(g)
    deadline = time.monotonic() + pause
    while groups and time.monotonic() < deadline:
        time.sleep(0.02)
        groups = {g for g in groups if alive(g)}
needles = {b"TRAILBLAZE_TOOL_SERVER_MARK=" + m.encode() for m in marks if m}
if needles and os.path.isdir("/proc"):
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/" + entry + "/environ", "rb") as fh:
                env = set(fh.read().split(b"\0"))
        except OSError:
            continue
        if env & needles:
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass
"""
_watchdog: subprocess.Popen[bytes] | None = None
_watchdog_lock = threading.Lock()
"""Guards ``_live`` updates from threads and the watchdog pipe (never taken in a signal handler)."""


def _start_watchdog_locked() -> None:
    """Start the watchdog (a failure to start it only loses the last resort). Caller holds the lock."""
    global _watchdog
    if sys.platform == "win32":
        return
    try:
        # Own session: a terminal's Ctrl-C must not kill it before it has done its job.
        _watchdog = subprocess.Popen([sys.executable, "-I", "-S", "-c", _WATCHDOG], stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                                     close_fds=True)
    except OSError:
        return
    for pgid in list(_live):
        mark = _marks.get(pgid)
        _tell_watchdog_locked(f"+{pgid}\n" + (f"m{mark}\n" if mark else ""))


def _tell_watchdog_locked(line: str) -> None:
    proc = _watchdog
    if proc is None or proc.stdin is None:
        return
    try:
        os.write(proc.stdin.fileno(), line.encode("ascii"))  # one short write: atomic on a pipe
    except (OSError, ValueError):
        pass


def _stop_watchdog_locked() -> None:
    """End of file tells it we are done; groups still listed (only after ``reap_all``) are rechecked."""
    global _watchdog
    proc, _watchdog = _watchdog, None
    if proc is None:
        return
    if proc.stdin is not None:
        try:
            proc.stdin.close()
        except OSError:
            pass
    try:
        proc.wait(2)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _stop_watchdog() -> None:
    with _watchdog_lock:
        _stop_watchdog_locked()


def kill_group(pgid: int, sig: int) -> bool:
    """Signal a whole group; False when it no longer exists."""
    try:
        os.killpg(pgid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def kill_marked(*marks: str) -> int:
    """SIGKILL every process of this user whose environment carries one of ``marks`` (a server's
    descendants that left its group). Returns how many were signalled; 0 without ``/proc``."""
    needles = {f"{MARK_ENV}={m}".encode() for m in marks if m}
    if not needles:
        return 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    me, killed = os.getpid(), 0
    for entry in entries:
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                env = set(fh.read().split(b"\0"))
        except OSError:
            continue
        if env & needles:
            try:
                os.kill(int(entry), signal.SIGKILL)
                killed += 1
            except OSError:
                pass
    return killed


def reap_all(grace: float = 0.5) -> None:
    """SIGTERM every tracked group, wait up to ``grace`` seconds, then SIGKILL what is left (and every
    process carrying one of their marks)."""
    groups = list(_live)
    if not groups:
        return
    marks = [_marks[g] for g in groups if g in _marks]
    alive = [g for g in groups if kill_group(g, signal.SIGTERM)]
    deadline = time.monotonic() + grace
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = [g for g in alive if _group_has_running(g)]
    for g in alive:
        kill_group(g, signal.SIGKILL)
    kill_marked(*marks)
    for g in groups:
        _live.pop(g, None)
        _marks.pop(g, None)


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
        atexit.register(_stop_watchdog)  # runs after reap_all (atexit is last-in, first-out)
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
