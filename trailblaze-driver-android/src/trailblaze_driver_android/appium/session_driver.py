"""``AppiumSessionDriver``: the Appium server and session under a mobile driver.

Which server (a configured ``server_url``, or one Trailblaze starts and shares), the capabilities that
ask it for a session (ports a parallel session claims, the app), creating and closing the session, and
telling when the server or session is gone. ``driver.AppiumDriver`` adds the screen on top. Appium and
Selenium are imported in ``_start``, never at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import typing_extensions

from trailblaze import DeviceInfo, Driver, DriverConfig, DriverError

from . import server as managed
from .actions import Actions, actions_for
from .claims import Claims
from .config import AppiumDriverConfig, is_loopback
from .hierarchy import parse_page_source

if TYPE_CHECKING:
    from appium.webdriver.webdriver import WebDriver
    from trailblaze import Session


def first_line(exc: BaseException) -> str:
    text = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
    return str(text).strip().splitlines()[0][:400]


AppiumConfigT = typing_extensions.TypeVar("AppiumConfigT", bound=AppiumDriverConfig, default=AppiumDriverConfig,
                                          covariant=True)


class AppiumSessionDriver(Driver[AppiumConfigT]):
    """Starts, watches and closes the Appium session of one driver instance (one instance serves one
    session)."""

    platform: ClassVar[str]
    default_automation: ClassVar[str]
    default_platform_name: ClassVar[str]
    default_device_logs: ClassVar[tuple[str, ...]] = ()
    """Appium log types saved for a failed attempt unless ``device_logs`` says otherwise."""
    port_capabilities: ClassVar[tuple[str, ...]] = ("mjpegServerPort",)
    config_model: ClassVar[type[DriverConfig]] = AppiumDriverConfig
    endpoint_setting: ClassVar[str | None] = "server_url"

    def __init__(self, config: AppiumConfigT) -> None:
        super().__init__(config)
        self.cfg: AppiumConfigT = config
        self.web: WebDriver | None = None
        self.server: managed.ManagedServer | None = None
        self.server_url: str | None = None
        self.claims = Claims()
        self.actions: Actions | None = None
        self.automation = self.cfg.automation_name or self.default_automation
        self.capabilities: dict[str, Any] = {}
        self.device: DeviceInfo | None = None
        self.session: Session | None = None
        self._log_sink: managed.LogSink | None = None
        self._passed: bool | None = None

    # -- subclass points ------------------------------------------------------------------------
    def app_capabilities(self) -> dict[str, Any]:
        """Capabilities for ``app_id`` (``appium:appPackage`` / ``appium:bundleId``)."""
        return {}

    def form_factor(self, width: int, height: int, caps: dict[str, Any]) -> str:
        raise NotImplementedError

    # -- lifecycle ---------------------------------------------------------------------------------
    def resolve_server(self) -> tuple[str, bool]:
        """The server URL and whether it runs on this machine (ports are then ours to allocate)."""
        if self.cfg.server_url:
            return self.cfg.server_url, is_loopback(self.cfg.server_url)
        binary = managed.find_appium(self.cfg.appium_bin)
        if binary is None:
            raise DriverError(
                f"no Appium server for driver '{self.key}': server_url is not set and `appium` is not on PATH",
                hint="set drivers.<driver>.server_url (or -o server_url=http://127.0.0.1:4723), or install "
                     f"Appium (`npm install -g appium`) or point {managed.ENV_BIN} at it")
        args = list(self.cfg.server_args)
        if self.platform == "android" and not any("adb_shell" in a for a in args):
            args += ["--allow-insecure", "uiautomator2:adb_shell"]
        self.server = managed.acquire(binary, args, self.cfg.server_start_timeout)
        if self.session is not None and self.session.log.enabled:
            self._log_sink = self.server.attach(self.session.log_dir / "appium.log", self.session.memory.redact)
        return self.server.url, True

    def build_capabilities(self, local: bool) -> dict[str, Any]:
        caps = self.cfg.base_capabilities(platform_name=self.default_platform_name,
                                          automation_name=self.default_automation)
        caps.update(self.app_capabilities())
        user = {k.split(":", 1)[-1] for k in self.cfg.capabilities}
        if local and self.cfg.ports:
            for cap in self.port_capabilities:
                if cap in user or f"appium:{cap}" in caps:
                    continue
                caps[f"appium:{cap}"] = self.claims.claim_port(cap)
        return self.cfg.merged_capabilities(caps)

    def start(self, session: Session) -> DeviceInfo:
        self.session = session
        self._resolve_app_path(session)
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _resolve_app_path(self, session: Session) -> None:
        """A relative ``app`` path is relative to the workspace root (Appium needs an absolute one)."""
        app = self.cfg.app
        if not app or "://" in app or app.startswith(("bs:", "sauce-storage:", "lt:")):
            return
        from pathlib import Path

        path = Path(app).expanduser()
        if not path.is_absolute():
            candidate = (session.workspace.root / path).resolve()
            if candidate.exists():
                self.cfg = self.cfg.model_copy(update={"app": str(candidate)})
                self.config = self.cfg

    def _start(self) -> DeviceInfo:
        from appium import webdriver
        from appium.options.common.base import AppiumOptions
        from appium.webdriver.client_config import AppiumClientConfig
        from selenium.common.exceptions import WebDriverException

        url, local = self.resolve_server()
        self.server_url = url
        udid = self.cfg.udid or _cap(self.cfg.capabilities, "udid")
        if udid:
            self.claims.claim_device(str(udid), self.cfg.claim_timeout)
        caps = self.build_capabilities(local)
        self.capabilities = caps
        options = AppiumOptions()
        options.load_capabilities(caps)
        client = AppiumClientConfig(remote_server_addr=url, direct_connection=not local, keep_alive=True,
                                    timeout=self.cfg.session_timeout)
        try:
            self.web = webdriver.Remote(command_executor=url, options=options, client_config=client)
        except WebDriverException as exc:
            raise DriverError(f"Appium at {url} could not create a {self.automation} session: {first_line(exc)}",
                              hint=self._session_hint()) from None
        except Exception as exc:  # noqa: BLE001 - connection refused, DNS, TLS...
            raise DriverError(f"cannot reach the Appium server at {url}: {first_line(exc)}",
                              hint="is Appium running there? Start it with `appium --address 127.0.0.1 --port "
                                   "4723`, or leave server_url unset to let Trailblaze start one") from None
        width, height = self._window_size()
        app_id = self.cfg.app_id or _cap(self.cfg.capabilities, "appPackage") or _cap(self.cfg.capabilities, "bundleId")
        if app_id is None and self.cfg.is_fake():
            app_id = self.cfg.app or _cap(self.cfg.capabilities, "app")
        self.actions = actions_for(self.automation)(self.web, width=width, height=height,
                                                    app_id=str(app_id) if app_id else None)
        returned = dict(getattr(self.web, "capabilities", {}) or {})
        classifiers = list(self.cfg.classifiers) if self.cfg.classifiers else \
            [self.platform, self.form_factor(width, height, returned)]
        device_id = str(udid or returned.get("udid") or returned.get("appium:udid") or self.web.session_id)
        # DeviceInfo allows extra fields: ``appium`` tells logs and plugins where the session runs.
        self.device = DeviceInfo.model_validate({
            "platform": self.platform, "driver": self.key, "classifiers": classifiers, "width": width,
            "height": height, "device_id": device_id,
            "name": str(returned.get("deviceName") or self.cfg.device_name or self.automation),
            "appium": {"serverUrl": url, "managedServer": self.server is not None,
                       "automationName": self.automation, "sessionId": self.web.session_id,
                       "ports": dict(self.claims.ports)},
        })
        return self.device

    def _session_hint(self) -> str:
        if self.platform == "android":
            return ("check that a device or emulator is connected (`adb devices`), that the UiAutomator2 driver is "
                    "installed (`appium driver list --installed`) and that the capabilities are right")
        return ("check that a simulator is booted or a device is paired (`xcrun simctl list devices booted`), that "
                "the XCUITest driver is installed (`appium driver list --installed`) and the capabilities")

    def _window_size(self) -> tuple[int, int]:
        assert self.web is not None
        try:
            size = self.web.get_window_size()
            return int(size["width"]), int(size["height"])
        except Exception:  # noqa: BLE001 - fall back to the page source's root bounds
            h = parse_page_source(self.web.page_source, self.platform)
            return h.width or 0, h.height or 0

    def stop(self) -> None:
        web, self.web = self.web, None
        if web is not None and self.lost() is None:
            try:
                web.quit()
            except Exception:  # noqa: BLE001, S110 - the session may already be gone
                pass
        self.claims.release()
        srv, self.server = self.server, None
        if srv is not None:
            sink, self._log_sink = self._log_sink, None
            if sink is not None:
                # The server's log of this session is worth keeping only when something went wrong.
                srv.detach(sink, keep=self._passed is not True)
            managed.release(srv, keep=True)

    def lost(self, error: BaseException | None = None) -> str | None:
        """A managed server that exited, or a server that no longer answers (connection refused or
        reset, a read timeout), or an Appium session that the server no longer knows."""
        if self.server is not None:
            refused = error is not None and _is_connection_error(error)
            death = self.server.death(wait=2.0 if refused else 0.0)
            if death is not None:
                return death
        if error is None or self.server_url is None:
            return None
        if _is_connection_error(error):
            if not managed.status_ok(self.server_url, timeout=2.0):
                return f"the Appium server at {self.server_url} stopped answering: {first_line(error)}"
            return None
        name = type(error).__name__
        if name in ("InvalidSessionIdException", "NoSuchSessionException"):
            return f"the Appium session on {self.server_url} is gone: {first_line(error)}"
        return None


def _is_connection_error(error: BaseException) -> bool:
    """Whether ``error`` (or what caused it) is a failure to talk to the server at all."""
    seen: BaseException | None = error
    for _ in range(5):
        if seen is None:
            return False
        if isinstance(seen, (ConnectionError, TimeoutError)):
            return True
        if type(seen).__module__.startswith("urllib3") and type(seen).__name__ in (
                "MaxRetryError", "NewConnectionError", "ProtocolError", "ReadTimeoutError", "ConnectTimeoutError"):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _cap(caps: dict[str, Any], name: str) -> Any:
    return caps.get(name, caps.get(f"appium:{name}"))
