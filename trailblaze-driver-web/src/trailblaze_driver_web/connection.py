"""The Playwright connection under a web session: starting it with a browser, sharing one browser per
reuse scope, and telling when the Playwright driver process died.

A driver holds the connection; these helpers are what it needs to open, share and diagnose one, kept
apart from the page so that a dead connection is told apart in one place (``driver_death``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze import DriverError

from .browser import open_browser
from .config import WebDriverConfig

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright


@dataclass
class SharedBrowser:
    """One Playwright connection and browser, shared by the sessions of a reuse scope."""

    playwright: Playwright
    browser: Browser
    description: str

    def alive(self) -> bool:
        return self.browser.is_connected()

    def close(self) -> None:
        for closer in (self.browser.close, self.playwright.stop):
            try:
                closer()
            except Exception:  # noqa: BLE001 - already gone
                pass


def start_browser(sync_playwright: Any, cfg: WebDriverConfig) -> tuple[Playwright, Browser, str]:
    try:
        playwright: Playwright = sync_playwright().start()
    except Exception as exc:  # noqa: BLE001 - e.g. called inside a running asyncio loop
        raise DriverError(f"Playwright could not start: {exc}") from None
    try:
        browser, description = open_browser(playwright, cfg)
    except BaseException:
        playwright.stop()
        raise
    return playwright, browser, description


def open_shared(sync_playwright: Any, cfg: WebDriverConfig) -> tuple[SharedBrowser, Any]:
    shared = SharedBrowser(*start_browser(sync_playwright, cfg))
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

