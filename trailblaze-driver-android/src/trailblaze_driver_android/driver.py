"""The Android driver: Appium UiAutomator2, host-side.

Upstream's Android drivers run an agent *on the device* (accessibility service or instrumentation);
a Python host process cannot, so the upstream pins ``ANDROID_ONDEVICE_ACCESSIBILITY`` and
``ANDROID_ONDEVICE_INSTRUMENTATION`` are accepted as aliases of this host-side driver: the same trails
and recordings run, driven over Appium instead of from inside the APK.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .appium.config import AppiumDriverConfig
from .appium.driver import AppiumDriver

TABLET_MIN_DP = 600


class AndroidDriverConfig(AppiumDriverConfig):
    """Settings of ``android-appium-uiautomator2`` (plus everything in ``AppiumDriverConfig``)."""

    app_activity: str | None = Field(None, description="appium:appActivity to start with app_id.")
    system_port: int | None = Field(None, gt=0, lt=65536, description="appium:systemPort (else allocated).")


class AndroidAppiumDriver(AppiumDriver[AndroidDriverConfig]):
    """Android phones, tablets and emulators through Appium's UiAutomator2 driver."""

    key = "android-appium-uiautomator2"
    aliases = ("ANDROID_ONDEVICE_ACCESSIBILITY", "ANDROID_ONDEVICE_INSTRUMENTATION")
    platform = "android"
    description = ("Android through Appium UiAutomator2, host-side (also accepts the upstream on-device pins "
                   "ANDROID_ONDEVICE_ACCESSIBILITY / ANDROID_ONDEVICE_INSTRUMENTATION).")
    config_model = AndroidDriverConfig
    default_classifiers = ("android", "phone")
    default_automation = "UiAutomator2"
    default_platform_name = "Android"
    default_device_logs = ("logcat",)
    port_capabilities = ("systemPort", "mjpegServerPort")

    def app_capabilities(self) -> dict[str, Any]:
        cfg = self.cfg
        caps: dict[str, Any] = {}
        if cfg.app_id and not cfg.is_fake():
            caps["appium:appPackage"] = cfg.app_id
        if cfg.app_activity:
            caps["appium:appActivity"] = cfg.app_activity
        if cfg.system_port:
            caps["appium:systemPort"] = cfg.system_port
        return caps

    def form_factor(self, width: int, height: int, caps: dict[str, Any]) -> str:
        return android_form_factor(width, height, self.cfg.density or _density(caps))


def _density(caps: dict[str, Any]) -> int | None:
    for key in ("deviceScreenDensity", "appium:deviceScreenDensity"):
        value = caps.get(key)
        if value:
            try:
                return int(value)
            except (TypeError, ValueError):
                return None
    return None


def android_form_factor(width: int, height: int, density: int | None) -> str:
    """``tablet`` when the smallest width is at least 600 dp (Android's own tablet threshold).

    Without a density (the fake driver, some farms) the aspect ratio decides: phones are taller than
    16:10, tablets and unfolded foldables are squarer.
    """
    short, long = sorted((max(0, width), max(0, height)))
    if short == 0:
        return "phone"
    if density:
        return "tablet" if short * 160 / density >= TABLET_MIN_DP else "phone"
    return "tablet" if long / short < 1.6 else "phone"
