"""The Playwright connection under a web session: starting it with a browser, sharing one browser per
reuse scope, and telling when the Playwright driver process died.

Playwright's sync API allows one started Playwright per thread, and starting it costs as much as ten
browser contexts, so inside a reuse scope a thread's Playwright is started once (``thread_playwright``)
and kept by the scope: the scope's shared browser and the browser an actor of a trail launches or reaches
(``actor_browser.py``) are opened with it.

A driver holds the connection; these helpers are what it needs to open, share and diagnose one, kept
apart from the page so that a dead connection is told apart in one place (``driver_death``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze import DriverError, current_scope

from .browser import open_browser
from .config import WebDriverConfig

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright


@dataclass
class SharedBrowser:
    """One Playwright connection and browser, shared by the sessions of a reuse scope. The Playwright is
    the scope's (``thread_playwright``) unless ``owns_playwright``: then closing stops it too."""

    playwright: Playwright
    browser: Browser
    description: str
    owns_playwright: bool = True

    def alive(self) -> bool:
        return self.browser.is_connected()

    def close(self) -> None:
        for closer in (self.browser.close, self.playwright.stop if self.owns_playwright else None):
            if closer is None:
                continue
            try:
                closer()
            except Exception:  # noqa: BLE001 - already gone
                pass


def start_playwright(sync_playwright: Any) -> Playwright:
    try:
        playwright: Playwright = sync_playwright().start()
    except Exception as exc:  # noqa: BLE001 - e.g. called inside a running asyncio loop
        raise DriverError(f"Playwright could not start: {exc}") from None
    return playwright


def thread_playwright(sync_playwright: Any) -> tuple[Playwright, bool]:
    """This thread's Playwright and whether the caller owns it (must stop it): the current reuse scope's,
    started the first time and again if its driver process died (the scope stops it), else a new one."""
    scope = current_scope()
    if scope is None:
        return start_playwright(sync_playwright), True

    def start() -> tuple[Playwright, Any]:
        playwright = start_playwright(sync_playwright)
        return playwright, playwright.stop

    return scope.get(("playwright",), start, alive=lambda p: driver_death(p) is None), False


def start_browser(sync_playwright: Any, cfg: WebDriverConfig) -> tuple[Playwright, Browser, str]:
    playwright = start_playwright(sync_playwright)
    try:
        browser, description = open_browser(playwright, cfg)
    except BaseException:
        playwright.stop()
        raise
    return playwright, browser, description


def open_shared(sync_playwright: Any, cfg: WebDriverConfig) -> tuple[SharedBrowser, Any]:
    """The reuse scope's browser, opened with the scope's Playwright (called inside ``scope.get``)."""
    playwright, owned = thread_playwright(sync_playwright)
    try:
        browser, description = open_browser(playwright, cfg)
    except BaseException:
        if owned:
            playwright.stop()
        raise
    shared = SharedBrowser(playwright, browser, description, owns_playwright=owned)
    return shared, shared.close


def browser_key(cfg: WebDriverConfig) -> str:
    """The settings that decide which browser is launched or reached: trails whose settings differ only in
    context options (viewport, locale, timeouts, trace) share a browser; others get their own."""
    import json

    fields = ("executable_path", "headless", "connect", "cdp_url", "connect_headers", "connect_launch_options",
              "launch_args", "slow_mo_ms", "grid_url", "grid_capabilities", "grid_queue_timeout_ms")
    return json.dumps({f: getattr(cfg, f) for f in fields}, sort_keys=True, default=str)


def _client(playwright: Playwright | None) -> Any:
    """Playwright's connection to its driver process. Not public API, hence every step guarded: on a
    Playwright that changed its internals, death of the driver is then just not told apart."""
    manager = getattr(getattr(playwright, "stop", None), "__self__", None)
    return getattr(manager, "_client", None)


def driver_death(playwright: Playwright) -> str | None:
    """One line on the Playwright driver process when it is gone (exit code or signal, the error its
    pipe gave), else None."""
    try:
        connection = getattr(getattr(playwright, "_impl_obj", None), "_connection", None)
        if getattr(connection, "_closed_error", None) is None:
            return None
        transport = getattr(_client(playwright), "_transport", None)
        proc = getattr(transport, "_proc", None)
        pid, code = getattr(proc, "pid", None), getattr(proc, "returncode", None)
        how = "died"
        if isinstance(code, int):
            import signal

            how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with code {code}"
        said = ""
        future = getattr(transport, "on_error_future", None)
        if future is not None and future.done() and not future.cancelled() and future.exception() is not None:
            said = f": {future.exception()}"
        return f"the Playwright driver process (node{f', pid {pid}' if pid else ''}) {how}{said}"
    except Exception:  # noqa: BLE001 - a health check never raises
        return None


def collect_connection_error(playwright: Playwright | None) -> None:
    """Read the error the dead driver's pipe left, so asyncio does not print 'Future exception was
    never retrieved' at exit."""
    try:
        future = getattr(getattr(_client(playwright), "_transport", None), "on_error_future", None)
        if future is not None and future.done() and not future.cancelled():
            future.exception()
    except Exception:  # noqa: BLE001, S110
        pass


class _AbandonedCallFilter(logging.Filter):
    """Drops Playwright's report of an answer to a call nobody waits for any more.

    A run interrupted (Ctrl-C, SIGTERM) while a Playwright call waits abandons that call; the driver
    process still answers it a moment later, and Playwright logs "Cannot find command to respond" with
    a traceback on stderr. That is the interruption's echo, not a failure worth a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not (error is not None and str(error).startswith("Cannot find command to respond"))


def quiet_abandoned_calls() -> None:
    logger = logging.getLogger("playwright")
    if not any(isinstance(f, _AbandonedCallFilter) for f in logger.filters):
        logger.addFilter(_AbandonedCallFilter())

