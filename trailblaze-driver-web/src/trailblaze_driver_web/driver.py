"""``PlaywrightDriver``: one Chromium browser context per session, and the artifacts of a web run.

The driver owns the Playwright connection, the browser (launched here or reached remotely), one
context and its current page. Tools reach the page through it; it also keeps the last parsed
snapshot, so an action by ref can be recorded as a selector (see ``recorder``). The class is built in
three layers, one job each: ``browser_driver.BrowserDriver`` manages the browser, context and page and
listens to the page's events; ``artifacts.ArtifactDriver`` writes the screenshots, trace, video and
evidence of a run; ``PlaywrightDriver`` here adds what tools do on the page (URLs, snapshots, waits).

Playwright is imported in ``launch``, never at import time: ``trailblaze --version`` must not pay for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urljoin, urlparse

from trailblaze import BadInputError, DriverConfig, DriverError, ToolFailure, valid_text

from .artifacts import ArtifactDriver
from .config import WebDriverConfig
from .key import DRIVER_KEY
from .snapshot import PageSnapshot, parse

if TYPE_CHECKING:
    from playwright.sync_api import Page
    from trailblaze import NodeSelector, RecordOptions, RecordedStepDraft, Session


class PlaywrightDriver(ArtifactDriver):
    """Drives Chromium through Playwright. Headless by default; ``--headed`` shows the window."""

    key: ClassVar[str] = DRIVER_KEY
    aliases: ClassVar[tuple[str, ...]] = ("PLAYWRIGHT_NATIVE",)
    platform: ClassVar[str] = "web"
    description: ClassVar[str] = "Chromium through Playwright (local, or remote via connect / cdp_url)"
    endpoint_setting: ClassVar[str | None] = "connect"
    config_model: ClassVar[type[DriverConfig]] = WebDriverConfig
    default_classifiers: ClassVar[tuple[str, ...]] = ("web",)

    def __init__(self, config: WebDriverConfig | None = None) -> None:
        super().__init__(config)
        self.last_snapshot: PageSnapshot | None = None
        self.requested_detail: frozenset[str] = frozenset()
        """Extra snapshot detail asked for by ``web_requestDetails``, applied to the next snapshot only."""

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
        which is then said, with the setting to raise.

        ``page.aria_snapshot``, not ``page.locator("body").aria_snapshot``: with a selector Playwright fails
        at once when nothing matches, which is what a page caught mid-navigation (a click that signs in)
        has for a moment; the page's own snapshot waits for the new document's body."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            return valid_text(str(self.page.aria_snapshot(mode="ai", boxes=boxes, timeout=self.cfg.timeout_ms)))
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


def _target_base_url(session: Session | None) -> str | None:
    """The session target's web base URL (``session.target_info``, from whichever plugin knows targets)."""
    info = session.target_info if session is not None else None
    return info.platform("web").base_url if info is not None else None


def web_driver(driver: Any) -> PlaywrightDriver:
    if not isinstance(driver, PlaywrightDriver):
        raise ToolFailure("this tool needs the web driver (playwright-native): run the trail with "
                          "--driver playwright-native or devices: {web: PLAYWRIGHT_NATIVE}")
    return driver
