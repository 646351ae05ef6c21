"""``AppiumConnection``: the Appium server and session under one mobile driver instance.

Which server (a configured ``server_url``, or one Trailblaze starts and shares), the capabilities that
ask it for a session (ports a parallel session claims, the app), creating and closing the session,
the device's own logs, and telling when the server or session is gone. ``driver.AppiumDriver`` holds
one and adds the screen. Appium and Selenium are imported in ``open``, never at import time.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from trailblaze import DriverError

from . import server as managed
from .claims import Claims
from .config import AppiumDriverConfig, is_loopback
from .hierarchy import parse_page_source

if TYPE_CHECKING:
    from appium.webdriver.webdriver import WebDriver
    from trailblaze import Session

__all__ = ["AppiumConnection", "first_line"]

ConfigT = TypeVar("ConfigT", bound=AppiumDriverConfig)


def first_line(exc: BaseException) -> str:
    text = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
    return str(text).strip().splitlines()[0][:400]


class AppiumConnection(Generic[ConfigT]):
    """Starts, watches and closes one Appium session (one connection serves one session)."""

    def __init__(self, config: ConfigT, *, driver_key: str, platform: str, platform_name: str,
                 automation: str, port_capabilities: tuple[str, ...] = ("mjpegServerPort",)) -> None:
        self.config = config
        self.driver_key = driver_key
        self.platform = platform
        self.platform_name = platform_name
        """``platformName`` asked for unless the config says otherwise (``Android``/``iOS``)."""
        self.automation = automation
        self.port_capabilities = port_capabilities
        """Local ports a parallel session needs its own of (claimed unless the user set them)."""
        self.web: WebDriver | None = None
        self.server: managed.ManagedServer | None = None
        self.server_url: str | None = None
        self.claims = Claims()
        self.capabilities: dict[str, Any] = {}
        self.udid: str | None = None
        self._log_sink: managed.LogSink | None = None

    def use_workspace(self, root: Path) -> ConfigT:
        """A relative ``app`` path is relative to the workspace root (Appium needs an absolute one).
        Returns the config the session is asked with."""
        app = self.config.app
        if not app or "://" in app or app.startswith(("bs:", "sauce-storage:", "lt:")):
            return self.config
        path = Path(app).expanduser()
        if not path.is_absolute():
            candidate = (root / path).resolve()
            if candidate.exists():
                self.config = self.config.model_copy(update={"app": str(candidate)})
        return self.config

    def resolve_server(self, log_to: tuple[Path, Callable[[Any], Any]] | None = None) -> tuple[str, bool]:
        """The server URL and whether it runs on this machine (ports are then ours to allocate). A
        managed server's log of this session goes to ``log_to`` (path, redaction)."""
        cfg = self.config
        if cfg.server_url:
            return cfg.server_url, is_loopback(cfg.server_url)
        binary = managed.find_appium(cfg.appium_bin)
        if binary is None:
            raise DriverError(
                f"no Appium server for driver '{self.driver_key}': server_url is not set and `appium` is not on PATH",
                hint="set drivers.<driver>.server_url (or -o server_url=http://127.0.0.1:4723), or install "
                     f"Appium (`npm install -g appium`) or point {managed.ENV_BIN} at it")
        args = list(cfg.server_args)
        if self.platform == "android" and not any("adb_shell" in a for a in args):
            args += ["--allow-insecure", "uiautomator2:adb_shell"]
        self.server = managed.acquire(binary, args, cfg.server_start_timeout)
        if log_to is not None:
            self._log_sink = self.server.attach(*log_to)
        return self.server.url, True

    def build_capabilities(self, local: bool, app_capabilities: dict[str, Any]) -> dict[str, Any]:
        caps = self.config.base_capabilities(platform_name=self.platform_name, automation_name=self.automation)
        caps.update(app_capabilities)
        user = {k.split(":", 1)[-1] for k in self.config.capabilities}
        if local and self.config.ports:
            for cap in self.port_capabilities:
                if cap in user or f"appium:{cap}" in caps:
                    continue
                caps[f"appium:{cap}"] = self.claims.claim_port(cap)
        return self.config.merged_capabilities(caps)

    def open(self, app_capabilities: dict[str, Any],
             log_to: tuple[Path, Callable[[Any], Any]] | None = None) -> WebDriver:
        """Claim the device, ask the server for a session and return it."""
        from appium import webdriver
        from appium.options.common.base import AppiumOptions
        from appium.webdriver.client_config import AppiumClientConfig
        from selenium.common.exceptions import WebDriverException

        url, local = self.resolve_server(log_to)
        self.server_url = url
        udid = self.config.udid or cap(self.config.capabilities, "udid")
        self.udid = str(udid) if udid else None
        if self.udid:
            self.claims.claim_device(self.udid, self.config.claim_timeout)
        caps = self.build_capabilities(local, app_capabilities)
        self.capabilities = caps
        options = AppiumOptions()
        options.load_capabilities(caps)
        client = AppiumClientConfig(remote_server_addr=url, direct_connection=not local, keep_alive=True,
                                    timeout=self.config.session_timeout)
        try:
            self.web = webdriver.Remote(command_executor=url, options=options, client_config=client)
        except WebDriverException as exc:
            raise DriverError(f"Appium at {url} could not create a {self.automation} session: {first_line(exc)}",
                              hint=self._session_hint()) from None
        except Exception as exc:  # noqa: BLE001 - connection refused, DNS, TLS...
            raise DriverError(f"cannot reach the Appium server at {url}: {first_line(exc)}",
                              hint="is Appium running there? Start it with `appium --address 127.0.0.1 --port "
                                   "4723`, or leave server_url unset to let Trailblaze start one") from None
        return self.web

    def describe(self) -> dict[str, Any]:
        """Where the session runs (``DeviceInfo.appium``, for logs and plugins)."""
        return {"serverUrl": self.server_url, "managedServer": self.server is not None,
                "automationName": self.automation, "sessionId": self.web.session_id if self.web else None,
                "ports": dict(self.claims.ports)}

    def _session_hint(self) -> str:
        if self.platform == "android":
            return ("check that a device or emulator is connected (`adb devices`), that the UiAutomator2 driver is "
                    "installed (`appium driver list --installed`) and that the capabilities are right")
        return ("check that a simulator is booted or a device is paired (`xcrun simctl list devices booted`), that "
                "the XCUITest driver is installed (`appium driver list --installed`) and the capabilities")

    def window_size(self) -> tuple[int, int]:
        assert self.web is not None
        try:
            size = self.web.get_window_size()
            return int(size["width"]), int(size["height"])
        except Exception:  # noqa: BLE001 - fall back to the page source's root bounds
            h = parse_page_source(self.web.page_source, self.platform)
            return h.width or 0, h.height or 0

    def save_device_logs(self, session: Session, log_types: list[str] | tuple[str, ...]) -> None:
        """The device's own logs of a failed attempt, redacted, one file per log type, referenced from an
        ``AppiumDeviceLog`` entry (the report and JUnit link them)."""
        web = self.web
        if web is None or not session.log.enabled or self.lost() is not None:
            return
        import json
        import re

        files: dict[str, str] = {}
        errors: dict[str, str] = {}
        for log_type in log_types:
            try:
                entries = web.get_log(log_type)
            except Exception as exc:  # noqa: BLE001 - a driver without this log type
                errors[log_type] = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
                continue
            name = f"device-{re.sub(r'[^A-Za-z0-9_.-]', '_', log_type)}.log"
            text = "".join(str(session.memory.redact(json.dumps(e, ensure_ascii=False, default=str))) + "\n"
                           for e in entries or [])
            session.log.write_file(name, text.encode("utf-8"))
            files[f"device_log_{log_type}"] = name
        if files or errors:
            session.log.write("AppiumDeviceLog", {"evidence": files, "errors": errors})

    def close(self, *, keep_log: bool = True) -> None:
        """Quit the session (unless it is gone), free the claims, and let go of a managed server, keeping
        its log of this session when ``keep_log`` (only worth it when something went wrong)."""
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
                srv.detach(sink, keep=keep_log)
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


def cap(caps: dict[str, Any], name: str) -> Any:
    """A capability by its bare or ``appium:`` name."""
    return caps.get(name, caps.get(f"appium:{name}"))
