"""``PlaywrightDriver``: one Chromium browser context per session, and the artifacts of a web run.

The driver is made of parts, each built with what it needs and testable alone: ``BrowserSession``
(``browser_session.py``) holds the Playwright connection, the browser (launched here or reached remotely)
and one context, whose pages and current page its ``Tabs`` (``tabs.py``) know; ``PageEvents``
(``page_events.py``) listens to what the pages report, and hands dialogs to ``Dialogs`` (``dialogs.py``)
and downloads to ``Downloads`` (``downloads.py``); ``Screenshots`` (``screenshots.py``), ``TraceRecorder`` (``trace.py``), ``ScreencastRecorder``
(``video.py``) and ``WebEvidence`` (``evidence.py``) make what a run leaves in its log directory. The
driver itself does what tools ask of the page (URLs, snapshots, waits) and tells the parts when a
session, step or trail starts and ends. Tools reach the page through it; it also keeps the last parsed
snapshot, so an action by ref can be recorded as a selector (see ``recorder``).

Playwright is imported in ``launch``, never at import time: ``trailblaze --version`` must not pay for it.
"""

from __future__ import annotations

from collections import deque
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urljoin, urlparse

from trailblaze import DeviceInfo, Driver, DriverConfig
from trailblaze import BadInputError, ConfigError, DriverError, ToolFailure
from trailblaze import current_scope, valid_text

from .aria import ParsedDocuments, aria_snapshot
from .screenshots import Screenshots
from .actor_browser import ActorBrowser, ActorSeat, KeptSeat
from .browser_session import BrowserSession
from .config import WebDriverConfig
from .connection import browser_key, quiet_abandoned_calls
from .dialogs import Dialogs
from .downloads import DOWNLOADS_DIR, Downloads
from .evidence import WebEvidence
from .frames import count_in_aria_tree, name_frame_elements
from .key import DRIVER_KEY
from .page_events import PageEvents, SentRequest
from .snapshot import PageSnapshot, parse
from .tabs import Tabs
from .trace import TraceRecorder
from .video import ScreencastRecorder, find_ffmpeg

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Locator, Page, Playwright
    from trailblaze import StepInfo
    from trailblaze import RecordedStepDraft, RecordOptions
    from trailblaze import NodeSelector
    from trailblaze import ActorShare, Session


