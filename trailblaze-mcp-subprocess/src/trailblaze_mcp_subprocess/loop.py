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

A tool call whose server may call back is driven in turns (``advance`` with ``Turns``): the call is the
drive's own task, and a callback ends the turn so it can run on the calling thread, outside the loop.
Nothing is wrapped around the call, so an answer that is already there costs two loop iterations.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import signal
import threading
import time
from collections.abc import Callable, Coroutine
from types import FrameType
from typing import Any, Generic, TypeVar

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
        self._turn: Turns[Any] | None = None
        """The call whose turn the current drive is (``advance``), read and written on the loop only."""
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
        me = self._check_caller(coro)
        if not on_loop_thread and self._take_the_loop(me):
            return self._drive(coro)
        return self._hand_over(coro, pinned=on_loop_thread)

    def advance(self, call: Turns[Any]) -> None:
        """One turn of ``call``: drive the loop (or, when this thread cannot, wait while another thread
        does) until ``call`` is done or ``call.interrupt()`` asks this thread back. Between turns the
        call keeps running on the loop; a call is driven as its own task, with no task around it."""
        if call.done:
            return
        if call.unstarted:
            self._check_caller(call.coro)
        elif self.loop.is_closed():
            raise RuntimeError("the session's MCP event loop is stopped")
        me = threading.get_ident()
        if call.future is None and self._take_the_loop(me):
            self._drive_turn(call)
        else:
            self._wait_turn(call)

    def _check_caller(self, coro: Coroutine[Any, Any, Any] | None) -> int:
        me = threading.get_ident()
        if me == self._thread.ident:
            if coro is not None:
                coro.close()
            raise RuntimeError("LoopThread.run called on the loop's own thread (it would wait for itself)")
        if self.loop.is_closed() or self._closing:
            if coro is not None:
                coro.close()  # never scheduled: close it, or Python warns "coroutine ... was never awaited"
            raise RuntimeError("the session's MCP event loop is stopped")
        return me

    def _take_the_loop(self, me: int) -> bool:
        """Become the loop's driver when this thread can (it runs no loop of its own and no other caller
        drives); the loop's own thread, if it drives, is asked to yield first."""
        if _in_running_loop():
            return False
        with self._cond:
            while self._driver == THREAD and not self._pinned and not self._closing:
                self.loop.call_soon_threadsafe(self._yield_thread)
                self._cond.wait(1.0)
            drive = self._driver is None
            if drive:
                self._driver, self._wake = me, False  # what was handed over runs in this drive too
        return drive

    def _release(self) -> None:
        with self._cond:
            self._driver = None
            self._idle_since = time.monotonic()

    def _drive(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            task = self.loop.create_task(coro)
        except BaseException:
            coro.close()
            self._release()
            raise
        interrupted: list[tuple[int, FrameType | None]] = []
        previous = _defer_sigint(task, interrupted)
        try:
            return self.loop.run_until_complete(task)
        except BaseException:
            task.cancel()  # processed by whoever drives next (an interrupted call must not keep running)
            raise
        finally:
            self._release()
            _restore_sigint(previous, interrupted, task)

    def _drive_turn(self, call: Turns[Any]) -> None:
        """Drive the loop for ``call`` until its task is done or it is interrupted (this thread drives)."""
        task = call.task
        try:
            if task is None:
                assert call.coro is not None
                task = call.task = self.loop.create_task(self._ending_turn(call, call.coro))
                call.coro = None
                # For a task cancelled before its first step (its coroutine never runs ``_ending_turn``'s end).
                task.add_done_callback(lambda _: self._end_turn(call))
        except BaseException:
            call.close()
            self._release()
            raise
        if not call.open_turn(lambda: self.loop.call_soon_threadsafe(self._end_turn, call)):
            self._release()
            return  # interrupted before the turn began: the caller has work to do first
        interrupted: list[tuple[int, FrameType | None]] = []
        previous = _defer_sigint(task, interrupted)
        self._turn = call
        try:
            if not task.done():
                self.loop.run_forever()
        except BaseException:
            task.cancel()  # processed by whoever drives next (an interrupted call must not keep running)
            raise
        finally:
            self._turn = None
            call.close_turn()
            self._release()
            _restore_sigint(previous, interrupted, task)

    async def _ending_turn(self, call: Turns[T], coro: Coroutine[Any, Any, T]) -> T:
        """``coro``, then the end of the turn that is driving it, in the step that finishes it: a done
        callback alone would cost one more loop iteration (and its ``epoll_wait``) per call."""
        try:
            return await coro
        finally:
            self._end_turn(call)

    def _end_turn(self, call: Turns[Any]) -> None:
        """On the loop: end the drive of ``call``'s turn (its task is done, or it was interrupted). A stop
        meant for a turn that is over is dropped: it must not stop whoever drives now."""
        if self._turn is call:
            self.loop.stop()

    def _wait_turn(self, call: Turns[Any]) -> None:
        """Wait, without driving, until ``call`` is done or interrupted: this thread runs a loop of its own,
        or another caller drives (the call is handed to that drive, or to the loop's own thread)."""
        woken = threading.Event()
        if not call.open_turn(woken.set):
            return
        try:
            if call.unstarted:
                assert call.coro is not None
                coro, call.coro = call.coro, None
                try:
                    call.future = asyncio.run_coroutine_threadsafe(coro, self.loop)
                except BaseException:  # the loop closed meanwhile
                    coro.close()
                    raise
            if call.future is not None:
                call.future.add_done_callback(lambda _: woken.set())
            else:
                task = call.task
                assert task is not None
                self.loop.call_soon_threadsafe(task.add_done_callback, lambda _: woken.set())
            with self._cond:
                if self._driver is None:
                    self._wake = True
                self._cond.notify_all()
            woken.wait()
        finally:
            call.close_turn()

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


class Turns(Generic[T]):
    """A coroutine its caller drives in turns (``LoopThread.advance``), for a tool call whose server may
    call back: the callback must run on the calling thread, outside the loop, so it ends the turn
    (``interrupt``, from any thread); the call keeps running on the loop until the next turn."""

    def __init__(self, coro: Coroutine[Any, Any, T]) -> None:
        self.coro: Coroutine[Any, Any, T] | None = coro
        """Until the first turn starts it."""
        self.task: asyncio.Task[T] | None = None
        """When this thread drove the first turn."""
        self.future: concurrent.futures.Future[T] | None = None
        """When the first turn was handed over (this thread could not drive)."""
        self._lock = threading.Lock()
        self._interrupted = False
        self._wake: Callable[[], object] | None = None

    @property
    def unstarted(self) -> bool:
        return self.coro is not None

    @property
    def done(self) -> bool:
        started = self.task if self.task is not None else self.future
        return started is not None and started.done()

    def result(self) -> T:
        """The call's result (or exception); only once ``done``."""
        if self.task is not None:
            return self.task.result()
        assert self.future is not None
        return self.future.result()

    def interrupt(self) -> None:
        """End the current turn early (or the next one before it begins). Any thread."""
        with self._lock:
            self._interrupted = True
            wake = self._wake
        if wake is not None:
            wake()

    def open_turn(self, wake: Callable[[], object]) -> bool:
        """Begin a turn that ``interrupt`` ends with ``wake``; False (and the interruption consumed) when
        one came since the last turn."""
        with self._lock:
            if self._interrupted:
                self._interrupted = False
                return False
            self._wake = wake
            return True

    def close_turn(self) -> None:
        with self._lock:
            self._wake = None
            self._interrupted = False

    def cancel(self, loop: asyncio.AbstractEventLoop) -> None:
        """Stop the call (an interrupted caller must not leave it running); never started: closed."""
        if self.coro is not None:
            self.close()
        elif self.task is not None and not self.task.done():
            loop.call_soon_threadsafe(self.task.cancel)
        elif self.future is not None:
            self.future.cancel()

    def close(self) -> None:
        if self.coro is not None:
            self.coro.close()  # never scheduled: no "coroutine ... was never awaited" warning
            self.coro = None


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


def _restore_sigint(previous: Any, interrupted: list[tuple[int, FrameType | None]], task: asyncio.Task[Any]) -> None:
    """After a drive: the application's SIGINT handler back, and each Ctrl-C that arrived meanwhile delivered."""
    if previous is None:
        return
    _setsignal(_SIGINT, previous)
    for signum, frame in interrupted:  # Ctrl-C arrived during the call: deliver it now, safely
        previous(signum, frame)
    if interrupted and task.cancelled():
        raise KeyboardInterrupt  # the call was cut short and the handler raised nothing itself


def _nothing() -> None:
    pass


def _in_running_loop() -> bool:
    """Whether this thread already runs an event loop, so it cannot run ours and hands over. The check
    ``run_until_complete`` itself makes: Playwright's sync API, for one, runs its loop on the caller's
    thread in a way ``asyncio.get_running_loop()`` does not report."""
    return asyncio._get_running_loop() is not None
