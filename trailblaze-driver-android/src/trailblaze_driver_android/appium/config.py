"""Driver settings (``drivers: {android-appium-uiautomator2: {...}}`` or ``-o key=value``) and the
W3C capabilities they become.

Settings are validated before anything starts, with errors that name the key. Anything Appium-specific
that Trailblaze has no setting for goes through ``capabilities`` untouched: vendor blocks such as
``bstack:options``/``sauce:options``, ``appium:app`` values like ``bs://…``, driver tuning. Plain keys
get the ``appium:`` prefix (as ``AppiumOptions`` does); keys with a ``:`` or W3C names stay as written.
"""

from __future__ import annotations

import os
from typing import Any, Literal
from urllib.parse import urlparse

from pydantic import Field, field_validator
from trailblaze import DriverConfig, HostKind, host_setting
from trailblaze import GRID_ENDPOINT_PREFIX as GRID_PREFIX

W3C_KEYS = frozenset({"browserName", "browserVersion", "platformName", "acceptInsecureCerts", "pageLoadStrategy",
                      "proxy", "setWindowRect", "timeouts", "strictFileInteractability", "unhandledPromptBehavior",
                      "webSocketUrl"})


def w3c_key(key: str) -> str:
    """``udid`` → ``appium:udid``; ``bstack:options``, ``platformName`` unchanged."""
    if ":" in key or key in W3C_KEYS:
        return key
    return f"appium:{key}"


class AppiumDriverConfig(DriverConfig):
    """Settings shared by the Android and iOS Appium drivers."""

    server_url: str | None = Field(
        None, json_schema_extra=host_setting(HostKind.ENDPOINT),
        description="Appium server, Selenium Grid or cloud hub URL. Unset: start a local Appium "
                          "(managed) when `appium` is on PATH or TRAILBLAZE_APPIUM_BIN names it.")
    capabilities: dict[str, Any] = Field(
        default_factory=dict, json_schema_extra=host_setting(HostKind.COMMAND_LINE),
        description="Extra capabilities, passed through untouched (vendor `xx:options`).")
    udid: str | None = Field(None, description="Device serial / simulator UDID to use (and lock for this run).")
    device_name: str | None = Field(None, description="appium:deviceName")
    platform_version: str | None = Field(None, description="appium:platformVersion")
    app: str | None = Field(None, json_schema_extra=host_setting(HostKind.PATH),
                            description="appium:app: path or URL of the app to install (or bs://… etc.).")
    app_id: str | None = Field(None, description="Package (Android) or bundle id (iOS) of the app under test.")
    platform_name: str | None = Field(
        None, description="Override platformName (e.g. `Fake` for Appium's fake driver).")
    automation_name: str | None = Field(
        None, description="Override appium:automationName (e.g. `Fake`). Default: UiAutomator2 / XCUITest.")
    appium_bin: str | None = Field(None, json_schema_extra=host_setting(HostKind.PROGRAM),
                                   description="The appium executable for a managed server.")
    server_args: list[str] = Field(default_factory=list,
                                   json_schema_extra=host_setting(HostKind.COMMAND_LINE),
                                   description="Extra arguments for a managed server.")
    server_start_timeout: float = Field(60.0, gt=0, description="Seconds to wait for a managed server.")
    new_command_timeout: int = Field(300, ge=0, description="appium:newCommandTimeout (seconds).")
    session_timeout: float = Field(300.0, gt=0, description="Seconds to wait for the session to be created.")
    claim_timeout: float = Field(
        120.0, ge=0, description="Seconds to wait for a device another Trailblaze session holds.")
    wait_timeout_ms: int = Field(
        10_000, ge=0, description="How long actions and assertions poll the screen for their element.")
    poll_interval_ms: int = Field(250, ge=10, description="Pause between screen polls.")
    settle: Literal["auto", "on", "off"] = Field(
        "auto", description="Wait for the screen to stop changing before acting after a previous action "
                            "(auto: on, except for Appium's fake driver whose screen never changes).")
    settle_timeout_ms: int = Field(3_000, ge=0, description="Upper bound of one settle wait.")
    device_logs: list[str] | None = Field(
        None, description="Appium log types (`driver.log_types`) saved as device-<type>.log, redacted, for a "
                          "failed attempt. Default: logcat (Android), syslog (iOS); [] for none.")
    screenshots: Literal["steps", "failures", "off"] = Field(
        "steps", description="Save a screenshot after every step, only after failed steps, or never.")
    classifiers: list[str] | None = Field(
        None, description="Force the device classifiers, e.g. [android, tablet].")
    density: int | None = Field(None, gt=0, description="Screen density (dpi) when the device does not report it.")
    ports: bool = Field(
        True, description="Allocate unique local ports (systemPort/wdaLocalPort/mjpegServerPort) for this "
                          "session when the server runs on this machine.")
    mjpeg_server_port: int | None = Field(None, gt=0, lt=65536, description="appium:mjpegServerPort")

    @field_validator("server_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        if value.startswith(GRID_PREFIX):
            # A pool entry of a Selenium Grid hub (grid+http://hub:4444): Appium clients speak WebDriver,
            # so the hub is the server; the prefix only told the pool it has slots.
            value = value[len(GRID_PREFIX):]
        parsed = urlparse(value)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"expected an http(s) URL such as http://127.0.0.1:4723, got '{value}'")
        return value.rstrip("/")

    # -- derived ----------------------------------------------------------------------------
    def is_fake(self) -> bool:
        return (self.automation_name or "").lower() == "fake" or (self.platform_name or "").lower() == "fake"

    def settle_enabled(self) -> bool:
        if self.settle == "auto":
            return not self.is_fake()
        return self.settle == "on"

    def base_capabilities(self, *, platform_name: str, automation_name: str) -> dict[str, Any]:
        """Capabilities from the typed settings; ``capabilities`` entries override them."""
        caps: dict[str, Any] = {
            "platformName": self.platform_name or platform_name,
            "appium:automationName": self.automation_name or automation_name,
            "appium:newCommandTimeout": self.new_command_timeout,
        }
        for key, value in (("udid", self.udid), ("deviceName", self.device_name),
                           ("platformVersion", self.platform_version), ("app", self.app),
                           ("mjpegServerPort", self.mjpeg_server_port)):
            if value is not None:
                caps[w3c_key(key)] = _expand(value)
        return caps

    def merged_capabilities(self, base: dict[str, Any]) -> dict[str, Any]:
        out = dict(base)
        for key, value in self.capabilities.items():
            out[w3c_key(key)] = _expand(value)
        return out


def _expand(value: Any) -> Any:
    """``${ENV}`` in capability strings (credentials for device farms stay out of files)."""
    if isinstance(value, str):
        return os.path.expandvars(value) if "$" in value else value
    if isinstance(value, dict):
        return {k: _expand(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v) for v in value]
    return value


def is_loopback(url: str) -> bool:
    host = (urlparse(url).hostname or "").lower()
    return host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")
