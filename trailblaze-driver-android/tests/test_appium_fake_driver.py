"""The drivers against a real Appium 3 server running @appium/fake-driver (no mocks)."""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from trailblaze.errors import DriverError, ToolArgumentError
from trailblaze.tools.base import ToolCall
from trailblaze.trail.model import TrailStep, number_steps
from trailblaze_driver_android.appium.config import AppiumDriverConfig
from trailblaze_driver_android.appium.connection import AppiumConnection
from trailblaze_driver_android.appium.driver import AppiumDriver
from trailblaze_driver_android.appium.server import free_port

pytestmark = pytest.mark.appium

PNG = b"\x89PNG\r\n\x1a\n"


def call(session: Any, name: str, **args: Any) -> Any:
    return session.dispatcher.call(ToolCall(name, args), session.context(step_index=0))


def driver_of(session: Any) -> AppiumDriver:
    assert isinstance(session.driver, AppiumDriver)
    return session.driver


def sessions_on(url: str) -> list[str]:
    with urllib.request.urlopen(f"{url}/appium/sessions", timeout=5) as resp:
        return [s["id"] for s in json.loads(resp.read())["value"]]


def last_tap(drv: AppiumDriver) -> tuple[int, int]:
    actions = drv.driver.get_log("actions")
    moves = [a for a in actions[-1][0]["actions"] if a["type"] == "pointerMove"]
    return moves[0]["x"], moves[0]["y"]


def test_session_start_and_end(fake_session, appium_server) -> None:
    session = fake_session()
    drv = driver_of(session)
    device = session.device
    assert (device.platform, device.driver, device.classifiers) == ("android", "android-appium-uiautomator2",
                                                                     ["android", "phone"])
    assert (device.width, device.height) == (1080, 2400)
    session_id = drv.driver.session_id
    assert session_id in sessions_on(appium_server.url)
    assert device.model_dump()["appium"]["serverUrl"] == appium_server.url
    drv.stop()
    assert session_id not in sessions_on(appium_server.url)
    drv.stop()  # idempotent


def test_hierarchy_and_snapshot(fake_session) -> None:
    drv = driver_of(fake_session())
    tree = drv.capture(refs=True)
    assert tree.platform == "android" and tree.width == 1080
    sign_in = next(n for n in tree.nodes if n.text == "Sign in")
    assert sign_in.bounds is not None and sign_in.bounds.center == (540, 895)
    text = drv.snapshot()
    assert f'[{sign_in.ref}] Button "Sign in" [id=com.example.fakeshop:id/sign_in]' in text
    assert "RecyclerView [3 items]:" in text
    assert drv.snapshot() == text  # refs are stable across captures
    assert "{x:60,y:820,w:960,h:150}" in drv.snapshot(detail=frozenset({"bounds"}))


def test_tap_by_ref_records_a_selector_and_taps_the_center(fake_session) -> None:
    session = fake_session()
    drv = driver_of(session)
    drv.capture(refs=True)
    ref = next(n.ref for n in drv.last.nodes if n.text == "Sign in")  # type: ignore[union-attr]
    result = call(session, "tap", ref=ref)
    assert result.success, result.message
    assert last_tap(drv) == (540, 895)
    recorded = [(e.authored.name, e.authored.args, e.depth, e.is_recordable) for e in session.executed]
    assert recorded[0] == ("tapOnElementBySelector", {"nodeSelector": {"androidAccessibility": {
        "resourceIdRegex": "com.example.fakeshop:id/sign_in"}}}, 1, True)
    assert recorded[1][0] == "tap" and recorded[1][3] is False
    assert not call(session, "tap", ref="zz999").success


def test_find_with_relative_selector_and_tap(fake_session) -> None:
    session = fake_session()
    drv = driver_of(session)
    result = call(session, "tapOnElementBySelector", nodeSelector={
        "androidAccessibility": {"textRegex": "Add"},
        "childOf": {"containsChild": {"androidAccessibility": {"textRegex": "Tea"}}}})
    assert result.success, result.message
    assert last_tap(drv) == (910, 1440)
    missing = call(session, "tapOnElementBySelector", nodeSelector={"androidAccessibility": {"textRegex": "Nope"}})
    assert not missing.success and "no element matches" in missing.message


