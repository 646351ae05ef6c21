"""Android driver settings, capabilities, port allocation, device classes, and the core import rule."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from trailblaze.config import validate_config
from trailblaze.errors import ConfigError, DriverError
from trailblaze_driver_android.appium.claims import Claims
from trailblaze_driver_android.driver import AndroidAppiumDriver, AndroidDriverConfig, android_form_factor


@pytest.mark.parametrize(("width", "height", "density", "expected"), [
    (1080, 2400, 420, "phone"), (1440, 3120, 560, "phone"), (1600, 2560, 320, "tablet"),
    (2560, 1600, 320, "tablet"), (1080, 2400, None, "phone"), (1800, 2200, None, "tablet"), (0, 0, None, "phone"),
])
def test_form_factor(width: int, height: int, density: int | None, expected: str) -> None:
    assert android_form_factor(width, height, density) == expected


def test_settings_become_capabilities_with_allocated_ports(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_LOCK_DIR", str(tmp_path))
    monkeypatch.setenv("FARM_KEY", "s3cret")
    cfg = validate_config(AndroidDriverConfig, {
        "server_url": "http://127.0.0.1:4723", "app_id": "com.example.app", "app_activity": ".Main",
        "udid": "emulator-5554", "capabilities": {"autoGrantPermissions": True, "lt:options": {"key": "${FARM_KEY}"},
                                                   "appium:platformVersion": "15"}}, owner="driver 'android'")
    first, second = AndroidAppiumDriver(cfg), AndroidAppiumDriver(cfg)
    try:
        a, b = first.build_capabilities(local=True), second.build_capabilities(local=True)
        assert a["platformName"] == "Android" and a["appium:automationName"] == "UiAutomator2"
        assert a["appium:appPackage"] == "com.example.app" and a["appium:appActivity"] == ".Main"
        assert a["appium:autoGrantPermissions"] is True and a["lt:options"] == {"key": "s3cret"}
        assert a["appium:platformVersion"] == "15"
        for key in ("appium:systemPort", "appium:mjpegServerPort"):
            assert a[key] != b[key]
        assert 8200 <= a["appium:systemPort"] <= 8299
    finally:
        first.claims.release()
        second.claims.release()


def test_fake_driver_override() -> None:
    cfg = AndroidDriverConfig(platform_name="Fake", automation_name="Fake", app="/x/app.xml", app_id="ignored")
    caps = AndroidAppiumDriver(cfg).build_capabilities(local=False)
    assert (caps["platformName"], caps["appium:automationName"], caps["appium:app"]) == ("Fake", "Fake", "/x/app.xml")
    assert "appium:appPackage" not in caps
    assert cfg.is_fake() and not cfg.settle_enabled()


def test_bad_settings_name_the_key() -> None:
    with pytest.raises(ConfigError, match="'screenshots'"):
        validate_config(AndroidDriverConfig, {"screenshots": "sometimes"}, owner="driver 'android'")
    with pytest.raises(ConfigError, match="'sytem_port'"):
        validate_config(AndroidDriverConfig, {"sytem_port": 8200}, owner="driver 'android'")


def test_claims_are_exclusive_across_processes(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_LOCK_DIR", str(tmp_path))
    mine = Claims()
    mine.claim_device("emulator-5554", timeout=0)
    port = mine.claim_port("systemPort")
    script = ("from trailblaze_driver_android.appium.claims import Claims\n"
              "c = Claims()\n"
              "print(c.claim_port('systemPort'))\n"
              "try:\n    c.claim_device('emulator-5554', timeout=0.2)\nexcept Exception as e:\n    print('held:', e)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "TRAILBLAZE_LOCK_DIR": str(tmp_path)}, check=True).stdout.split("\n")
    assert int(out[0]) != port
    assert out[1].startswith("held: device 'emulator-5554' is in use") and f"pid {os.getpid()}" in out[1]
    mine.release()
    again = Claims()
    again.claim_device("emulator-5554", timeout=0)
    again.release()
    with pytest.raises(DriverError, match="no free local port"):
        Claims().claim_port("custom", start=5, end=4)


def test_importing_the_plugins_loads_no_appium() -> None:
    code = ("import sys, trailblaze, trailblaze.cli, trailblaze_driver_android.plugin, "
            "trailblaze_driver_android.appium.plugin, trailblaze_driver_android.appium.tools.interaction, "
            "trailblaze_driver_ios.plugin\n"
            "print(sorted(m for m in ('appium', 'selenium', 'regex') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
