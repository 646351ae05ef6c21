"""One asyncio event loop on its own thread per session: the sync core calls, the async SDK runs.

Tool dispatch in Trailblaze is synchronous; the ``mcp`` SDK is async. Every server of a session shares
this one loop (one thread, many connections), and ``run`` hands a coroutine over and waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coro`` on the loop and wait for its result (exceptions propagate)."""
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except BaseException:
            future.cancel()
            raise

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self.loop.is_closed()

    def stop(self, timeout: float = 5.0) -> None:
        """Cancel what is left, stop the loop and join the thread. Idempotent."""
        if self.loop.is_closed():
            return
        if self._thread.is_alive():
            async def _cancel_rest() -> None:
                me = asyncio.current_task()
                rest = [t for t in asyncio.all_tasks() if t is not me]
                for t in rest:
                    t.cancel()
                if rest:
                    await asyncio.wait(rest, timeout=1.0)

            with contextlib.suppress(BaseException):  # stopping anyway
                asyncio.run_coroutine_threadsafe(_cancel_rest(), self.loop).result(timeout)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout)
        if not self._thread.is_alive():
            self.loop.close()