class PlaywrightDriver(Driver[WebDriverConfig]):
    """Drives Chromium through Playwright. Headless by default; ``--headed`` shows the window."""

    key: ClassVar[str] = DRIVER_KEY
    aliases: ClassVar[tuple[str, ...]] = ("PLAYWRIGHT_NATIVE",)
    platform: ClassVar[str] = "web"
    description: ClassVar[str] = "Chromium through Playwright (local, or remote via connect / cdp_url / grid_url)"
    endpoint_setting: ClassVar[str | None] = "connect"
    config_model: ClassVar[type[DriverConfig]] = WebDriverConfig
    default_classifiers: ClassVar[tuple[str, ...]] = ("web",)

    WEB_SCHEMES: ClassVar[frozenset[str]] = frozenset({"http", "https", "file", "about", "data"})

    @classmethod
    def takes_url(cls, url: str) -> bool:
        """A web address, or a path on the base URL (``/cart``): what a browser opens and an app does not."""
        scheme = urlparse(url.strip()).scheme.lower()
        return scheme in cls.WEB_SCHEMES or (not scheme and bool(url.strip()))

    def __init__(self, config: WebDriverConfig | None = None) -> None:
        super().__init__(config or WebDriverConfig())
        self.cfg = self.config
        self.session: Session | None = None
        self.browser_session = BrowserSession(self.cfg, self._page_opened)
        self.evidence = WebEvidence() if self.cfg.evidence != "off" else None
        """Network and console capture written at the end of the trail (``evidence.py``)."""
        self.dialogs = Dialogs(self.cfg.dialogs, self._log)
        """How dialogs are answered, and the ones the pages showed (``dialogs.py``)."""
        self.downloads = Downloads(self._downloads_dir, self._log)
        """What the pages downloaded, kept next to the logs (``downloads.py``)."""
        self.events = PageEvents(dialogs=self.dialogs, log=self._log, evidence=self.evidence,
                                 downloads=self.downloads, responses=self.cfg.network == "all")
        self.screenshots = Screenshots(lambda: self.page, timeout_ms=self.cfg.timeout_ms)
        self.trace: TraceRecorder | None = None
        self.video: ScreencastRecorder | None = None
        self.last_snapshot: PageSnapshot | None = None
        self.requested_detail: frozenset[str] = frozenset()
        """Extra snapshot detail asked for by ``web_requestDetails``, applied to the next snapshot only."""
        self.documents = ParsedDocuments()  # pages seen parsed: a look at one waits for nothing (aria.py)

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

    def launch(self, *, title: str | None = None) -> DeviceInfo:
        """Start Playwright, the browser, one context and its page (``start`` without a session: the
        benchmarks and tests drive a bare browser this way)."""
        viewport = {"width": self.cfg.viewport.width, "height": self.cfg.viewport.height}
        options: dict[str, Any] = {"viewport": viewport}
        if self.cfg.locale:
            options["locale"] = self.cfg.locale
        if self.cfg.storage_state:
            options["storage_state"] = storage_state_file(self.cfg.storage_state, self.session)
        context = self.browser_session.open(options, self._actor_seat())
        self.events.listen_to_context(context)
        logs = self.session is not None and self.session.log.enabled
        if self.cfg.trace != "off" and logs:
            self.trace = TraceRecorder(context, keep=self.cfg.trace, screenshots=self.cfg.trace_screenshots,
                                       title=title)
        if self.cfg.video != "off" and logs:
            assert self.session is not None
            self.video = ScreencastRecorder(context, self.session.log_dir / ".video-frames",
                                            find_ffmpeg(self.cfg.ffmpeg_path))
        self.browser_session.open_page()
        version = self.browser_session.version
        return DeviceInfo(platform="web", driver=self.key, classifiers=list(self.cfg.classifiers),
                          width=viewport["width"], height=viewport["height"], device_id=f"chromium-{version}",
                          name=f"Chromium {version}", browser=self.browser_session.description,
                          headless=self.cfg.headless, remote=self.cfg.remote)

    def _actor_seat(self) -> ActorSeat | KeptSeat | None:
        """A place at the one Chromium the web actors of this trail share (a context each), when this
        session is one of two or more actors on this driver and the browser is launched here; else None
        and the browser is this session's own (or the reuse scope's), as for a single-device trail. On an
        actor thread the run keeps (it has a reuse scope), the browser is kept for the run's trails."""
        # getattr: a core older than ActorShare has no such field; its sessions are one device each.
        share: ActorShare | None = getattr(self.session, "actor_share", None)
        if share is None or self.cfg.connect or self.cfg.cdp_url or self.cfg.grid_url:
            return None
        if len(share.peers(self.key)) < 2:
            return None
        assert self.session is not None
        actor = self.session.actor or self.session.id
        if current_scope() is not None and hasattr(share, "kept"):  # (a core older than kept values has none)
            return KeptSeat(share, browser_key(self.cfg), actor)
        shared = share.get(("playwright-actor-browser", browser_key(self.cfg)), ActorBrowser)
        return shared.seat(actor)

    def _page_opened(self, page: Page) -> None:
        self.events.listen_to_page(page)
        if self.video is not None:
            self.video.follow(page)

    def stop(self) -> None:
        video, self.video = self.video, None
        if video is not None:  # never reached trail_finished (start failed): drop the frames
            video.finish(None)
        self.trace = None
        self.browser_session.close()

    def lost(self, error: BaseException | None = None) -> str | None:
        return self.browser_session.lost()

    def _downloads_dir(self) -> Path | None:
        """Where downloads are kept: ``downloads/`` in the session's log directory, when it keeps logs."""
        if self.session is None or not self.session.log.enabled:
            return None
        return Path(self.session.log_dir) / DOWNLOADS_DIR

    def _log(self, kind: str, payload: dict[str, Any]) -> None:
        if self.session is not None:
            self.session.log.write(kind, payload)

    # -- steps and trails --------------------------------------------------------------------------
    def step_started(self, session: Session, step: StepInfo) -> None:
        self.dialogs.step_started()
        self.downloads.step_started()
        if self.trace is not None:
            self.trace.step_started(step)

    def step_finished(self, session: Session, step: StepInfo, ok: bool) -> None:
        self.downloads.settle_all()  # logged in the step they started in, with where the file is kept
        if self.trace is not None:
            self.trace.end_group()
        self.screenshots.after_step(session.log, step, ok, self.cfg.screenshots)

    def trail_finished(self, session: Session, ok: bool) -> None:
        self.downloads.settle_all()
        if self.trace is not None:
            self.trace.end_group()
        if self.evidence is not None:
            self.evidence.trail_finished(session, ok, self.cfg.evidence)
        video, self.video = self.video, None
        if video is not None:
            video.trail_finished(session, ok, self.cfg.video)
        trace, self.trace = self.trace, None
        if trace is not None:
            trace.finish(session, ok, self.lost())

    # -- the browser, its page and what it reported (held by the parts) ---------------------------
    @property
    def page(self) -> Page:
        return self.browser_session.page

    @property
    def context(self) -> BrowserContext | None:
        return self.browser_session.context

    @property
    def tabs(self) -> Tabs:
        """The open pages and the current one (``tabs.py``)."""
        return self.browser_session.tabs

    def acting(self, timeout_ms: int | None = None) -> AbstractContextManager[None]:
        """Wrap an action a tool does on the page: a window it opens is current when it returns (the rule
        in ``tabs.py``); an action that opens nothing costs nothing more."""
        return self.tabs.opened_by_action(self.cfg.timeout_ms if timeout_ms is None else timeout_ms)

    @property
    def browser(self) -> Browser | None:
        return self.browser_session.browser

    @property
    def playwright(self) -> Playwright | None:
        return self.browser_session.playwright

    @property
    def browser_description(self) -> str:
        return self.browser_session.description

    @property
    def console(self) -> list[dict[str, Any]]:
        return self.events.console

    @property
    def failed_requests(self) -> list[dict[str, Any]]:
        return self.events.failed_requests

    @property
    def requests(self) -> deque[SentRequest]:
        """The requests heard, newest last (all with ``network: all``; else the failures: ``events.sent()``)."""
        return self.events.requests

    @property
    def secret_fields(self) -> list[Locator]:
        return self.screenshots.secret_fields

    def mask_secret(self, locator: Locator) -> None:
        """Keep ``locator``'s field out of every later screenshot (see ``Screenshots.mask_secret``)."""
        self.screenshots.mask_secret(locator)

    def screenshot(self) -> bytes | None:
        return self.screenshots.take()

    def save_screenshot(self, name: str, *, failed: bool = False, step_index: int | None = None,
                        label: str | None = None) -> str | None:
        """Store a screenshot next to the logs and log where it is; returns the file name."""
        if self.session is None:
            return None
        return self.screenshots.save(self.session.log, name, failed=failed, step_index=step_index, label=label)

    def record_actions(self, options: RecordOptions) -> list[RecordedStepDraft]:
        """``trailblaze record``: see ``recorder``."""
        from .recorder import record_actions

        return record_actions(self, options)

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
        """Elements the selector picks now in the page and its frames, as waypoints count them (see
        ``frames.count_in_aria_tree``)."""
        return count_in_aria_tree(self.page, selector)

    def find_matches(self, selector: NodeSelector, timeout_ms: int | None = None) -> list[dict[str, Any]]:
        """Upstream's ``MatchDescriptor`` of each visible element the selector picks (``findMatches``)."""
        from .selectors import match_descriptors

        try:
            return match_descriptors(self.page, selector, timeout_ms)
        except ValueError as exc:
            raise BadInputError(str(exc)) from None

    # -- snapshots and screenshots -----------------------------------------------------------------
    def take_snapshot(self) -> PageSnapshot:
        page = self.page
        raw = aria_snapshot(page, boxes=True, timeout_ms=self.cfg.timeout_ms)
        size = page.viewport_size
        snap = parse(raw, (size["width"], size["height"]) if size else None)
        if len(page.frames) > 1:
            name_frame_elements(page, snap)
        self.last_snapshot = snap
        return snap

    snapshot_details: ClassVar[tuple[str, ...]] = ("bounds", "offscreen", "urls", "all")

    def snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        """The page's tree once parsed (``aria.ParsedDocuments``), after the tab list if several are open."""
        self.documents.wait(self.page, self.cfg.timeout_ms)
        tree = self.take_snapshot().render(detail | self.pop_requested_detail())
        tabs = self.tabs.listing()
        return f"{tabs}\n\n{tree}" if tabs else tree

    def native_snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        self.documents.wait(self.page, self.cfg.timeout_ms)
        return aria_snapshot(self.page, boxes="bounds" in detail or "all" in detail, timeout_ms=self.cfg.timeout_ms)

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


def _target_base_url(session: Session | None) -> str | None:
    """The session target's web base URL (``session.target_info``, from whichever plugin knows targets)."""
    info = session.target_info if session is not None else None
    return info.platform("web").base_url if info is not None else None


def web_driver(driver: Any) -> PlaywrightDriver:
    if not isinstance(driver, PlaywrightDriver):
        raise ToolFailure("this tool needs the web driver (playwright-native): run the trail with "
                          "--driver playwright-native or devices: {web: PLAYWRIGHT_NATIVE}")
    return driver


def storage_state_file(raw: str, session: Session | None) -> str:
    """``storage_state`` as an existing file: relative to the workspace when a session runs, else to the
    working directory."""
    root = session.workspace.root if session is not None else Path.cwd()
    path = (Path(root) / Path(raw).expanduser()).resolve()
    if not path.is_file():
        raise ConfigError(f"drivers.playwright-native.storage_state: {path} does not exist",
                          hint="save one from a signed-in session: trailblaze tool web_getStorageState "
                               "--session NAME > state.json")
    return str(path)
