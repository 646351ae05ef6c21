"""``BrowserSession``: the Playwright connection, the browser, the one context of a web session and its
current page.

The browser is launched here or reached remotely, or shared through a reuse scope (``connection``); each
trail still gets its own context, so cookies and storage never leak from one trail into the next.
Playwright is imported in ``open``, never at import time: ``trailblaze --version`` must not pay for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trailblaze import DriverError
from trailblaze import current_scope

from .actor_browser import ActorSeat, KeptSeat
from .config import WebDriverConfig
from .connection import SharedBrowser, browser_key, collect_connection_error, driver_death, open_shared, start_browser
from .tabs import Tabs

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, Playwright


class BrowserSession:
    """Opens and closes the browser and context; knows whether the browser is lost. Its ``tabs`` part knows
    the context's pages and the current one (``tabs.py``).

    ``on_page`` is told about every page that becomes current (the driver listens to it and points the
    video at it): the first page, a popup a click opened, the page left open when the current one closed."""

    def __init__(self, config: WebDriverConfig, on_page: Callable[[Page], None]) -> None:
        self.cfg = config
        self.on_page = on_page
        self.playwright: Playwright | None = None
        self.browser: Browser | None = None
        self.context: BrowserContext | None = None
        self.description = ""
        """Which browser this is, in one line (``/usr/bin/chromium (TRAILBLAZE_CHROMIUM)``, a remote server)."""
        self.tabs = Tabs(lambda page: self.on_page(page))
        self._owns_browser = True
        self._owns_playwright = True
        self.seat: ActorSeat | None = None
        """This actor's place at the browser the web actors of its trail share (``actor_browser.py``)."""

    def open(self, context_options: dict[str, Any], seat: ActorSeat | KeptSeat | None = None) -> BrowserContext:
        """Start Playwright and the browser (or take the reuse scope's, or the one shared by the web actors
        of a trail: ``seat``) and open this session's context, with the configured timeouts; its pages
        become current as they open."""
        self.seat = seat if isinstance(seat, ActorSeat) else None
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as exc:  # pragma: no cover - a dependency of this distribution
            raise DriverError(f"the web driver needs the 'playwright' package: {exc}",
                              hint="pip install trailblaze-driver-web") from None
        scope = current_scope()
        if isinstance(seat, KeptSeat):  # the run's shared browser, kept by this thread's scope
            self._owns_browser = self._owns_playwright = False
            self._context_on_kept(lambda: seat.open(sync_playwright, self.cfg), seat.discard, context_options)
        elif seat is not None:
            self.playwright, self._owns_playwright, self.browser, self.description = seat.open(sync_playwright,
                                                                                                 self.cfg)
            self._owns_browser = True
            self.playwright.selectors.set_test_id_attribute(self.cfg.test_id_attribute)
            self.context = self.browser.new_context(**context_options)
        elif scope is None:
            self.playwright, self.browser, self.description = start_browser(sync_playwright, self.cfg)
            self._owns_browser = self._owns_playwright = True
            self.playwright.selectors.set_test_id_attribute(self.cfg.test_id_attribute)
            self.context = self.browser.new_context(**context_options)
        else:
            # A run of several trails shares one browser per thread. A shared browser that died since the
            # last trail (crashed, killed) is replaced once.
            key = ("playwright-browser", browser_key(self.cfg))
            self._owns_browser = False
            kept = scope  # narrowed: the closures below keep it

            def take() -> tuple[Any, Any, str]:
                shared = kept.get(key, lambda: open_shared(sync_playwright, self.cfg), alive=SharedBrowser.alive)
                return shared.playwright, shared.browser, shared.description

            self._context_on_kept(take, lambda: kept.discard(key), context_options)
        assert self.context is not None
        self.context.set_default_timeout(self.cfg.timeout_ms)
        self.context.set_default_navigation_timeout(self.cfg.navigation_timeout_ms)
        self.tabs.listen(self.context)
        return self.context

    def _context_on_kept(self, take: Callable[[], tuple[Any, Any, str]], drop: Callable[[], None],
                         context_options: dict[str, Any]) -> None:
        """A context on a browser something keeps between trails (the run's actor browser, the thread's
        shared one): one that died since the last trail (crashed, killed) is dropped and replaced once."""
        for attempt in (1, 2):
            self.playwright, self.browser, self.description = take()
            try:
                self.playwright.selectors.set_test_id_attribute(self.cfg.test_id_attribute)
                self.context = self.browser.new_context(**context_options)
                return
            except Exception:
                if attempt == 2:
                    raise
                drop()

    def open_page(self) -> None:
        """The context's first page (after whoever listens to the context is in place)."""
        assert self.context is not None
        self.tabs.adopt(self.context.new_page())

    def adopt(self, page: Page) -> None:
        """Make ``page`` current (a popup opened by a click becomes the page tools see)."""
        self.tabs.adopt(page)

    @property
    def page(self) -> Page:
        page = self.tabs.current
        if page is None:
            raise DriverError(self.lost() or
                              "the web driver has no open page (the browser was closed or never started)")
        return page

    @property
    def version(self) -> str:
        assert self.browser is not None
        return self.browser.version

    def close(self) -> None:
        """Close the context, and the browser and Playwright when this session started them (a reuse
        scope closes what it opened, the thread's Playwright too; the actor that launched a shared browser
        closes it once the others have disconnected). Idempotent; never raises."""
        lost = self.lost()
        connection = self.playwright
        context, self.context = self.context, None
        browser, self.browser = self.browser, None
        playwright, self.playwright = self.playwright, None
        if not self._owns_browser:
            browser = playwright = None
        if not self._owns_playwright:  # the thread's, kept by its reuse scope
            playwright = None
        self.tabs.forget()
        if lost is not None:
            # A call on a dead connection leaves an un-awaited coroutine behind (a RuntimeWarning at
            # exit): only stop Playwright itself, and collect the error its reader left.
            context = browser = None
            collect_connection_error(connection)
        seat, self.seat = self.seat, None
        for closer in (context.close if context else None, seat.before_browser_close if seat else None,
                       browser.close if browser else None, playwright.stop if playwright else None,
                       seat.after_close if seat else None):
            if closer is None:
                continue
            try:
                closer()
            except Exception:  # noqa: BLE001 - already gone (browser crashed, server stopped)
                pass

    def lost(self) -> str | None:
        """The Playwright driver process died (its pipe closed), or the browser disconnected."""
        if self.playwright is None:
            return None
        dead = driver_death(self.playwright)
        if dead is not None:
            return dead
        browser = self.browser
        if browser is not None and not browser.is_connected():
            return f"the browser ({self.description}) disconnected: it crashed or was closed"
        return None
