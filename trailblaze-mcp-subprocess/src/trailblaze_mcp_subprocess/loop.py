"""One asyncio event loop per session, driven by whoever needs it: the sync core calls, the async SDK runs.

Tool dispatch in Trailblaze is synchronous; the ``mcp`` SDK is async. Every server of a session shares
this one loop. Handing each call to a loop running on another thread costs two thread wake-ups per
call, and on a busy machine each can wait for a time slice, so a call borrows the loop instead: the
calling thread runs it (``run_until_complete``) for the length of the call, as a bare SDK client would.
Between calls the loop's own thread takes it back after ``IDLE_HANDOVER_SECONDS`` so the servers'
stderr keeps being read and a request nobody is driving still completes; a run of back-to-back calls
never pays for a thread hop.

Who drives is one field under one condition variable: ``None``, ``"thread"`` (the loop's thread) or a
caller's thread id. A caller that finds another *caller* driving hands its coroutine over instead of
waiting for the loop (that caller may be waiting on it: a tool server calling back while its own call
runs). Work that must run on the loop's thread — spawning servers, whose parent-death signal follows
the thread that forked them — is pinned there.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from collections.abc import Callable, Coroutine
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

IDLE_HANDOVER_SECONDS = 0.05
"""How long the loop may go undriven after a call before its own thread takes it back."""
THREAD = "thread"
_SIGINT = int(signal.SIGINT)

# ``signal``'s C core: the same handlers without the wrappers' enum round trips (converting a Python
# handler raises and catches a ValueError inside ``signal``), which cost microseconds on every call.
try:
    import _signal  # type: ignore[import-not-found]

    _getsignal: Callable[[int], Any] = _signal.getsignal
    _setsignal: Callable[[int, Any], Any] = _signal.signal
except (ImportError, AttributeError):  # pragma: no cover - another Python: the public wrappers
    _getsignal, _setsignal = signal.getsignal, signal.signal


class LoopThread:
    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._cond = threading.Condition()
        self._driver: int | str | None = None
        self._pinned = 0
        self._wake = False
        self._closing = False
        self._idle_since = time.monotonic()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()

    # -- the loop's own thread ----------------------------------------------------------------------
    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        cond = self._cond
        while True:
            with cond:
                while True:
                    if self._closing:
                        return
                    if self._driver is None:
                        idle = time.monotonic() - self._idle_since
                        if self._wake or self._pinned or idle >= IDLE_HANDOVER_SECONDS:
                            self._driver, self._wake = THREAD, False
                            break
                        cond.wait(IDLE_HANDOVER_SECONDS - idle)
                    else:  # a caller drives; look again later (releasing does not notify: no wake-up per call)
                        cond.wait(IDLE_HANDOVER_SECONDS)
            try:
                self.loop.run_forever()
            finally:
                with cond:
                    self._driver = None
                    self._idle_since = time.monotonic()
                    cond.notify_all()

    def _yield_thread(self) -> None:
        """On the loop (thread-driven): stop driving so a waiting caller can take over."""
        if self._driver == THREAD and not self._pinned:
            self.loop.stop()

    # -- callers ------------------------------------------------------------------------------------
    def run(self, coro: Coroutine[Any, Any, T], *, on_loop_thread: bool = False) -> T:
        """Run ``coro`` on the loop and wait for its result (exceptions propagate). ``on_loop_thread``
        makes it run on the loop's own thread (needed for spawning servers)."""
        me = threading.get_ident()
        if me == self._thread.ident:
            coro.close()
            raise RuntimeError("LoopThread.run called on the loop's own thread (it would wait for itself)")
        if self.loop.is_closed() or self._closing:
            coro.close()  # never scheduled: close it, or Python warns "coroutine ... was never awaited"
            raise RuntimeError("the session's MCP event loop is stopped")
        if not on_loop_thread and not _in_running_loop():
            with self._cond:
                while self._driver == THREAD and not self._pinned and not self._closing:
                    self.loop.call_soon_threadsafe(self._yield_thread)
                    self._cond.wait(1.0)
                drive = self._driver is None
                if drive:
                    self._driver, self._wake = me, False  # what was handed over runs in this drive too
            if drive:
                return self._drive(coro)
        return self._hand_over(coro, pinned=on_loop_thread)

    def _drive(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            task = self.loop.create_task(coro)
        except BaseException:
            coro.close()
            with self._cond:
                self._driver = None
            raise
        interrupted: list[tuple[int, FrameType | None]] = []
        previous = _defer_sigint(task, interrupted)
        try:
            return self.loop.run_until_complete(task)
        except BaseException:
            task.cancel()  # processed by whoever drives next (an interrupted call must not keep running)
            raise
        finally:
            with self._cond:
                self._driver = None
                self._idle_since = time.monotonic()
            if previous is not None:
                _setsignal(_SIGINT, previous)
                for signum, frame in interrupted:  # Ctrl-C arrived during the call: deliver it now, safely
                    previous(signum, frame)
                if interrupted and task.cancelled():
                    raise KeyboardInterrupt  # the call was cut short and the handler raised nothing itself

    def _hand_over(self, coro: Coroutine[Any, Any, T], *, pinned: bool) -> T:
        with self._cond:
            if pinned:
                self._pinned += 1
            if self._driver is None:
                self._wake = True
            self._cond.notify_all()
        try:
            future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        except BaseException:  # the loop closed meanwhile
            coro.close()
            if pinned:
                with self._cond:
                    self._pinned -= 1
            raise
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise
        finally:
            if pinned:
                with self._cond:
                    self._pinned -= 1

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self.loop.is_closed()

    def stop(self, timeout: float = 5.0) -> None:
        """Cancel what is left, stop the loop and join the thread. Idempotent."""
        if self.loop.is_closed():
            return
        with self._cond:
            self._closing = True
            if self._driver == THREAD:
                self.loop.call_soon_threadsafe(self.loop.stop)
            self._cond.notify_all()
        self._thread.join(timeout)
        with self._cond:
            deadline = time.monotonic() + timeout
            while self._driver is not None and time.monotonic() < deadline:  # a caller still driving
                self._cond.wait(0.1)
            if self._driver is not None or self._thread.is_alive():
                return  # cannot close a loop someone runs; the daemon thread dies with the process
            self._driver = threading.get_ident()

        async def _cancel_rest() -> None:
            rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in rest:
                t.cancel()
            if rest:
                await asyncio.wait(rest, timeout=1.0)

        cancel_rest = _cancel_rest()
        try:
            self.loop.run_until_complete(cancel_rest)
        except BaseException:  # noqa: BLE001 - stopping anyway
            # A loop that cannot run it any more (closed, or stopped by a signal) never started the
            # coroutine: close it, or Python warns at exit that it was never awaited.
            cancel_rest.close()
        finally:
            self.loop.close()


def _defer_sigint(task: asyncio.Task[Any], seen: list[tuple[int, FrameType | None]]) -> Any:
    """On the main thread, while a call drives the loop, SIGINT must not raise inside whatever loop callback
    runs (that would break the SDK's tasks and leave asyncio warnings). With Python's own handler, Ctrl-C
    cancels the call's task and ``KeyboardInterrupt`` is raised once the loop has stopped (what
    ``asyncio.Runner`` does). An application's own handler (say, "finish the trail, then stop") gets each
    signal once the call is over; a second Ctrl-C during the call cuts it short first. Returns the
    handler to restore, or None when nothing was installed."""
    if threading.get_ident() != threading.main_thread().ident:
        return None
    previous = _getsignal(_SIGINT)
    if not callable(previous):
        return None

    # Python's own handler, or one that says it stops the run (``trailblaze run``'s): the first Ctrl-C
    # stops the call; another application's: the second one does.
    patience = 1 if previous is signal.default_int_handler or getattr(previous, "cuts_calls_short", False) else 2

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        seen.append((signum, frame))
        if len(seen) >= patience:
            task.cancel()
            task.get_loop().call_soon_threadsafe(_nothing)  # wake the selector: it retries after a signal

    _setsignal(_SIGINT, on_sigint)
    return previous


def _nothing() -> None:
    pass


def _in_running_loop() -> bool:
    """Whether this thread already runs an event loop, so it cannot run ours and hands over. The check
    ``run_until_complete`` itself makes: Playwright's sync API, for one, runs its loop on the caller's
    thread in a way ``asyncio.get_running_loop()`` does not report."""
    return asyncio._get_running_loop() is not None
