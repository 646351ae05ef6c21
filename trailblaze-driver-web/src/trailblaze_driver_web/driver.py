"""``PlaywrightDriver``: one Chromium browser context per session, and the artifacts of a web run.

The driver owns the Playwright connection, the browser (launched here or reached remotely), one
context and its current page. Tools reach the page through it; it also keeps the last parsed
snapshot, so an action by ref can be recorded as a selector (see ``recorder``). Artifacts go to the
session's log directory: a screenshot of a failed step, or of every step with ``screenshots: on``
(referenced from a ``TrailblazeSnapshotLog``), a Playwright trace per trail when the ``trace`` setting
asks for one (secrets scrubbed), and console messages, page errors, failed requests and dialogs as log
entries. A passing run with the defaults takes no screenshot and records no trace: both cost on every
step (docs/web.md, Artifacts).

Playwright is imported in ``launch``, never at import time: ``trailblaze --version`` must not pay for it.
"""

from __future__ import annotations

import logging
import time
import zipfile
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urljoin, urlparse

from trailblaze.driver import DeviceInfo, Driver, DriverConfig
from trailblaze.errors import BadInputError, DriverError, ToolFailure
from trailblaze.memory import secret_forms
from trailblaze.reuse import current_scope
from trailblaze.untrusted import valid_text

from .browser import open_browser
from .config import WebDriverConfig
from .evidence import WebEvidence
from .snapshot import PageSnapshot, parse
from .video import VIDEO_FILE, ScreencastRecorder, find_ffmpeg

if TYPE_CHECKING:
    from playwright.sync_api import (
        Browser,
        BrowserContext,
        ConsoleMessage,
        Dialog,
        Locator,
        Page,
        Playwright,
        Request,
        Response,
    )
    from trailblaze.driver import StepInfo
    from trailblaze.recorder import RecordedStepDraft, RecordOptions
    from trailblaze.selectors import NodeSelector
    from trailblaze.session import Session

DRIVER_KEY = "playwright-native"
TRACE_FILE = "trace.zip"


