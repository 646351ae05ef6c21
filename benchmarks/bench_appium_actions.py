"""Action overhead on Appium's fake driver: 200 tap + find round trips through Trailblaze
(`tapOnElementBySelector` through the dispatcher: page source → parse → resolve → W3C tap) against the
same work with the bare Appium Python client (`find_element` + `click`), on one real Appium server.
A third series runs the same session with its event log switched off, to show what
the core's logging costs apart from the driver.

Both sessions stay open and the rounds alternate in batches of 10, so a busy moment on the shared
machine hits both sides alike; the ratio is of the summed times.

Usage: uv run python benchmarks/bench_appium_actions.py [--rounds 200]
Needs Appium + @appium/fake-driver (scripts/bootstrap.sh) or TRAILBLAZE_APPIUM_BIN/APPIUM_HOME.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
APP = REPO / "examples" / "mobile" / "fake-shop" / "app" / "shop-android.xml"
BATCH = 10


def appium_binary() -> str:
    local = REPO / ".tools" / "node" / "node_modules" / ".bin" / "appium"
    binary = os.environ.get("TRAILBLAZE_APPIUM_BIN") or (str(local) if local.exists() else shutil.which("appium"))
    if not binary:
        sys.exit("Appium is not installed: run scripts/bootstrap.sh or set TRAILBLAZE_APPIUM_BIN")
    os.environ.setdefault("APPIUM_HOME", str(REPO / ".tools" / "appium-home"))
    return binary


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()

    import trailblaze_driver_android.appium.plugin as mobile_plugin
    import trailblaze_driver_android.plugin as android_plugin
    from appium import webdriver
    from appium.options.common.base import AppiumOptions
    from appium.webdriver.common.appiumby import AppiumBy
    from trailblaze.testing import make_session, new_host
    from trailblaze.tools.base import ToolCall
    from trailblaze_driver_android.appium import server as managed
    from trailblaze_driver_android.driver import AndroidAppiumDriver, AndroidDriverConfig

    server = managed.ManagedServer(appium_binary(), ("--log-level", "error"))
    server.start(timeout=90)
    tmp = tempfile.TemporaryDirectory()
    bare_driver = None
    ours_driver = None
    try:
        options = AppiumOptions()
        options.load_capabilities({"platformName": "Fake", "appium:automationName": "Fake", "appium:app": str(APP)})
        bare_driver = webdriver.Remote(command_executor=server.url, options=options)

        host = new_host()
        host.register(android_plugin, "android")
        host.register(mobile_plugin, "mobile")
        ours_driver = AndroidAppiumDriver(AndroidDriverConfig(
            server_url=server.url, platform_name="Fake", automation_name="Fake", app=str(APP), screenshots="off"))
        session = make_session(host, root=Path(tmp.name), driver=ours_driver)
        call = ToolCall("tapOnElementBySelector", {"nodeSelector": {
            "androidAccessibility": {"resourceIdRegex": "com.example.fakeshop:id/sign_in"}}})
        ctx = session.context(step_index=0)

        def bare_round() -> None:
            bare_driver.find_element(AppiumBy.ID, "sign_in").click()

        def ours_round() -> None:
            result = session.dispatcher.call(call, ctx)
            assert result.success, result.message

        for _ in range(BATCH):  # warm both paths (connections, caches)
            bare_round()
            ours_round()
        base = ours = unlogged = 0.0
        for _ in range(max(1, args.rounds // BATCH)):
            t0 = time.perf_counter()
            for _ in range(BATCH):
                bare_round()
            t1 = time.perf_counter()
            for _ in range(BATCH):
                ours_round()
            t2 = time.perf_counter()
            session.log.enabled = False  # the same session without its event log
            for _ in range(BATCH):
                ours_round()
            session.log.enabled = True
            t3 = time.perf_counter()
            base += t1 - t0
            ours += t2 - t1
            unlogged += t3 - t2
        session.log.close()
    finally:
        if bare_driver is not None:
            bare_driver.quit()
        if ours_driver is not None:
            ours_driver.stop()
        server.stop()
        tmp.cleanup()
    per = 1000 / args.rounds
    print(f"bare Appium client: find_element + click   {base * per:7.2f} ms per round trip")
    print(f"Trailblaze tapOnElementBySelector           {ours * per:7.2f} ms per round trip")
    print(f"  ... without the session event log        {unlogged * per:7.2f} ms per round trip")
    print(f"ratio (Trailblaze / bare): {ours / base:.2f}   (aim ≤ 1.10); without the event log {unlogged / base:.2f}")


if __name__ == "__main__":
    main()