def test_type_clear_and_erase_in_the_tapped_field(fake_session) -> None:
    session = fake_session()
    drv = driver_of(session)
    assert call(session, "tapOnElementBySelector", nodeSelector={"androidAccessibility": {"hintTextRegex": "Email"}}).success
    assert call(session, "inputText", text="ada@example.com").success
    email = drv.driver.find_element("id", "email")
    assert email.text == "ada@example.com"
    assert call(session, "eraseText", charactersToErase=4).success
    assert email.text == "ada@example"
    assert call(session, "clearText").success
    assert email.text == ""
    assert call(session, "tapOnElementBySelector", nodeSelector={"androidAccessibility": {"isPassword": True}}).success
    result = call(session, "inputTextRandom", variable="pw", prefix="pw-", digitCount=4)
    assert result.success
    value = session.memory.get("pw")
    assert value is not None and value.startswith("pw-") and len(value) == 7
    assert drv.driver.find_element("id", "password").text == value


def test_screenshot_and_step_artifacts(fake_session) -> None:
    session = fake_session(screenshots="steps")
    drv = driver_of(session)
    png = drv.screenshot()
    assert png is not None and png.startswith(PNG)
    third, fourth = number_steps([TrailStep(kind="step", text=f"step {n}") for n in range(1, 5)])[2:]
    drv.step_finished(session, third, True)
    drv.step_finished(session, fourth, False)
    shots = [e for e in session.log.entries if e.get("screenshot")]
    # Files by the step's number (as the progress line says), log entries by its index (upstream's stepIndex).
    assert [(e["stepIndex"], e["screenshot"]) for e in shots] == [(2, "step_003_ok.png"), (3, "step_004_failed.png")]
    assert Path(shots[1]["path"]).read_bytes().startswith(PNG)
    source = (session.log_dir / "step_004_failed.xml").read_text()
    assert "</AppiumAUT>" in source and 'text="Sign in"' in source
    quiet = fake_session(screenshots="failures")
    driver_of(quiet).step_finished(quiet, third, True)
    assert not [e for e in quiet.log.entries if e.get("screenshot")]


def test_assertions_pass_and_fail(fake_session) -> None:
    session = fake_session(wait_timeout_ms=300)
    ok = call(session, "assertVisibleBySelector", nodeSelector={"androidAccessibility": {"textRegex": "$3.00"}})
    assert ok.success, ok.message
    priced = call(session, "assertVisibleBySelector", nodeSelector={
        "androidAccessibility": {"resourceIdRegex": ".*:id/price"}, "index": 2}, expectedText="$5.25")
    assert priced.success, priced.message
    wrong_text = call(session, "assertVisibleBySelector", nodeSelector={
        "androidAccessibility": {"resourceIdRegex": ".*:id/price"}}, expectedText="$9.99")
    assert not wrong_text.success and "expected '$9.99'" in wrong_text.message
    prefix = call(session, "assertVisibleBySelector", nodeSelector={
        "androidAccessibility": {"resourceIdRegex": ".*:id/promo"}}, expectedText="$3.00 off", textMatchMode="prefix")
    assert prefix.success, prefix.message
    missing = call(session, "assertVisibleBySelector", nodeSelector={"androidAccessibility": {"textRegex": "Nope"}})
    assert not missing.success and "Element not visible" in missing.message
    assert call(session, "assertNotVisibleWithText", text="Something went wrong").success
    still = call(session, "assertNotVisibleWithText", text="sign IN", timeoutMs=300)
    assert not still.success and "still visible after 300 ms" in still.message and "Sign in" in still.message
    assert call(session, "assertNotVisibleBySelector", nodeSelector={"androidAccessibility": {"textRegex": "x"}}).success
    assert call(session, "assertVisibleWithText", text="Fake Shop").success  # deprecated by-text form
    drv = driver_of(session)
    drv.capture(refs=True)
    ref = next(n.ref for n in drv.last.nodes if n.text == "Fake Shop")  # type: ignore[union-attr]
    by_ref = call(session, "assertVisible", ref=ref, expectedText="Fake Shop")
    assert by_ref.success, by_ref.message
    assert session.executed[-2].authored.name == "assertVisibleBySelector"