class PlaywrightDriver(Driver[WebDriverConfig]):
    """Drives Chromium through Playwright. Headless by default; ``--headed`` shows the window."""

    key: ClassVar[str] = DRIVER_KEY
    aliases: ClassVar[tuple[str, ...]] = ("PLAYWRIGHT_NATIVE",)
    platform: ClassVar[str] = "web"
    description: ClassVar[str] = "Chromium through Playwright (local, or remote via connect / cdp_url)"
    config_model: ClassVar[type[DriverConfig]] = WebDriverConfig
    default_classifiers: ClassVar[tuple[str, ...]] = ("web",)

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
        self.last_snapshot: PageSnapshot | None = None
        self.tracing = False
        self._group_open = False
        self.console: list[dict[str, Any]] = []
        self.failed_requests: list[dict[str, Any]] = []
        self.requests: deque[SentRequest] = deque(maxlen=MAX_CAPTURED_REQUESTS)
        """Every request the pages sent, newest last (``web_assertNetworkEvent`` searches them)."""
        self.video: ScreencastRecorder | None = None
        self.evidence = WebEvidence() if self.cfg.evidence != "off" else None
        """Network and console capture written at the end of the trail (``evidence.py``)."""
        self._shots = 0
        self.requested_detail: frozenset[str] = frozenset()
        self.secret_fields: list[Locator] = []
        """Fields a secret was typed into; every screenshot paints over them (``mask_secret``)."""
        """Extra snapshot detail asked for by ``web_requestDetails``, applied to the next snapshot only."""

    # -- lifecycle ---------------------------------------------------------------------------------
    def start(self, session: Session) -> DeviceInfo:
        self.session = session
        _quiet_abandoned_calls()
        try:
            info = self.launch(title=session.title or session.id)
        except BaseException:
            self.stop()
            raise
        return info

    def record_actions(self, options: RecordOptions) -> list[RecordedStepDraft]:
        """``trailblaze record``: see ``recorder``."""
        from .recorder import record_actions

        return record_actions(self, options)

    def _storage_state_file(self, raw: str) -> str:
        """``storage_state`` as an existing file: relative to the workspace when a session runs, else to
        the working directory."""
        from pathlib import Path

        from trailblaze.errors import ConfigError

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
            self.playwright, self.browser, self.browser_description = _start_browser(sync_playwright, self.cfg)
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
                shared = scope.get(key, lambda: _open_shared(sync_playwright, self.cfg), alive=_SharedBrowser.alive)
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
            _collect_connection_error(playwright)
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

    # -- URLs ----------------------------------------------------------------------------------------
    def base_url(self) -> str | None:
        """``base_url`` setting, else the target trailmap's ``platforms.web.base_url``; memory tokens
        (``{{shopUrl}}``) resolved, so a plugin that starts the app can publish its address."""
        raw = self.cfg.base_url or _target_base_url(self.session)
        if not raw:
            return None
        if self.session is not None:
            raw = str(self.session.memory.interpolate(raw))
        return raw if "{{" not in raw and "${" not in raw else None

    def resolve_url(self, url: str) -> str:
        if urlparse(url).scheme:
            return url
        base = self.base_url()
        if base is None:
            raise ToolFailure(f"relative URL '{url}' needs a base URL: set drivers.playwright-native.base_url, "
                              "-o base_url=..., or the target's platforms.web.base_url")
        return urljoin(base if base.endswith("/") or url.startswith("/") else base + "/", url)

    def count_matches(self, selector: NodeSelector) -> int:
        """Elements the selector picks now, by the same resolver ``nodeSelector`` tools use."""
        from .selectors import resolve, selector_locator

        try:
            if selector.geometric:
                return resolve(self.page, selector, 0).count
            return selector_locator(self.page, selector).count()
        except ValueError as exc:
            raise BadInputError(str(exc)) from None

    # -- snapshots and screenshots -----------------------------------------------------------------
    def take_snapshot(self) -> PageSnapshot:
        page = self.page
        raw = self._aria_snapshot(boxes=True)
        size = page.viewport_size
        snap = parse(raw, (size["width"], size["height"]) if size else None)
        self.last_snapshot = snap
        return snap

    snapshot_details: ClassVar[tuple[str, ...]] = ("bounds", "offscreen", "urls", "all")

    def snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        return self.take_snapshot().render(detail | self.pop_requested_detail())

    def native_snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        return self._aria_snapshot(boxes="bounds" in detail or "all" in detail)

    def _aria_snapshot(self, *, boxes: bool) -> str:
        """Playwright's accessibility snapshot of the page (valid Unicode: page text may hold lone
        surrogates); on a very large page (tens of thousands of elements) it can outlast ``timeout_ms``,
        which is then said, with the setting to raise."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            return valid_text(str(self.page.locator("body").aria_snapshot(mode="ai", boxes=boxes,
                                                                          timeout=self.cfg.timeout_ms)))
        except PlaywrightTimeout:
            raise DriverError(
                f"the page's accessibility snapshot did not finish within {self.cfg.timeout_ms} ms (a very large "
                f"page?)", hint="raise the web driver's timeout_ms: -o timeout_ms=30000, or "
                                "drivers.playwright-native.timeout_ms in trails/config/trailblaze.yaml") from None

    def describe_screen(self) -> str | None:
        page = self.page
        return valid_text(f"{page.url} — {page.title()}")

    def open_url(self, url: str) -> None:
        from playwright.sync_api import Error as PlaywrightError

        try:
            target = self.resolve_url(url)
        except ToolFailure as exc:
            raise BadInputError(str(exc.message)) from None
        try:
            self.page.goto(target)
        except PlaywrightError as exc:
            raise DriverError(f"could not open {target}: {exc.message.splitlines()[0]}") from None

    def wait_for_text(self, text: str, timeout_s: float) -> bool:
        from playwright.sync_api import Error as PlaywrightError

        try:
            self.page.get_by_text(text).first.wait_for(state="visible", timeout=timeout_s * 1000)
        except PlaywrightError:
            return False
        return True

    def pop_requested_detail(self) -> frozenset[str]:
        detail, self.requested_detail = self.requested_detail, frozenset()
        return detail

    def mask_secret(self, locator: Locator) -> None:
        """Keep ``locator``'s field out of every later screenshot: logs redact a secret's text, but a
        text field (unlike a password field) would still show it in the picture."""
        self.secret_fields.append(locator)

    def _masks(self, page: Page) -> list[Locator]:
        return [loc for loc in self.secret_fields if loc.page == page]

    def _shoot(self, page: Page, **options: Any) -> bytes:
        return page.screenshot(timeout=self.cfg.timeout_ms, mask=self._masks(page), **options)

    def screenshot(self) -> bytes | None:
        try:
            return self._shoot(self.page, type="png")
        except Exception:  # noqa: BLE001 - a crashed page has no picture
            return None

    def save_screenshot(self, name: str, *, failed: bool = False, step_index: int | None = None,
                        label: str | None = None) -> str | None:
        """Store a screenshot next to the logs and log where it is; returns the file name."""
        if self.session is None:
            return None
        try:
            page = self.page
            if failed:
                data = self._shoot(page, type="png")
                name += ".png"
            else:
                data = self._shoot(page, type="jpeg", quality=70)
                name += ".jpg"
            url = page.url
        except Exception as exc:  # noqa: BLE001
            self._log("WebArtifactLog", {"error": f"screenshot {name} failed: {exc}"})
            return None
        self.session.log.write_file(name, data)
        self._log("TrailblazeSnapshotLog", {"screenName": label or name, "screenshot": name, "url": url,
                                            "stepIndex": step_index, "failed": failed})
        return name

    # -- steps and traces --------------------------------------------------------------------------
    def step_started(self, session: Session, step: StepInfo) -> None:
        """Open the step's trace group (the trace viewer shows each step as a group)."""
        self._end_group()
        if not self.tracing or self.context is None:
            return
        text = " ".join((step.text or "").split())[:80]
        try:
            self.context.tracing.group(f"{step.kind} {step.number}" + (f": {text}" if text else ""))
            self._group_open = True
        except Exception:  # noqa: BLE001 - groups are cosmetic
            pass

    def lost(self, error: BaseException | None = None) -> str | None:
        """The Playwright driver process died (its pipe closed), or the browser disconnected."""
        if self.playwright is None:
            return None
        dead = _driver_death(self.playwright)
        if dead is not None:
            return dead
        browser = self.browser
        if browser is not None and not browser.is_connected():
            return f"the browser ({self.browser_description}) disconnected: it crashed or was closed"
        return None

    def _end_group(self) -> None:
        if self._group_open and self.context is not None:
            try:
                self.context.tracing.group_end()
            except Exception:  # noqa: BLE001
                pass
        self._group_open = False

    def step_finished(self, session: Session, step: StepInfo, ok: bool) -> None:
        self._end_group()
        mode = self.cfg.screenshots
        if mode == "off" or (mode == "only-on-failure" and ok):
            return
        self._shots += 1
        name = f"step_{step.number:03d}" + ("" if ok else "_failed")
        self.save_screenshot(name, failed=not ok, step_index=step.index,
                             label=f"after step {step.number}" + ("" if ok else " (failed)"))

    def trail_finished(self, session: Session, ok: bool) -> None:
        self._end_group()
        self._write_evidence(session, ok)
        self._finish_video(session, ok)
        if not self.tracing or self.context is None:
            return
        if self.lost() is not None:
            self.tracing = False
            self._log("WebArtifactLog", {"error": "no Playwright trace: the browser connection is gone"})
            return
        self.tracing = False
        keep = self.cfg.trace == "on" or (self.cfg.trace == "retain-on-failure" and not ok)
        try:
            if not keep:
                self.context.tracing.stop()
                return
            path = session.log_dir / TRACE_FILE
            path.parent.mkdir(parents=True, exist_ok=True)
            self.context.tracing.stop(path=str(path))
        except Exception as exc:  # noqa: BLE001
            self._log("WebArtifactLog", {"error": f"the Playwright trace could not be saved: {exc}"})
            return
        secrets = session.memory.secret_values()
        if secrets:
            scrub_zip(path, secret_forms(secrets))
        self._log("WebTraceLog", {"trace": TRACE_FILE, "path": str(path),
                                  "view": f"playwright show-trace {path}"})


    def _finish_video(self, session: Session, ok: bool) -> None:
        video, self.video = self.video, None
        if video is None:
            return
        keep = self.cfg.video == "on" or (self.cfg.video == "retain-on-failure" and not ok)
        try:
            path = video.finish(session.log_dir / VIDEO_FILE if keep else None)
        except Exception as exc:  # noqa: BLE001 - ffmpeg failed: the run's verdict stands
            self._log("WebArtifactLog", {"error": f"the video could not be encoded: {exc}"})
            return
        if path is not None:
            self._log("WebEvidenceLog", {"evidence": {"video": VIDEO_FILE}})

    def _write_evidence(self, session: Session, ok: bool) -> None:
        evidence = self.evidence
        if evidence is None or not session.log.enabled:
            return
        if self.cfg.evidence == "retain-on-failure" and ok:
            return
        try:
            files = evidence.write(session.log_dir, lambda text: str(session.memory.redact(text)))
        except OSError as exc:
            self._log("WebArtifactLog", {"error": f"the network and console logs could not be written: {exc}"})
            return
        self._log("WebEvidenceLog", {"evidence": files, **evidence.summary()})


