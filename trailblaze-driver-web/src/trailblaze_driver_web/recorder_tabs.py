"""``ReplayTabs``: which tab replay will be acting on at each point of a recording.

The recorder writes ``web_switchTab``/``web_closeTab`` so that replay acts in the tab the person acted in.
Replay follows ``tabs.Tabs``' rule (a page an action opened is current when the action returns; closing the
current tab makes the one current before it current again), so this part keeps the same model over what
the person does: the tabs in the order they opened (the order ``web_switchTab {index}`` counts), those
closed, and the order tabs became current. ``TabSteps`` writes the calls that keep replay there.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from trailblaze import ToolCall

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from .recorder_steps import StepLog

CLOSED_BY_CLICK_S = 1.0
"""A tab closed this soon after a click or key press in it closed itself (``window.close()`` in a handler)."""


class ReplayTabs:
    def __init__(self, first: Page) -> None:
        self.first = first
        self.tabs: list[Page] = [first]
        """Every tab recorded, in the order they opened."""
        self._closed: set[Page] = set()
        """Tabs that are closed in replay too (the person closed them, or they closed themselves)."""
        self._history: list[Page] = [first]
        """Replay's tabs in the order they became current, its current one last."""
        self._entered: set[Page] = {first}
        """Tabs a ``web_switchTab`` into was written for (the first tab needs none)."""

    def knows(self, page: Page) -> bool:
        return page in self.tabs

    def added(self, page: Page) -> None:
        """A tab opened: known from now on (its place in the order is when it opened)."""
        if page not in self.tabs:
            self.tabs.append(page)

    def opened(self, page: Page) -> None:
        """The tab is current in replay from here on (the action that opened it was recorded before)."""
        if page not in self._closed:
            self._history.append(page)

    def entered(self, page: Page) -> bool:
        return page in self._entered

    def is_closed(self, page: Page) -> bool:
        return page in self._closed

    def switch_to(self, page: Page | None) -> int | None:
        """The index a ``web_switchTab`` before a call in ``page`` names — replay is on another tab, or has
        not been told about this one yet — and replay is on ``page`` after it; None when none is needed."""
        if page is None or page in self._closed or (self._history and self._history[-1] is page
                                                     and page in self._entered):
            return None
        index = [p for p in self.tabs if p not in self._closed].index(page)
        self._entered.add(page)
        if page in self._history:
            self._history.remove(page)
        self._history.append(page)
        return index

    def closed(self, page: Page) -> None:
        """The tab is gone in replay; the one current before it is current again."""
        self._closed.add(page)
        if page in self._history:
            self._history.remove(page)


class TabSteps:
    """The ``web_switchTab`` and ``web_closeTab`` calls of a recording, written into ``log``."""

    def __init__(self, tabs: ReplayTabs, log: StepLog, relative: Callable[[str], str]) -> None:
        self.tabs = tabs
        self.log = log
        self._relative = relative
        """A URL as the trail writes it (a path on the app's base URL)."""

    def follow(self, page: Page | None) -> None:
        """Before a call recorded in ``page``: a ``web_switchTab`` into it when replay is on another tab, or
        has not been told about this one yet (a tab an action opened is current in replay already; the
        switch says where the trail goes on, and holds if the page is slow to open)."""
        index = self.tabs.switch_to(page)
        if page is None or index is None:
            return
        title = "the first tab" if index == 0 else f"tab {index} ({self._relative(page.url)})"
        self.log.add("step", ToolCall("web_switchTab", {"index": index}), f"go to {title}", new=True)

    def closed(self, page: Page) -> None:
        """The person closed a tab: ``web_closeTab``, after a ``web_switchTab`` into it when replay is not
        on it (replay then goes back to the tab current before it, as the browser does). A tab that closed
        itself right after a click or key press in it (``window.close()`` in a handler) closes itself in
        replay too: nothing is written. Closing the first tab ends the recording."""
        if page is self.tabs.first or self.tabs.is_closed(page):
            return
        last = self.log.last_act
        by_itself = last is not None and last.page is page and last.call.name in ("web_click", "web_pressKey") \
            and time.monotonic() - last.at < CLOSED_BY_CLICK_S
        if not by_itself:
            self.log.acting = page
            self.follow(page)
            self.log.add("step", ToolCall("web_closeTab", {}), "close the tab")
        self.tabs.closed(page)
        self.log.break_next = True
