"""The mobile examples stay valid: upstream-format trails decode, every recorded call validates against
the mobile tools' schemas, the driver settings validate, and the fake-shop trails replay on Appium's fake
driver (the "try it without a phone" path, run in a copy of the example)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trailblaze_driver_android.appium.plugin as mobile_plugin
import trailblaze_driver_android.plugin as android_plugin
import trailblaze_driver_ios.plugin as ios_plugin
from trailblaze.config import load_workspace
from trailblaze.config import validate_config
from trailblaze.driver import DriverRegistry
from trailblaze.plugins import PluginHost
from trailblaze.testing import installed_host, new_host, run_cli
from trailblaze.tools.registry import ToolRegistry
from trailblaze.trail.parser import load_trail

MOBILE = Path(__file__).resolve().parents[1]
WORKSPACES = [MOBILE / "sample-app", MOBILE / "fake-shop"]


@pytest.fixture
def host() -> Iterator[PluginHost]:
    h = new_host()
    h.register(android_plugin, "android")
    h.register(mobile_plugin, "mobile")
    h.register(ios_plugin, "ios")
    with installed_host(h):
        yield h


@pytest.mark.parametrize("root", WORKSPACES, ids=lambda p: p.name)
def test_trails_decode_and_every_recorded_call_validates(host: PluginHost, root: Path) -> None:
    config = load_workspace(root, host)
    registry = ToolRegistry()
    host.register_tools(registry, config)
    trails = sorted((root / "trails").rglob("*.trail.yaml"))
    assert trails
    calls = 0
    for path in trails:
        trail = load_trail(path)
        for step in [*([trail.trailhead] if getattr(trail, "trailhead", None) else []), *trail.steps]:
            for classifier, recorded in (step.recordings or {}).items():
                assert classifier.split("-")[0] in ("android", "ios"), classifier
                for call in recorded:
                    definition = registry.get(call.name)
                    assert definition is not None, f"{path.name}: unknown tool {call.name}"
                    assert definition.supports(driver="android-appium-uiautomator2" if classifier.startswith(
                        "android") else "ios-appium-xcuitest", platform=classifier.split("-")[0])
                    definition.prepare(dict(call.args))
                    calls += 1
    assert calls >= 10


@pytest.mark.parametrize("root", WORKSPACES, ids=lambda p: p.name)
def test_trailblaze_check_passes(host: PluginHost, root: Path) -> None:
    result = run_cli(["check", "trails"], host=host, cwd=root)
    assert result.exit_code == 0, result.output
    assert "0 error(s)" in result.output


@pytest.mark.parametrize("root", WORKSPACES, ids=lambda p: p.name)
def test_driver_settings_validate(host: PluginHost, root: Path) -> None:
    config = load_workspace(root, host)
    drivers = DriverRegistry()
    host.register_drivers(drivers)
    for key in ("android-appium-uiautomator2", "ios-appium-xcuitest"):
        cls = drivers.resolve(key)
        validate_config(cls.config_model, config.driver_settings(key), owner=f"driver '{key}'")


def test_driver_pins_resolve_to_the_appium_drivers(host: PluginHost) -> None:
    drivers = DriverRegistry()
    host.register_drivers(drivers)
    for pin in ("ANDROID_ONDEVICE_ACCESSIBILITY", "ANDROID_ONDEVICE_INSTRUMENTATION", "android-ondevice-accessibility"):
        assert drivers.resolve(pin).key == "android-appium-uiautomator2"
    for pin in ("IOS_HOST", "IOS_AXE", "ios-host"):
        assert drivers.resolve(pin).key == "ios-appium-xcuitest"


@pytest.mark.appium
@pytest.mark.parametrize("driver", ["android-appium-uiautomator2", "ios-appium-xcuitest"])
def test_fake_shop_runs_without_a_phone(appium_env, driver: str, tmp_path: Path) -> None:
    binary, env = appium_env
    copy = tmp_path / "fake-shop"
    shutil.copytree(MOBILE / "fake-shop", copy, ignore=shutil.ignore_patterns("logs"))
    trails = ["trails"] if driver.startswith("android") else ["trails/sign-in.trail.yaml"]
    full = {**os.environ, **env, "TRAILBLAZE_APPIUM_BIN": binary}
    result = subprocess.run([str(Path(sys.executable).parent / "trailblaze"), "run", *trails, "--driver", driver,
                             "--no-report"], cwd=copy, env=full, capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 failed" in result.stdout
