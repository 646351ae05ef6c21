"""`trailblaze` + `trailblaze-driver-android` (and `-ios`) installed from wheels in a clean venv, with no
workspace around: the plugins load, the drivers and the mobile tools are listed, the core still imports
no Appium, and a fake-driver trail replays and `trailblaze snapshot -d ios` prints the fake screen when
Appium is installed (scripts/bootstrap.sh)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.wheels

MOBILE_TOOLS = {"tap", "longPress", "tapOnPoint", "inputText", "inputTextRandom", "clearText", "eraseText",
                "hideKeyboard", "pressKey", "pressBack", "swipe", "scrollUntilTextIsVisible", "launchApp", "openUrl",
                "waitForChange", "takeSnapshot", "assertVisible", "assertNotVisibleWithText", "mobile_setClipboard",
                "mobile_pasteClipboard", "mobile_listInstalledApps"}
RECORDING_ONLY = {"tapOnElementBySelector", "assertVisibleBySelector", "assertNotVisibleBySelector",
                  "mobile_maestro", "android_adbShell", "tapOnElementWithText", "assertVisibleWithText"}


def test_android_driver_from_wheels(wheelhouse, clean_venv, tmp_path: Path) -> None:
    clean_venv.install(wheelhouse("trailblaze-core"), wheelhouse("trailblaze-driver-android"))
    work = tmp_path / "elsewhere"
    work.mkdir()

    plugins = clean_venv.run("trailblaze", "plugins", cwd=work)
    assert plugins.returncode == 0, plugins.stderr
    assert "android (trailblaze-driver-android 0.1.0): ok" in plugins.stdout
    assert "mobile (trailblaze-driver-android 0.1.0): ok" in plugins.stdout

    tools = clean_venv.run("trailblaze", "tools", "--driver", "android-appium-uiautomator2", cwd=work)
    assert tools.returncode == 0, tools.stderr
    listed = {line.split()[0] for line in tools.stdout.splitlines() if line and not line.startswith(" ")}
    assert MOBILE_TOOLS <= listed, MOBILE_TOOLS - listed
    assert "plugin 'mobile' (trailblaze-driver-android 0.1.0)" in tools.stdout

    hidden = clean_venv.run("trailblaze", "tools", "--driver", "ANDROID_ONDEVICE_ACCESSIBILITY", "--json", cwd=work)
    assert hidden.returncode == 0, hidden.stderr
    by_name = {t["name"]: t for t in json.loads(hidden.stdout)}
    assert RECORDING_ONLY <= set(by_name)
    assert by_name["tapOnElementBySelector"]["surfaceToLlm"] is False
    assert "nodeSelector" not in by_name["tapOnElementBySelector"]["openai"]["function"]["parameters"]["properties"]
    assert by_name["tap"]["delegating"] is True and by_name["tap"]["isRecordable"] is False

    probe = clean_venv.run("python", "-c", "import sys, trailblaze, trailblaze.cli, trailblaze_driver_android.plugin, "
                           "trailblaze_driver_android.appium.plugin; "
                           "print(sorted(m for m in ('appium', 'selenium') if m in sys.modules))", cwd=work)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "[]"


def test_ios_driver_from_wheels_runs_a_fake_trail(wheelhouse, clean_venv, tmp_path: Path) -> None:
    clean_venv.install(wheelhouse("trailblaze-core"), wheelhouse("trailblaze-driver-android"),
                       wheelhouse("trailblaze-driver-ios"))
    work = tmp_path / "fake-shop"
    shutil.copytree(REPO / "examples/mobile/fake-shop", work, ignore=shutil.ignore_patterns("logs", "tests"))
    tools = clean_venv.run("trailblaze", "tools", "--driver", "IOS_HOST", cwd=work)
    assert tools.returncode == 0, tools.stderr
    assert "tap " in tools.stdout and "android_adbShell" not in tools.stdout

    binary = os.environ.get("TRAILBLAZE_APPIUM_BIN") or str(REPO / ".tools/node/node_modules/.bin/appium")
    if not Path(binary).exists():
        pytest.fail("Appium is not installed: run scripts/bootstrap.sh")
    env = {"TRAILBLAZE_APPIUM_BIN": binary,
           "APPIUM_HOME": os.environ.get("APPIUM_HOME") or str(REPO / ".tools/appium-home")}
    run = clean_venv.run("trailblaze", "run", "trails/sign-in.trail.yaml", "--driver", "ios-appium-xcuitest",
                         "--no-report", cwd=work, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Results: 1 passed, 0 failed, 0 skipped" in run.stdout
    snap = clean_venv.run("trailblaze", "snapshot", "-d", "ios", "--bounds", cwd=work, env=env)
    assert snap.returncode == 0, snap.stdout + snap.stderr
    assert snap.stdout.startswith("# ios-appium-xcuitest · ")
    assert 'Button "Sign in" [id=sign_in]' in snap.stdout and "{x:" in snap.stdout
