"""Signals during a run: the first one ends the run cleanly, a second one ends the process now.

CI systems stop jobs with SIGTERM, terminals that close send SIGHUP, people press Ctrl-C. Each of them
should leave what a run knows behind: the trail that was running ends as CANCELLED, the trails that
never started are listed as such, the summary and report are written, every child is stopped, and
the exit code is 2. So the first signal is turned into ``RunInterrupted`` (a ``KeyboardInterrupt``,
which every cleanup path already honours) in the main thread; while outputs are being written it is
only noted, so a report is never cut in half. A second signal means "stop now": the process exits at
once with code 2, and children started with ``trailblaze.children.die_with_parent`` go with it.

Under ``run -n`` and ``pytest --trails -n`` the controller hands its first signal on to its workers
(``forward``), which stop their running trail the same way; a worker (``parent`` set) ignores every
later signal: it is stopping already, and a second one is no "stop now" from a person (Ctrl-C in a
terminal reaches a worker twice, from the terminal and from its controller; execnet interrupts a
worker's main thread when its controller's pipe closes). "Stop now" is the controller's: it exits at
once, and the workers end when their trail's clean-up is done.
"""

from __future__ import annotations

import os
import re
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class RunInterrupted(KeyboardInterrupt):
    """The run was interrupted by ``signal_name``; raised in the main thread by the first signal."""

    def __init__(self, signal_name: str = "SIGINT") -> None:
        super().__init__(f"interrupted by {signal_name}")
        self.signal_name = signal_name


def signal_name(exc: BaseException) -> str:
    """The signal behind an interruption (a bare ``KeyboardInterrupt`` is Ctrl-C). pytest's and xdist's
    ``Interrupted`` carry the reason a trail item stopped the session with (``interrupted by SIGTERM``)."""
    if isinstance(exc, RunInterrupted):
        return exc.signal_name
    found = re.search(r"\binterrupted by (SIG[A-Z]+)\b", str(exc))
    return found.group(1) if found else "SIGINT"


class _State:
    def __init__(self) -> None:
        self.received: str | None = None
        self.deferring = 0
        """How many threads are in a ``deferred`` block (device threads record results too)."""
        self.pending = False
        self.lock = threading.Lock()
        self.forward: list[Callable[[int], None]] = []
        """Told the first signal's number before it is raised here: a controller passes it to its workers."""
        self.parent: int | None = None
        """A worker's controller (pid): a later signal is the controller's to act on, not the worker's."""


_state = _State()


def _handle(signum: int, _frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    if _state.received is not None:
        if _state.parent is not None:
            return
        try:
            os.write(2, f"trailblaze: {name} after {_state.received}: exiting now\n".encode())
        finally:
            os._exit(2)
    _state.received = name
    for forward in list(_state.forward):
        try:
            forward(signum)
        except Exception:  # noqa: BLE001 - a worker already gone: the rest still get the signal
            pass
    if _state.deferring:
        _state.pending = True
        return
    raise RunInterrupted(name)


_handle.cuts_calls_short = True  # type: ignore[attr-defined]
"""Tells code that defers SIGINT around a blocking call (the MCP plugin's loop) that this handler means
"stop now": the first signal cancels the call, then the handler runs and ends the trail as CANCELLED."""


@contextmanager
def handle_signals(*, forward: Callable[[int], None] | None = None, parent: int | None = None) -> Iterator[None]:
    """Turn SIGINT, SIGTERM and SIGHUP into ``RunInterrupted`` for the duration (main thread only;
    elsewhere, Python cannot install handlers and the defaults stay). ``forward`` is told the first
    signal (a controller's workers get it too); ``parent`` makes this process a worker of that pid.
    Nested in another ``handle_signals`` (``run -n`` around the pytest plugin), it only adds ``forward``."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    nested = signal.getsignal(SIGNALS[0]) is _handle
    if forward is not None:
        _state.forward.append(forward)
    previous = {} if nested else {sig: signal.getsignal(sig) for sig in SIGNALS}
    if not nested:
        _state.received, _state.deferring, _state.pending, _state.parent = None, 0, False, parent
        for sig in SIGNALS:
            signal.signal(sig, _handle)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if forward is not None:
            _state.forward.remove(forward)
        if not nested:
            _state.parent = None


def received() -> str | None:
    """The first signal of the current ``handle_signals`` block, if one came."""
    return _state.received


@contextmanager
def deferred() -> Iterator[None]:
    """Within this block a first signal is noted, not raised (``pending`` tells afterwards)."""
    with _state.lock:
        _state.deferring += 1
    try:
        yield
    finally:
        with _state.lock:
            _state.deferring -= 1


def pending() -> str | None:
    """The signal that arrived during a ``deferred`` block and was not raised yet, if any."""
    if _state.pending:
        _state.pending = False
        return _state.received
    return None