def test_mobile_maestro_subset_and_unsupported_commands(fake_session) -> None:
    session = fake_session()
    drv = driver_of(session)
    result = call(session, "mobile_maestro", commands=[
        {"tapOn": {"id": ".*help"}}, {"assertVisible": "carrot cake"}, {"assertNotVisible": {"text": "Checkout"}},
        {"tapOn": {"text": "Add", "below": {"text": "Tea"}}}, "hideKeyboard",
        {"extendedWaitUntil": {"visible": {"text": "Fake Shop"}, "timeout": "1000"}},
        {"swipe": {"start": "50%,80%", "end": "50%,20%"}}, {"scroll": {}}])
    assert result.success, result.message
    with pytest.raises(ToolArgumentError, match="command 'runFlow' is not supported"):
        call(session, "mobile_maestro", commands=[{"tapOn": "Sign in"}, {"runFlow": "login.yaml"}])
    with pytest.raises(ToolArgumentError, match="unsupported selector key"):
        call(session, "mobile_maestro", commands=[{"assertVisible": {"txt": "x"}}])
    assert drv.driver.get_log("actions")


def test_launch_app_on_the_fake_driver_explains_itself(fake_session) -> None:
    session = fake_session()
    own = call(session, "launchApp", appId=driver_of(session).cfg.app)
    assert own.success and "already running" in own.message
    other = call(session, "launchApp", appId="com.example.other", launchMode="resume")
    assert not other.success and "UiAutomator2 or XCUITest" in other.message


def test_ios_session_on_the_fake_driver(fake_session) -> None:
    session = fake_session("ios")
    drv = driver_of(session)
    assert (session.device.platform, session.device.driver, session.device.classifiers) == (
        "ios", "ios-appium-xcuitest", ["ios", "iphone"])
    assert (session.device.width, session.device.height) == (390, 844)
    text = drv.snapshot()
    assert 'SecureTextField "Password" [id=password] [password]' in text
    drv.capture(refs=True)
    email_ref = next(n.ref for n in drv.last.nodes if n.hint == "Email")  # type: ignore[union-attr]
    assert call(session, "tap", ref=email_ref).success
    assert session.executed[0].authored.args == {"nodeSelector": {"iosMaestro": {"resourceIdRegex": "email"}}}
    assert call(session, "inputText", text="ios@example.com").success
    assert drv.driver.find_element("id", "email").text == "ios@example.com"
    assert call(session, "assertVisibleBySelector", nodeSelector={"iosMaestro": {"textRegex": "fake shop"}}).success


def test_two_sessions_in_parallel_get_distinct_ports(fake_session) -> None:
    started: list[Any] = []
    errors: list[BaseException] = []

    def start() -> None:
        try:
            started.append(fake_session())
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    caps = [driver_of(s).capabilities for s in started]
    for key in ("appium:systemPort", "appium:mjpegServerPort"):
        assert caps[0][key] != caps[1][key], key
    sent = [driver_of(s).driver.capabilities for s in started]
    assert {c.get("systemPort", c.get("appium:systemPort")) for c in sent} == {c["appium:systemPort"] for c in caps}
    ids = {driver_of(s).driver.session_id for s in started}
    assert len(ids) == 2


def test_a_device_is_never_claimed_twice(fake_session) -> None:
    first = fake_session(udid="fake-device-1")
    assert first.device.device_id == "fake-device-1"
    with pytest.raises(DriverError, match="device 'fake-device-1' is in use by another Trailblaze session"):
        fake_session(udid="fake-device-1", claim_timeout=0.3)
    driver_of(first).stop()
    again = fake_session(udid="fake-device-1", claim_timeout=5)
    assert again.device.device_id == "fake-device-1"


def test_unreachable_server_names_the_url(fake_session) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(DriverError, match=f"cannot reach the Appium server at {url}") as info:
        fake_session(server_url=url, session_timeout=5)
    assert info.value.exit_code == 2


def test_bad_capabilities_are_an_infrastructure_error(fake_session) -> None:
    with pytest.raises(DriverError, match="could not create a Fake session") as info:
        fake_session(app="/nonexistent/app.xml")
    assert "appium driver list --installed" in str(info.value)


