"""Who drives the session's event loop: the calling thread for back-to-back calls, the loop's own thread
when idle or for spawning, and a hand-over when the caller cannot (it already runs a loop, as
Playwright's sync API makes the main thread do, or another caller is driving)."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from typing import Any

import pytest
from trailblaze.tools.base import ToolCall
from trailblaze_mcp_subprocess.loop import IDLE_HANDOVER_SECONDS, LoopThread, Turns


async def where() -> int:
    return threading.get_ident()


@pytest.fixture
def lt() -> Any:
    loop = LoopThread("test-loop")
    yield loop
    loop.stop()
    assert loop.loop.is_closed() and not loop.alive


def test_a_call_runs_on_the_calling_thread(lt: LoopThread) -> None:
    assert lt.run(where()) == threading.get_ident()
    assert lt.run(where()) == threading.get_ident()


def test_pinned_work_runs_on_the_loop_thread(lt: LoopThread) -> None:
    assert lt.run(where(), on_loop_thread=True) == lt._thread.ident


def test_the_loop_thread_takes_over_when_idle_and_gives_the_loop_back(lt: LoopThread) -> None:
    lt.run(where())
    ticks: list[int] = []

    async def tick() -> None:
        while True:
            ticks.append(threading.get_ident())
            await asyncio.sleep(0.01)

    lt.run(_start(tick))  # a background task, like a server's stderr pump
    deadline = time.monotonic() + 30  # a bound for a loaded machine, not a timing assertion
    while lt._thread.ident not in ticks:
        assert time.monotonic() < deadline, "the idle loop was never driven by its own thread"
        time.sleep(IDLE_HANDOVER_SECONDS)
    assert lt.run(where()) == threading.get_ident()  # it yields to the next call


async def _start(fn: Any) -> None:
    asyncio.get_running_loop().create_task(fn())


def test_a_caller_inside_a_running_loop_hands_over(lt: LoopThread) -> None:
    async def inside() -> int:
        return lt.run(where())  # this thread runs another loop: it cannot run ours

    other = asyncio.new_event_loop()
    try:
        assert other.run_until_complete(inside()) == lt._thread.ident
    finally:
        other.close()


def test_a_second_caller_hands_over_to_the_driving_one(lt: LoopThread) -> None:
    """A tool server calling back while its own call runs: the callback's thread must not wait for the
    loop (the driving call waits for the callback); its work runs on the driver's loop."""
    box: dict[str, Any] = {}

    async def outer() -> int:
        worker = threading.Thread(target=lambda: box.setdefault("inner", lt.run(where())))
        worker.start()
        while worker.is_alive():
            await asyncio.sleep(0.01)
        return threading.get_ident()

    assert lt.run(outer()) == threading.get_ident()
    assert box["inner"] == threading.get_ident()


@pytest.mark.browser
def test_mcp_calls_inside_playwright_sync_api(workspace: Any, sessions: Any) -> None:
    """The web driver and a tool server in one session: Playwright's sync API runs its own loop on this
    thread, so MCP calls hand over to the loop thread instead of failing."""
    from playwright.sync_api import sync_playwright

    session = sessions.start(workspace("mcpServers:\n  - script: {servers}/py_tools.py\n"))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=os.environ.get("TRAILBLAZE_CHROMIUM") or None)
        try:
            page = browser.new_page()
            page.set_content("<p>hello</p>")
            result = session.dispatcher.call(ToolCall("py_echo", {"text": page.inner_text("p")}), session.context())
            assert result.success and result.message == "echo: hello"
        finally:
            browser.close()
    assert session.dispatcher.call(ToolCall("py_echo", {"text": "after"}), session.context()).message == "echo: after"


def test_a_call_after_the_loop_stopped_fails_without_a_never_awaited_warning() -> None:
    """A tool server that failed at start stops the session's loop; a late call (closing, a stderr
    question) must fail plainly, not leave ``coroutine ... was never awaited`` on stderr."""
    import warnings

    loop = LoopThread("test-stopped")
    loop.stop()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for pinned in (False, True):
            coro = where()
            with pytest.raises(RuntimeError, match="stopped"):
                loop.run(coro, on_loop_thread=pinned)
            assert coro.cr_frame is None  # closed, so the garbage collector has nothing to warn about


def _released_by(go: threading.Event) -> Any:
    async def call() -> int:
        while not go.is_set():
            await asyncio.sleep(0.005)
        return threading.get_ident()

    return call()


def test_a_turn_ends_when_interrupted_and_the_call_goes_on(lt: LoopThread) -> None:
    """What a tool server's callback does to the call that made it: the calling thread gets control back
    (to run the callback) while the call keeps running, and the next turn drives it to its end. A stop
    meant for a turn that is over does not stop the next drive."""
    go = threading.Event()
    turns = Turns(_released_by(go))
    threading.Timer(0.05, turns.interrupt).start()
    lt.advance(turns)
    assert not turns.done  # the turn ended early; the call still waits for ``go``
    turns.interrupt()  # between turns: the next one returns at once, the call still not done
    lt.advance(turns)
    assert not turns.done
    go.set()
    while not turns.done:
        lt.advance(turns)
    assert turns.result() == threading.get_ident()  # this thread drove it
    turns.interrupt()  # too late to matter
    assert lt.run(where()) == threading.get_ident()


def test_a_caller_inside_a_running_loop_waits_for_its_turns(lt: LoopThread) -> None:
    """Under Playwright's sync API the calling thread runs a loop of its own: each turn is then a wait
    for the loop's thread, which an interrupt ends the same way."""
    go = threading.Event()
    turns = Turns(_released_by(go))

    async def inside() -> None:
        threading.Timer(0.05, turns.interrupt).start()
        lt.advance(turns)
        assert not turns.done
        go.set()
        while not turns.done:
            lt.advance(turns)

    other = asyncio.new_event_loop()
    try:
        other.run_until_complete(inside())
    finally:
        other.close()
    assert turns.result() == lt._thread.ident
