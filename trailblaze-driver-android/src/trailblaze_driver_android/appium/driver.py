"""``AppiumDriver``: the session, screen and artifacts both mobile drivers share.

A subclass says only what differs: its key and aliases, the platform, the default automation
(``UiAutomator2``/``XCUITest``), which local ports a parallel session needs, how the app id becomes a
capability, and how to tell a phone from a tablet. The driver holds an ``AppiumConnection``
(``connection.py``: the server, the capabilities, the session and its logs) and adds the screen
(captures, polling, finding) and the artifacts of a step. Appium and Selenium are imported in ``start``
(and in the action helpers), never at import time.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import typing_extensions

from trailblaze import DeviceInfo, Driver, DriverConfig, DriverError, NodeSelector, ToolFailure, valid_text

from .actions import Actions, actions_for
from .claims import Claims
from .config import AppiumDriverConfig
from .connection import AppiumConnection, cap, first_line
from .hierarchy import Hierarchy, Node, match_descriptor, parse_page_source
from .selectors import ResolveResult, resolve
from .snapshot import build_snapshot

if TYPE_CHECKING:
    from appium.webdriver.webdriver import WebDriver
    from trailblaze import Session, StepInfo

__all__ = ["AppiumConfigT", "AppiumDriver", "first_line"]

T = TypeVar("T")
AppiumConfigT = typing_extensions.TypeVar("AppiumConfigT", bound=AppiumDriverConfig, default=AppiumDriverConfig,
                                          covariant=True)


class AppiumDriver(Driver[AppiumConfigT]):
    """Base class of the Appium-backed drivers. One instance serves one session."""

    platform: ClassVar[str]
    default_automation: ClassVar[str]
    default_platform_name: ClassVar[str]
    default_device_logs: ClassVar[tuple[str, ...]] = ()
    """Appium log types saved for a failed attempt unless ``device_logs`` says otherwise."""
    port_capabilities: ClassVar[tuple[str, ...]] = ("mjpegServerPort",)
    config_model: ClassVar[type[DriverConfig]] = AppiumDriverConfig
    endpoint_setting: ClassVar[str | None] = "server_url"
    snapshot_details: ClassVar[tuple[str, ...]] = ("bounds", "offscreen", "all")

    def __init__(self, config: AppiumConfigT) -> None:
        super().__init__(config)
        self.cfg: AppiumConfigT = config
        self.automation = config.automation_name or self.default_automation
        self.connection: AppiumConnection[AppiumConfigT] = AppiumConnection(
            config, driver_key=self.key, platform=self.platform, platform_name=self.default_platform_name,
            automation=self.automation, port_capabilities=self.port_capabilities)
        self.actions: Actions | None = None
        self.device: DeviceInfo | None = None
        self.session: Session | None = None
        self.last: Hierarchy | None = None
        self._last_source_digest: str | None = None
        self._last_action_at = 0.0
        self._passed: bool | None = None

    # -- subclass points ------------------------------------------------------------------------
    def app_capabilities(self) -> dict[str, Any]:
        """Capabilities for ``app_id`` (``appium:appPackage`` / ``appium:bundleId``)."""
        return {}

    def form_factor(self, width: int, height: int, caps: dict[str, Any]) -> str:
        raise NotImplementedError

    # -- the session (the connection's) ---------------------------------------------------------
    @property
    def claims(self) -> Claims:
        return self.connection.claims

    @property
    def capabilities(self) -> dict[str, Any]:
        """The capabilities the session was asked with."""
        return self.connection.capabilities

    def build_capabilities(self, local: bool) -> dict[str, Any]:
        return self.connection.build_capabilities(local, self.app_capabilities())

    def start(self, session: Session) -> DeviceInfo:
        self.session = session
        self.cfg = self.config = self.connection.use_workspace(session.workspace.root)
        try:
            return self._start(session)
        except BaseException:
            self.stop()
            raise

    def _start(self, session: Session) -> DeviceInfo:
        log_to = (session.log_dir / "appium.log", session.memory.redact) if session.log.enabled else None
        web = self.connection.open(self.app_capabilities(), log_to)
        width, height = self.connection.window_size()
        caps = self.cfg.capabilities
        app_id = self.cfg.app_id or cap(caps, "appPackage") or cap(caps, "bundleId")
        if app_id is None and self.cfg.is_fake():
            app_id = self.cfg.app or cap(caps, "app")
        self.actions = actions_for(self.automation)(web, width=width, height=height,
                                                    app_id=str(app_id) if app_id else None)
        returned = dict(getattr(web, "capabilities", {}) or {})
        classifiers = list(self.cfg.classifiers) if self.cfg.classifiers else \
            [self.platform, self.form_factor(width, height, returned)]
        device_id = str(self.connection.udid or returned.get("udid") or returned.get("appium:udid") or web.session_id)
        # DeviceInfo allows extra fields: ``appium`` tells logs and plugins where the session runs.
        self.device = DeviceInfo.model_validate({
            "platform": self.platform, "driver": self.key, "classifiers": classifiers, "width": width,
            "height": height, "device_id": device_id,
            "name": str(returned.get("deviceName") or self.cfg.device_name or self.automation),
            "appium": self.connection.describe(),
        })
        return self.device

    def stop(self) -> None:
        self.connection.close(keep_log=self._passed is not True)

    def lost(self, error: BaseException | None = None) -> str | None:
        return self.connection.lost(error)

    # -- the screen ----------------------------------------------------------------------------------
    @property
    def driver(self) -> WebDriver:
        web = self.connection.web
        if web is None:
            raise DriverError(f"driver '{self.key}' is not started")
        return web

    def capture(self, *, refs: bool = False) -> Hierarchy:
        """Fetch and parse the page source. ``refs`` annotates refs as the snapshot shows them (only
        ``tap(ref)``-style tools need them; selector tools skip the work)."""
        source = self.driver.page_source
        h = parse_page_source(source, self.platform)
        if self.device is not None:
            h.width = h.width or self.device.width
            h.height = h.height or self.device.height
            if self.device.width and self.device.height:
                h.width, h.height = self.device.width, self.device.height
        if refs:
            build_snapshot(h)
        self.last = h
        self._last_source_digest = hashlib.blake2b(source.encode("utf-8", "replace"), digest_size=16).hexdigest()
        return h

    def settled(self, *, refs: bool = False) -> Hierarchy:
        """A capture taken once the screen stopped changing, when an action just happened."""
        h = self.capture(refs=refs)
        if not self.cfg.settle_enabled() or time.monotonic() - self._last_action_at > 2.0:
            return h
        deadline = time.monotonic() + self.cfg.settle_timeout_ms / 1000
        while time.monotonic() < deadline:
            previous = self._last_source_digest
            time.sleep(min(0.2, self.cfg.poll_interval_ms / 1000))
            h = self.capture(refs=refs)
            if self._last_source_digest == previous:
                break
        return h

    def poll(self, attempt: Callable[[Hierarchy], T | None], timeout_ms: int | None,
             *, refs: bool = False) -> tuple[Hierarchy, T | None]:
        """Capture the screen until ``attempt`` returns non-None or the timeout passes."""
        timeout = (self.cfg.wait_timeout_ms if timeout_ms is None else timeout_ms) / 1000
        deadline = time.monotonic() + timeout
        h = self.settled(refs=refs)
        while True:
            value = attempt(h)
            if value is not None or time.monotonic() >= deadline:
                return h, value
            time.sleep(self.cfg.poll_interval_ms / 1000)
            h = self.capture(refs=refs)

    def find(self, selector: NodeSelector, timeout_ms: int | None = None) -> tuple[Hierarchy, ResolveResult]:
        """Resolve ``selector``, polling until it matches or the timeout passes."""
        last: list[ResolveResult] = []

        def attempt(h: Hierarchy) -> ResolveResult | None:
            result = resolve(h, selector)
            last[:] = [result]
            return result if result.found else None

        h, found = self.poll(attempt, timeout_ms)
        return h, found if found is not None else last[0]

    def count_matches(self, selector: NodeSelector) -> int:
        """Elements the selector picks on the current page source, by the resolver the tools use."""
        return len(resolve(self.capture(), selector).nodes)

    def find_matches(self, selector: NodeSelector, timeout_ms: int | None = None) -> list[dict[str, Any]]:
        """Upstream's ``MatchDescriptor`` of each element the selector picks (one look without a timeout)."""
        if timeout_ms:
            _h, result = self.find(selector, timeout_ms)
        else:
            result = resolve(self.capture(), selector)
        return [match_descriptor(node) for node in result.nodes]

    def find_ref(self, ref: str, timeout_ms: int | None = None) -> tuple[Hierarchy, Node]:
        def attempt(hh: Hierarchy) -> Node | None:
            # Refs shown by a detailed snapshot (offscreen, every element) resolve too.
            found = hh.find_ref(ref)
            if found is None:
                build_snapshot(hh, ("offscreen", "all"))
                found = hh.find_ref(ref)
            return found

        h, node = self.poll(attempt, timeout_ms, refs=True)
        if node is None:
            raise ToolFailure(f"Element ref '{ref}' not found on current screen. The screen has changed since this "
                              "ref was last visible; take a fresh snapshot and pick a ref that is shown.")
        return h, node

    def note_action(self, target: Node | None = None) -> None:
        self._last_action_at = time.monotonic()
        if self.actions is not None and target is not None:
            self.actions.last_target = target

    def focused_node(self) -> Node | None:
        h = self.last or self.capture()
        for node in h.nodes:
            if node.focused and node.editable:
                return node
        return None

    def snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        h = self.capture()
        return build_snapshot(h, detail).text

    def native_snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        return valid_text(str(self.driver.page_source))

    def describe_screen(self) -> str | None:
        if self.actions is None:
            return None
        try:
            return self.actions.describe_screen()
        except Exception:  # noqa: BLE001 - a label is a nicety; not every automation can tell
            return None

    def open_url(self, url: str) -> None:
        from selenium.common.exceptions import WebDriverException

        assert self.actions is not None
        try:
            self.actions.open_url(url)
        except (ToolFailure, WebDriverException) as exc:
            raise DriverError(f"could not open {url} on Appium automation '{self.automation}': "
                              f"{first_line(exc)}") from None
        self.note_action()

    def screenshot(self) -> bytes | None:
        web = self.connection.web
        return web.get_screenshot_as_png() if web is not None else None

    # -- artifacts -----------------------------------------------------------------------------------
    def step_finished(self, session: Session, step: StepInfo, ok: bool) -> None:
        mode = self.cfg.screenshots
        if self.connection.web is None or mode == "off" or (mode == "failures" and ok):
            return
        png = self.screenshot()
        if not png:
            return
        name = f"step_{step.number:03d}_{'ok' if ok else 'failed'}.png"
        path = session.log.write_file(name, png)
        payload: dict[str, Any] = {"stepIndex": step.index, "screenshot": name, "successful": ok,
                                   "path": str(path)}
        if not ok:
            try:
                # A field may show typed secrets.
                source = valid_text(str(session.memory.redact(self.driver.page_source)))
                src = session.log.write_file(f"step_{step.number:03d}_failed.xml", source.encode("utf-8"))
                payload["pageSource"] = src.name
            except Exception:  # noqa: BLE001, S110 - best effort on a failing device
                pass
        session.log.write("TrailblazeScreenshotLog", payload)

    def trail_finished(self, session: Session, ok: bool) -> None:
        self._passed = ok
        if not ok:
            self._save_device_logs(session)

    def _save_device_logs(self, session: Session) -> None:
        """The device's own logs of a failed attempt (``device_logs``, else the driver's default types)."""
        types = self.cfg.device_logs if self.cfg.device_logs is not None else self.default_device_logs
        self.connection.save_device_logs(session, types)
