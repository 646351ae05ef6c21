"""Reading a page's accessibility snapshot: when to read it, and what a timeout means.

Playwright is imported inside the functions (the driver module must not pay for it at import time)."""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from trailblaze import DriverError, valid_text

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Page


def wait_for_parsed_document(page: Page, timeout_ms: int) -> bool:
    """Wait for ``DOMContentLoaded`` before what someone looks at (``snapshot``, the agent, a live session):
    a click that navigates returns when the new page commits, before its deferred scripts drew it, and a
    half-drawn page sends the agent after elements that are a moment away. Returns at once, without a
    round trip, once the page reached that state (Playwright's waiter still tells its driver: see
    ``ParsedDocuments``); a page that never finishes parsing is shown as it is. True when the document is
    parsed, False when the wait ran out or the page went away."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        page.wait_for_load_state("domcontentloaded", timeout=timeout_ms)
    except PlaywrightError:
        return False
    return True


class ParsedDocuments:
    """Which pages' current documents were seen parsed, so a look at one of them sends the browser nothing
    before its snapshot.

    ``wait_for_parsed_document`` makes no round trip once the page is parsed, but Playwright's waiter still
    sends its driver three messages each time (the wait's start, its log line, its end): ~1.3 ms per look,
    two looks per agent step (benchmarks/bench_agent_overhead.py). A page is marked parsed by its main
    frame's ``domcontentloaded`` event, or when a wait returned in time; every main-frame navigation
    (``framenavigated``, same-document ones too) unmarks it, and the next look waits as before. Both
    events come in the order the browser sent them, on the stream Playwright's own load states are kept
    from, so a look skips the wait exactly when that wait would have returned at once."""

    def __init__(self) -> None:
        self._pages: weakref.WeakKeyDictionary[Page, _Document] = weakref.WeakKeyDictionary()

    def wait(self, page: Page, timeout_ms: int) -> None:
        """``wait_for_parsed_document``, without a message to the browser when the page is known parsed."""
        doc = self._pages.get(page)
        if doc is None:
            doc = self._pages[page] = _Document(page)
        if doc.parsed:
            return
        navigations = doc.navigations
        if wait_for_parsed_document(page, timeout_ms) and doc.navigations == navigations:
            doc.parsed_at = navigations

    def parsed(self, page: Page) -> bool:
        doc = self._pages.get(page)
        return doc is not None and doc.parsed


class _Document:
    """One page's count of main-frame navigations, and the count its document was last seen parsed at."""

    # No __slots__: Playwright keeps its wrapper of a bound-method listener on the method's object.

    def __init__(self, page: Page) -> None:
        self.navigations = 0
        self.parsed_at = -1
        page.on("framenavigated", self._navigated)
        page.on("domcontentloaded", self._parsed)

    @property
    def parsed(self) -> bool:
        return self.parsed_at == self.navigations

    def _navigated(self, frame: Frame) -> None:
        if frame.parent_frame is None:
            self.navigations += 1

    def _parsed(self, _page: Page) -> None:
        self.parsed_at = self.navigations


def aria_snapshot(page: Page, *, boxes: bool, timeout_ms: int) -> str:
    """Playwright's accessibility snapshot of the page (valid Unicode: page text may hold lone
    surrogates); on a very large page (tens of thousands of elements) it can outlast ``timeout_ms``,
    which is then said, with the setting to raise.

    ``page.aria_snapshot``, not ``page.locator("body").aria_snapshot``: with a selector Playwright fails
    at once when nothing matches, which is what a page caught mid-navigation (a click that signs in)
    has for a moment; the page's own snapshot waits for the new document's body."""
    with snapshot_within(timeout_ms):
        return valid_text(str(page.aria_snapshot(mode="ai", boxes=boxes, timeout=timeout_ms)))


@contextmanager
def snapshot_within(timeout_ms: int) -> Iterator[None]:
    """An accessibility snapshot taken inside says so when it outlasts ``timeout_ms``, with the setting to
    raise, instead of Playwright's ``Locator.aria_snapshot: Timeout 600ms exceeded`` (every snapshot a
    tool takes: ours, and the one upstream's ``eN`` refs are resolved against)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        yield
    except PlaywrightTimeout:
        raise DriverError(
            f"the page's accessibility snapshot did not finish within {timeout_ms} ms (a very large page?)",
            hint="raise the web driver's timeout_ms: -o timeout_ms=30000, or "
                 "drivers.playwright-native.timeout_ms in trails/config/trailblaze.yaml") from None
