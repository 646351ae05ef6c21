"""Children that do not outlive the run that started them.

A runner killed with SIGKILL runs no cleanup: no ``finally``, no ``atexit``. Servers it started (a
managed Appium server, a tool server) would then live on, holding ports and devices. On Linux the
kernel can send a child a signal when its parent dies (``PR_SET_PDEATHSIG``); ``die_with_parent``
arranges that for a ``subprocess.Popen``.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Any

_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGTERM) -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child get ``sig`` when this process dies; None off Linux.

    Linux ties the signal to the *thread* that spawned the child, so spawn long-lived children from a
    thread that lives as long as they should (the main thread, or a run's device thread). Call this in
    the parent right before ``Popen``: the library is loaded here, never in the forked child."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl: Any = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:  # the parent died between fork and prctl: nobody will signal us
            os.kill(os.getpid(), sig)

    return preexec

def exit_with_parent(parent: int, sig: int = signal.SIGTERM) -> None:
    """Make this process get ``sig`` when ``parent`` (the process that started it) dies, SIGKILL included:
    an xdist worker stops with its controller instead of finishing its trail under pid 1. On Linux the
    kernel sends it (``PR_SET_PDEATHSIG``, set on this process itself); elsewhere a daemon thread notices
    that this process was re-parented. The signal then ends the running trail as any signal does."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
            _watch_parent(parent, sig)
    else:  # pragma: no cover - exercised on macOS
        _watch_parent(parent, sig)
    if os.getppid() != parent:  # it died before the signal was armed: nobody will send it
        os.kill(os.getpid(), sig)


def _watch_parent(parent: int, sig: int) -> None:
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), sig)

    threading.Thread(target=watch, name="trailblaze-parent-watch", daemon=True).start()


__all__ = ["die_with_parent", "exit_with_parent"]
