"""Signals during a run: the first one ends the run cleanly, a second one ends the process now.

CI systems stop jobs with SIGTERM, terminals that close send SIGHUP, people press Ctrl-C. Each of them
should leave what a run knows behind: the trail that was running ends as CANCELLED, the trails that
never started are listed as such, the summary and report are written, every child is stopped, and
the exit code is 2. So the first signal is turned into ``RunInterrupted`` (a ``KeyboardInterrupt``,
which every cleanup path already honours) in the main thread; while outputs are being written it is
only noted, so a report is never cut in half. A second signal means "stop now": the process exits at
once with code 2, and children started with ``trailblaze.children.die_with_parent`` go with it.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class RunInterrupted(KeyboardInterrupt):
    """The run was interrupted by ``signal_name``; raised in the main thread by the first signal."""

    def __init__(self, signal_name: str = "SIGINT") -> None:
        super().__init__(f"interrupted by {signal_name}")
        self.signal_name = signal_name


def signal_name(exc: BaseException) -> str:
    """The signal behind an interruption (a bare ``KeyboardInterrupt`` is Ctrl-C)."""
    return exc.signal_name if isinstance(exc, RunInterrupted) else "SIGINT"


class _State:
    def __init__(self) -> None:
        self.received: str | None = None
        self.deferring = 0
        """How many threads are in a ``deferred`` block (device threads record results too)."""
        self.pending = False
        self.lock = threading.Lock()


_state = _State()


def _handle(signum: int, _frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    if _state.received is not None:
        try:
            os.write(2, f"trailblaze: {name} after {_state.received}: exiting now\n".encode())
        finally:
            os._exit(2)
    _state.received = name
    if _state.deferring:
        _state.pending = True
        return
    raise RunInterrupted(name)


_handle.cuts_calls_short = True  # type: ignore[attr-defined]
"""Tells code that defers SIGINT around a blocking call (the MCP plugin's loop) that this handler means
"stop now": the first signal cancels the call, then the handler runs and ends the trail as CANCELLED."""


@contextmanager
def handle_signals() -> Iterator[None]:
    """Turn SIGINT, SIGTERM and SIGHUP into ``RunInterrupted`` for the duration (main thread only;
    elsewhere, Python cannot install handlers and the defaults stay)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in SIGNALS}
    _state.received, _state.deferring, _state.pending = None, 0, False
    for sig in SIGNALS:
        signal.signal(sig, _handle)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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
