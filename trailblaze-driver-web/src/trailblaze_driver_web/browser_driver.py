"""``BrowserDriver``: the browser, its one context and the current page of a web session, and what the
page reports (console messages, page errors, requests, failed requests, dialogs).

This is the browser-management half of ``PlaywrightDriver`` (``driver.py`` adds the page actions,
``artifacts.py`` the screenshots, trace, video and evidence of a run). The browser is launched here or
reached remotely, or shared through a reuse scope (``connection``); each trail still gets its own
context. Playwright is imported in ``launch``, never at import time: ``trailblaze --version`` must not pay
for it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze import DeviceInfo, Driver, DriverError, current_scope, valid_text

from .config import WebDriverConfig
from .connection import (
    SharedBrowser,
    browser_key,
    collect_connection_error,
    driver_death,
    open_shared,
    quiet_abandoned_calls,
    start_browser,
)
from .evidence import WebEvidence
from .video import ScreencastRecorder, find_ffmpeg

if TYPE_CHECKING:
    from playwright.sync_api import (
        Browser,
        BrowserContext,
        ConsoleMessage,
        Dialog,
        Page,
        Playwright,
        Request,
        Response,
    )
    from trailblaze import Session

MAX_CAPTURED_REQUESTS = 5000
MAX_CAPTURED_BODY = 64 * 1024


class BrowserDriver(Driver[WebDriverConfig]):
    """Opens and closes the browser, its context and page, and listens to what the page reports."""

    def __init__(self, config: WebDriverConfig | None = None) -> None:
        super().__init__(config or WebDriverConfig())
        self.cfg = self.config
        self.session: Session | None = None
        self.playwright: Playwright | None = None
        self.browser: Browser | None = None
        self.context: BrowserContext | None = None
        self._page: Page | None = None
        self.browser_description = ""
        self._owns_browser = True
        self.tracing = False
        self.console: list[dict[str, Any]] = []
        self.failed_requests: list[dict[str, Any]] = []
        self.requests: deque[SentRequest] = deque(maxlen=MAX_CAPTURED_REQUESTS)
        """Every request the pages sent, newest last (``web_assertNetworkEvent`` searches them)."""
        self.video: ScreencastRecorder | None = None
        self.evidence = WebEvidence() if self.cfg.evidence != "off" else None
        """Network and console capture written at the end of the trail (``evidence.py``)."""

    # -- lifecycle ---------------------------------------------------------------------------------
    def start(self, session: Session) -> DeviceInfo:
        self.session = session
        quiet_abandoned_calls()
        try:
            info = self.launch(title=session.title or session.id)
        except BaseException:
            self.stop()
            raise
        return info

    def _storage_state_file(self, raw: str) -> str:
        """``storage_state`` as an existing file: relative to the workspace when a session runs, else to
        the working directory."""
        from pathlib import Path

        from trailblaze import ConfigError

        root = self.session.workspace.root if self.session is not None else Path.cwd()
        path = (Path(root) / Path(raw).expanduser()).resolve()
        if not path.is_file():
            raise ConfigError(f"drivers.playwright-native.storage_state: {path} does not exist",
                              hint="save one from a signed-in session: trailblaze tool web_getStorageState "
                                   "--session NAME > state.json")
        return str(path)

    def launch(self, *, title: str | None = None) -> DeviceInfo:
        """Start Playwright, the browser, one context and its page (``start`` without a session: the
        benchmarks and tests drive a bare browser this way)."""
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as exc:  # pragma: no cover - a dependency of this distribution
            raise DriverError(f"the web driver needs the 'playwright' package: {exc}",
                              hint="pip install trailblaze-driver-web") from None
        viewport = {"width": self.cfg.viewport.width, "height": self.cfg.viewport.height}
        options: dict[str, Any] = {"viewport": viewport}
        if self.cfg.locale:
            options["locale"] = self.cfg.locale
        if self.cfg.storage_state:
            options["storage_state"] = self._storage_state_file(self.cfg.storage_state)
        scope = current_scope()
        if scope is None:
            self.playwright, self.browser, self.browser_description = start_browser(sync_playwright, self.cfg)
            self._owns_browser = True
            self.playwright.selectors.set_test_id_attribute(self.cfg.test_id_attribute)
            self.context = self.browser.new_context(**options)
        else:
            # A run of several trails shares one browser per thread; each trail still gets its own
            # context, so cookies and storage never leak from one trail into the next. A shared browser
            # that died since the last trail (crashed, killed) is replaced once.
            key = ("playwright-browser", browser_key(self.cfg))
            self._owns_browser = False
            for attempt in (1, 2):
                shared = scope.get(key, lambda: open_shared(sync_playwright, self.cfg), alive=SharedBrowser.alive)
                self.playwright, self.browser, self.browser_description = shared.playwright, shared.browser, \
                    shared.description
                try:
                    self.playwright.selectors.set_test_id_attribute(self.cfg.test_id_attribute)
                    self.context = self.browser.new_context(**options)
                    break
                except Exception:
                    if attempt == 2:
                        raise
                    scope.discard(key)
        assert self.context is not None and self.browser is not None
        self.context.set_default_timeout(self.cfg.timeout_ms)
        self.context.set_default_navigation_timeout(self.cfg.navigation_timeout_ms)
        self.context.on("page", self._adopt)
        self.context.on("request", self._on_request)
        # No trace without logs: a trace is an artifact of the session's log directory (``--no-logging``
        # and ``trailblaze snapshot`` write none).
        if self.cfg.trace != "off" and self.session is not None and self.session.log.enabled:
            self.context.tracing.start(title=title, screenshots=self.cfg.trace_screenshots, snapshots=True,
                                       sources=False)
            self.tracing = True
        if self.cfg.video != "off" and self.session is not None and self.session.log.enabled:
            self.video = ScreencastRecorder(self.context, self.session.log_dir / ".video-frames",
                                            find_ffmpeg(self.cfg.ffmpeg_path))
        self._adopt(self.context.new_page())
        version = self.browser.version
        return DeviceInfo(platform="web", driver=self.key, classifiers=list(self.cfg.classifiers),
                          width=viewport["width"], height=viewport["height"], device_id=f"chromium-{version}",
                          name=f"Chromium {version}", browser=self.browser_description,
                          headless=self.cfg.headless, remote=self.cfg.remote)

    def stop(self) -> None:
        video, self.video = self.video, None
        if video is not None:  # never reached trail_finished (start failed): drop the frames
            video.finish(None)
        lost = self.lost()
        context, self.context = self.context, None
        browser, self.browser = self.browser, None
        playwright, self.playwright = self.playwright, None
        if not self._owns_browser:  # the reuse scope that opened it closes it
            browser = playwright = None
        self._page = None
        if lost is not None:
            # A call on a dead connection leaves an un-awaited coroutine behind (a RuntimeWarning at
            # exit): only stop Playwright itself, and collect the error its reader left.
            context = browser = None
            collect_connection_error(playwright)
        for closer in (context.close if context else None, browser.close if browser else None,
                       playwright.stop if playwright else None):
            if closer is None:
                continue
            try:
                closer()
            except Exception:  # noqa: BLE001 - already gone (browser crashed, server stopped)
                pass

    # -- the page ------------------------------------------------------------------------------------
    @property
    def page(self) -> Page:
        page = self._page
        if page is None or page.is_closed():
            if self.context is not None:
                open_pages = [p for p in self.context.pages if not p.is_closed()]
                if open_pages:
                    self._adopt(open_pages[-1])
                    assert self._page is not None
                    return self._page
            raise DriverError(self.lost() or
                              "the web driver has no open page (the browser was closed or never started)")
        return page

    def _adopt(self, page: Page) -> None:
        """Listen to a page and make it current (a popup opened by a click becomes the page tools see)."""
        self._page = page
        page.on("console", self._on_console)
        page.on("pageerror", self._on_page_error)
        page.on("requestfailed", self._on_request_failed)
        page.on("response", self._on_response)
        page.on("dialog", self._on_dialog)
        if self.video is not None:
            self.video.follow(page)

    def _log(self, kind: str, payload: dict[str, Any]) -> None:
        if self.session is not None:
            self.session.log.write(kind, payload)

    def _on_console(self, msg: ConsoleMessage) -> None:
        entry = {"type": msg.type, "text": valid_text(msg.text), "location": msg.location,
                 "url": _safe_url(msg.page)}
        self.console.append(entry)
        if self.evidence is not None:
            self.evidence.message(msg.type, msg.text, entry["url"], msg.location)
        self._log("WebConsoleLog", entry)

    def _on_page_error(self, error: Any) -> None:
        entry = {"type": "pageerror", "text": valid_text(str(error))}
        self.console.append(entry)
        if self.evidence is not None:
            self.evidence.message("pageerror", str(error))
        self._log("WebConsoleLog", entry)

    def _on_request(self, request: Request) -> None:
        try:
            body = request.post_data or ""
        except Exception:  # noqa: BLE001 - a binary body that is not text
            body = ""
        self.requests.append(SentRequest(request.method, request.url, body[:MAX_CAPTURED_BODY]))
        if self.evidence is not None:
            self.evidence.request(request)

    def _on_request_failed(self, request: Request) -> None:
        entry = {"url": request.url, "method": request.method, "failure": request.failure,
                 "resourceType": request.resource_type}
        self.failed_requests.append(entry)
        self._log("WebNetworkLog", entry)
        if self.evidence is not None:
            self.evidence.failed(request)

    def _on_response(self, response: Response) -> None:
        if self.evidence is not None:
            self.evidence.response(response)
        if response.status < 400:
            return
        request = response.request
        entry = {"url": response.url, "method": request.method, "status": response.status,
                 "failure": f"HTTP {response.status} {response.status_text}".strip(),
                 "resourceType": request.resource_type}
        self.failed_requests.append(entry)
        self._log("WebNetworkLog", entry)

    def _on_dialog(self, dialog: Dialog) -> None:
        self._log("WebDialogLog", {"type": dialog.type, "message": dialog.message, "action": self.cfg.dialogs})
        try:
            if self.cfg.dialogs == "accept":
                dialog.accept()
            else:
                dialog.dismiss()
        except Exception:  # noqa: BLE001 - the page may have navigated away
            pass

    def lost(self, error: BaseException | None = None) -> str | None:
        """The Playwright driver process died (its pipe closed), or the browser disconnected."""
        if self.playwright is None:
            return None
        dead = driver_death(self.playwright)
        if dead is not None:
            return dead
        browser = self.browser
        if browser is not None and not browser.is_connected():
            return f"the browser ({self.browser_description}) disconnected: it crashed or was closed"
        return None


@dataclass(frozen=True)
class SentRequest:
    """A request a page sent: what ``web_assertNetworkEvent`` looks for event names in."""

    method: str
    url: str
    body: str

    def mentions(self, needle_lower: str) -> bool:
        return needle_lower in self.url.lower() or needle_lower in self.body.lower()


def _safe_url(page: Page | None) -> str | None:
    try:
        return page.url if page is not None else None
    except Exception:  # noqa: BLE001
        return None