def test_gestures_observation_and_device_tools(fake_session) -> None:
    session = fake_session()
    drv = driver_of(session)
    assert call(session, "tapOnPoint", x=100, y=200).success
    assert last_tap(drv) == (100, 200)
    assert call(session, "swipe", direction="up").success
    moves = [a for a in drv.driver.get_log("actions")[-1][0]["actions"] if a["type"] == "pointerMove"]
    assert moves[0]["y"] > moves[1]["y"]  # the finger moves up
    assert call(session, "swipeWithRelativeCoordinates", startRelative="50%, 80%", endRelative="50%, 20%").success
    assert call(session, "dragByPoints", startX=10, startY=10, endX=20, endY=20).success
    assert call(session, "pressKey", keyCode="enter").success
    assert call(session, "tapOn", selector={"androidAccessibility": {"textRegex": "Sign in"}},
                relativePoint="10%,50%").success
    assert last_tap(drv) == (60 + 96, 820 + 75)
    settled = call(session, "waitForChange", timeoutMs=2000, quietWindowMs=100)
    assert settled.success and settled.data["changed"] is False
    shot = call(session, "takeSnapshot", screenName="Sign in form", description="before typing")
    assert shot.success
    assert (session.log_dir / "snapshot_Sign_in_form.png").read_bytes().startswith(PNG)
    assert 'Button "Sign in"' in (session.log_dir / "snapshot_Sign_in_form.txt").read_text()
    visible = call(session, "scrollUntilTextIsVisible", text="Carrot cake")
    assert visible.success and "0 scroll" in visible.message
    never = call(session, "scrollUntilTextIsVisible", text="Pie", maxScrolls=3)
    assert not never.success and "did not become visible" in never.message
    found = call(session, "findMatches", selector={"androidAccessibility": {"textRegex": "Add"}})
    assert len(found.data) == 3 and {"indexPath", "bounds", "matchedText"} <= set(found.data[0])
    apps = call(session, "mobile_listInstalledApps")
    assert not apps.success and "not available on automation 'w3c'" in apps.message
    shell = call(session, "android_adbShell", command=["pm", "list", "packages"])
    assert not shell.success and "needs UiAutomator2" in shell.message


def test_unsupported_device_commands_fail_with_the_reason(fake_session) -> None:
    session = fake_session()
    back = call(session, "pressBack")
    assert not back.success
    assert back.message == ("mobile_maestro command 1 (back): back failed on Appium automation 'Fake': "
                            "Method has not yet been implemented")
    link = call(session, "openUrl", url="https://example.com")
    assert not link.success and "(openLink): openLink failed on Appium automation 'Fake'" in link.message
    clip = call(session, "mobile_setClipboard", text="x")
    assert not clip.success and clip.message.startswith("mobile_setClipboard failed on Appium automation 'Fake'")


def test_the_appium_connection_opens_describes_and_closes_a_session_on_its_own(appium_server) -> None:
    """The driver's session part, without a driver or a Trailblaze session: a relative app path resolved
    against the workspace, the session asked for, described, and quit on the server."""
    app_dir = Path(__file__).resolve().parents[2] / "examples" / "mobile" / "fake-shop"
    config = AppiumDriverConfig(server_url=appium_server.url, platform_name="Fake", automation_name="Fake",
                                app="app/shop-android.xml")
    connection = AppiumConnection(config, driver_key="android-appium-uiautomator2", platform="android",
                                  platform_name="Android", automation="Fake")
    assert connection.use_workspace(app_dir).app == str(app_dir / "app" / "shop-android.xml")
    try:
        web = connection.open({"appium:newCommandTimeout": 30})
        described = connection.describe()
        assert described["sessionId"] == web.session_id and described["managedServer"] is False
        assert connection.capabilities["appium:newCommandTimeout"] == 30
        assert web.session_id in sessions_on(appium_server.url)
        assert connection.window_size() == (1080, 2400) and connection.lost() is None
    finally:
        connection.close()
    assert connection.web is None and web.session_id not in sessions_on(appium_server.url)
