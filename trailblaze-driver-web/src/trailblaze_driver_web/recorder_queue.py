"""``EventQueue``: the recorder's reports and page events, handled one at a time in the order they came.

Naming an element waits on Playwright, and meanwhile Playwright delivers the next report or event (Enter
after the text it commits, the navigation a click caused): each is queued and handled after the one
being handled, never inside it. One that fails is lost and said; the recording goes on.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable


class EventQueue:
    def __init__(self, warn: Callable[[str], None]) -> None:
        self._warn = warn
        self._items: deque[Callable[[], None]] = deque()
        self._handling = False

    def put(self, item: Callable[[], None], *, first: bool = False, drain: bool = True) -> None:
        """Queue ``item`` (ahead of the others when ``first``) and, when ``drain``, handle the queue unless
        it is being handled already, further up the stack."""
        if first:
            self._items.appendleft(item)
        else:
            self._items.append(item)
        if drain:
            self.drain()

    def drain(self) -> None:
        if self._handling:
            return
        self._handling = True
        try:
            while self._items:
                item = self._items.popleft()
                try:
                    item()
                except Exception as exc:  # noqa: BLE001 - one event lost, said; the recording goes on
                    self._warn(f"an event could not be recorded: {' '.join(str(exc).split())[:200]}")
        finally:
            self._handling = False
