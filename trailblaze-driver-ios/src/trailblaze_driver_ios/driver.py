"""The iOS driver: Appium XCUITest (WebDriverAgent), host-side.

Upstream's ``IOS_HOST`` (Maestro) and ``IOS_AXE`` (simulator accessibility) pins are accepted as
aliases: iOS recordings use the ``iosMaestro``/``iosAxe`` selector shapes, and both resolve on the
XCUITest page source.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field
from trailblaze_driver_android.appium.config import AppiumDriverConfig
from trailblaze_driver_android.appium.driver import AppiumDriver

IPAD_MIN_POINTS = 600


class IosDriverConfig(AppiumDriverConfig):
    """Settings of ``ios-appium-xcuitest`` (plus everything in ``AppiumDriverConfig``)."""

    wda_local_port: int | None = Field(None, gt=0, lt=65536, description="appium:wdaLocalPort (else allocated).")


class IosAppiumDriver(AppiumDriver[IosDriverConfig]):
    """iPhones, iPads and simulators through Appium's XCUITest driver."""

    key = "ios-appium-xcuitest"
    aliases = ("IOS_HOST", "IOS_AXE")
    platform = "ios"
    description = "iOS through Appium XCUITest, host-side (also accepts the upstream pins IOS_HOST / IOS_AXE)."
    config_model = IosDriverConfig
    default_classifiers = ("ios", "iphone")
    default_automation = "XCUITest"
    default_platform_name = "iOS"
    default_device_logs = ("syslog",)
    port_capabilities = ("wdaLocalPort", "mjpegServerPort")

    def app_capabilities(self) -> dict[str, Any]:
        cfg = self.cfg
        caps: dict[str, Any] = {}
        if cfg.app_id and not cfg.is_fake():
            caps["appium:bundleId"] = cfg.app_id
        if cfg.wda_local_port:
            caps["appium:wdaLocalPort"] = cfg.wda_local_port
        return caps

    def form_factor(self, width: int, height: int, caps: dict[str, Any]) -> str:
        name = str(caps.get("deviceName") or caps.get("appium:deviceName") or self.cfg.device_name or "")
        return ios_form_factor(width, height, name)


def ios_form_factor(width: int, height: int, device_name: str = "") -> str:
    """``ipad`` for iPads: the name says so, or the short side is at least 600 points (XCUITest window
    sizes are in points; the largest iPhone is 440 wide, the smallest iPad 744)."""
    if "ipad" in device_name.lower():
        return "ipad"
    if "iphone" in device_name.lower():
        return "iphone"
    return "ipad" if min(width, height) >= IPAD_MIN_POINTS else "iphone"
