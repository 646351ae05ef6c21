"""The iOS driver's own parts: registration, pins, settings → capabilities, device classes. (Sessions on
Appium's fake driver are tested in trailblaze-driver-android's suite, which covers both drivers.)"""

from __future__ import annotations

import pytest
import trailblaze_driver_android.appium.plugin as mobile_plugin
import trailblaze_driver_ios.plugin as ios_plugin
from trailblaze.config import WorkspaceConfig
from trailblaze.config import validate_config
from trailblaze.driver import DriverRegistry
from trailblaze.errors import ConfigError
from trailblaze.testing import new_host
from trailblaze.tools.registry import ToolRegistry
from trailblaze_driver_ios.driver import IosAppiumDriver, IosDriverConfig, ios_form_factor


def test_registers_the_driver_and_upstream_pins(tmp_path) -> None:
    host = new_host()
    host.register(ios_plugin, "ios")
    host.register(mobile_plugin, "mobile")
    drivers = DriverRegistry()
    host.register_drivers(drivers)
    for name in ("ios-appium-xcuitest", "IOS_HOST", "IOS_AXE", "ios_host"):
        assert drivers.resolve(name) is IosAppiumDriver
    tools = ToolRegistry()
    host.register_tools(tools, WorkspaceConfig(root=tmp_path))
    names = {t.name for t in tools.for_device(driver="ios-appium-xcuitest", platform="ios")}
    assert {"tap", "inputText", "assertVisibleBySelector", "mobile_maestro", "launchApp"} <= names
    assert "android_adbShell" not in names


@pytest.mark.parametrize(("width", "height", "name", "expected"), [
    (390, 844, "", "iphone"), (440, 956, "", "iphone"), (820, 1180, "", "ipad"), (1180, 820, "", "ipad"),
    (744, 1133, "", "ipad"), (1024, 1366, "iPhone 16 Pro", "iphone"), (390, 844, "iPad mini", "ipad"),
])
def test_form_factor(width: int, height: int, name: str, expected: str) -> None:
    assert ios_form_factor(width, height, name) == expected


def test_settings_become_capabilities() -> None:
    cfg = validate_config(IosDriverConfig, {
        "server_url": "http://127.0.0.1:4723", "app_id": "com.example.app", "udid": "ABC-123",
        "platform_version": "18.2", "wda_local_port": 8105,
        "capabilities": {"usePrebuiltWDA": True, "sauce:options": {"name": "run"}}}, owner="driver 'ios'")
    driver = IosAppiumDriver(cfg)
    caps = driver.build_capabilities(local=False)
    assert caps["platformName"] == "iOS" and caps["appium:automationName"] == "XCUITest"
    assert caps["appium:bundleId"] == "com.example.app" and caps["appium:udid"] == "ABC-123"
    assert caps["appium:platformVersion"] == "18.2" and caps["appium:wdaLocalPort"] == 8105
    assert caps["appium:usePrebuiltWDA"] is True and caps["sauce:options"] == {"name": "run"}
    assert "appium:mjpegServerPort" not in caps  # remote server: the farm allocates ports


def test_bad_settings_name_the_key() -> None:
    with pytest.raises(ConfigError, match="wda_local_port"):
        validate_config(IosDriverConfig, {"wda_local_port": "nope"}, owner="driver 'ios-appium-xcuitest'")
    with pytest.raises(ConfigError, match="server_url"):
        validate_config(IosDriverConfig, {"server_url": "localhost:4723"}, owner="driver 'ios-appium-xcuitest'")
    with pytest.raises(ConfigError, match="udidd"):
        validate_config(IosDriverConfig, {"udidd": "x"}, owner="driver 'ios-appium-xcuitest'")
