"""``ReplayTabs``: which tab replay will be acting on at each point of a recording.

The recorder writes ``web_switchTab``/``web_closeTab`` so that replay acts in the tab the person acted in.
Replay follows ``tabs.Tabs``' rule (a page an action opened is current when the action returns; closing the
current tab makes the one current before it current again), so this part keeps the same model over what
the person does: the tabs in the order they opened (the order ``web_switchTab {index}`` counts), those
closed, and the order tabs became current.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page


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
