"""Reading a page's accessibility snapshot: when to read it, and what a timeout means.

Playwright is imported inside the functions (the driver module must not pay for it at import time)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trailblaze import DriverError, valid_text

if TYPE_CHECKING:
    from playwright.sync_api import Page


def wait_for_parsed_document(page: Page, timeout_ms: int) -> None:
    """Wait for ``DOMContentLoaded`` before what someone looks at (``snapshot``, the agent, a live session):
    a click that navigates returns when the new page commits, before its deferred scripts drew it, and a
    half-drawn page sends the agent after elements that are a moment away. Returns at once, without a
    browser call, once the page reached that state; a page that never finishes parsing is shown as it is."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        page.wait_for_load_state("domcontentloaded", timeout=timeout_ms)
    except PlaywrightError:
        pass


def aria_snapshot(page: Page, *, boxes: bool, timeout_ms: int) -> str:
    """Playwright's accessibility snapshot of the page (valid Unicode: page text may hold lone
    surrogates); on a very large page (tens of thousands of elements) it can outlast ``timeout_ms``,
    which is then said, with the setting to raise.

    ``page.aria_snapshot``, not ``page.locator("body").aria_snapshot``: with a selector Playwright fails
    at once when nothing matches, which is what a page caught mid-navigation (a click that signs in)
    has for a moment; the page's own snapshot waits for the new document's body."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return valid_text(str(page.aria_snapshot(mode="ai", boxes=boxes, timeout=timeout_ms)))
    except PlaywrightTimeout:
        raise DriverError(
            f"the page's accessibility snapshot did not finish within {timeout_ms} ms (a very large page?)",
            hint="raise the web driver's timeout_ms: -o timeout_ms=30000, or "
                 "drivers.playwright-native.timeout_ms in trails/config/trailblaze.yaml") from None