MAX_CAPTURED_REQUESTS = 5000
MAX_CAPTURED_BODY = 64 * 1024


@dataclass
class _SharedBrowser:
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


def _start_browser(sync_playwright: Any, cfg: WebDriverConfig) -> tuple[Playwright, Browser, str]:
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


def _open_shared(sync_playwright: Any, cfg: WebDriverConfig) -> tuple[_SharedBrowser, Any]:
    shared = _SharedBrowser(*_start_browser(sync_playwright, cfg))
    return shared, shared.close


def browser_key(cfg: WebDriverConfig) -> str:
    """The settings that decide which browser is launched or reached: trails whose settings differ only in
    context options (viewport, locale, timeouts, trace) share a browser; others get their own."""
    import json

    fields = ("executable_path", "headless", "connect", "cdp_url", "connect_headers", "connect_launch_options",
              "launch_args", "slow_mo_ms")
    return json.dumps({f: getattr(cfg, f) for f in fields}, sort_keys=True, default=str)


@dataclass(frozen=True)
class SentRequest:
    """A request a page sent: what ``web_assertNetworkEvent`` looks for event names in."""

    method: str
    url: str
    body: str

    def mentions(self, needle_lower: str) -> bool:
        return needle_lower in self.url.lower() or needle_lower in self.body.lower()


def _client(playwright: Playwright | None) -> Any:
    """Playwright's connection to its driver process. Not public API, hence every step guarded: on a
    Playwright that changed its internals, death of the driver is then just not told apart."""
    manager = getattr(getattr(playwright, "stop", None), "__self__", None)
    return getattr(manager, "_client", None)


def _driver_death(playwright: Playwright) -> str | None:
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


def _collect_connection_error(playwright: Playwright | None) -> None:
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


def _quiet_abandoned_calls() -> None:
    logger = logging.getLogger("playwright")
    if not any(isinstance(f, _AbandonedCallFilter) for f in logger.filters):
        logger.addFilter(_AbandonedCallFilter())


def _safe_url(page: Page | None) -> str | None:
    try:
        return page.url if page is not None else None
    except Exception:  # noqa: BLE001
        return None


def _target_base_url(session: Session | None) -> str | None:
    """The session target's web base URL (``session.target_info``, from whichever plugin knows targets)."""
    info = session.target_info if session is not None else None
    return info.platform("web").base_url if info is not None else None


def scrub_zip(path: Path, secrets: list[str], replacement: str = "***") -> int:
    """Replace secret values in every entry of a trace archive (DOM snapshots hold input values, the
    action log holds ``fill`` arguments). Returns how many entries changed."""
    encoded = [(s.encode("utf-8"), replacement.encode()) for s in secrets if s]
    tmp = path.with_suffix(".scrub.zip")
    changed = 0
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            new = data
            for secret, rep in encoded:
                if secret in new:
                    new = new.replace(secret, rep)
            if new is not data and new != data:
                changed += 1
            dst.writestr(info, new)
    tmp.replace(path)
    return changed


def web_driver(driver: Any) -> PlaywrightDriver:
    if not isinstance(driver, PlaywrightDriver):
        raise ToolFailure("this tool needs the web driver (playwright-native): run the trail with "
                          "--driver playwright-native or devices: {web: PLAYWRIGHT_NATIVE}")
    return driver


def wait_seconds(page: Page, seconds: float) -> None:
    deadline = time.monotonic() + max(0.0, seconds)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        page.wait_for_timeout(min(left, 0.5) * 1000)
