"""How each gesture is sent to the device, per Appium automation.

The W3C actions API (``POST /actions``) works on every Appium driver, so taps, long presses, swipes and
drags use it everywhere (upstream taps the center of the resolved node, and so do we). What W3C does not
cover goes through the drivers' ``mobile:`` extensions: UiAutomator2 for Android keys, apps, deep links,
shell; XCUITest for the home button, apps and deep links. Appium's fake driver (the "try it without a
phone" path) gets the plain W3C and element commands it implements, and a clear error for the rest.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from trailblaze import ToolFailure

from .hierarchy import Node

if TYPE_CHECKING:
    from appium.webdriver.webdriver import WebDriver

ANDROID_KEYCODES = {"BACK": 4, "ENTER": 66, "HOME": 3, "BACKSPACE": 67, "TAB": 61, "ESCAPE": 111}


def _move(x: int, y: int, duration_ms: int = 0) -> dict[str, Any]:
    return {"type": "pointerMove", "duration": duration_ms, "x": x, "y": y, "origin": "viewport"}


_DOWN = {"type": "pointerDown", "button": 0}
_UP = {"type": "pointerUp", "button": 0}


def _pause(ms: int) -> dict[str, Any]:
    return {"type": "pause", "duration": ms}


def perform_touch(driver: WebDriver, steps: list[dict[str, Any]]) -> None:
    """One W3C ``POST /actions`` with a single touch pointer.

    Written as the payload rather than through Selenium's ``ActionBuilder``, which also sends idle key
    and wheel sources and builds an object per step: a tap is the hottest device call there is."""
    driver.execute("actions", {"actions": [{"type": "pointer", "id": "finger",
                                            "parameters": {"pointerType": "touch"}, "actions": steps}]})


class Actions:
    """W3C gestures and element commands; subclasses add the platform's ``mobile:`` extensions."""

    name = "w3c"

    def __init__(self, driver: WebDriver, *, width: int, height: int, app_id: str | None = None) -> None:
        self.driver = driver
        self.width = width
        self.height = height
        self.app_id = app_id
        self.last_target: Node | None = None

    # -- gestures --------------------------------------------------------------------------
    def tap(self, x: int, y: int) -> None:
        perform_touch(self.driver, [_move(x, y), _DOWN, _pause(50), _UP])

    def long_press(self, x: int, y: int, duration_ms: int = 1000) -> None:
        perform_touch(self.driver, [_move(x, y), _DOWN, _pause(duration_ms), _UP])

    def drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 400) -> None:
        duration = max(1, duration_ms)
        perform_touch(self.driver, [_move(x1, y1, duration), _DOWN, _pause(50), _move(x2, y2, duration), _UP])

    # -- text ------------------------------------------------------------------------------
    def element_for(self, node: Node) -> Any:
        from appium.webdriver.common.appiumby import AppiumBy

        return self.driver.find_element(AppiumBy.XPATH, node.xpath)

    def focused_element(self, focused: Node | None) -> Any:
        """The element text goes to: the OS's active element, else the focused node, else the last
        node a tool tapped (the fake driver has no focus model of its own)."""
        try:
            return self.driver.switch_to.active_element
        except Exception:  # noqa: BLE001, S110 - not every driver implements GET /element/active
            pass
        for node in (focused, self.last_target):
            if node is not None:
                try:
                    return self.element_for(node)
                except Exception:  # noqa: BLE001, S112 - the node may be gone: try the next candidate
                    continue
        raise ToolFailure("no focused text field to type into: tap a field first")

    def type_text(self, text: str, focused: Node | None) -> None:
        self.focused_element(focused).send_keys(text)

    def clear_text(self, focused: Node | None) -> None:
        self.focused_element(focused).clear()

    def erase_text(self, count: int | None, focused: Node | None, current: str | None) -> None:
        element = self.focused_element(focused)
        if count is None or current is None or count >= len(current):
            element.clear()
            return
        element.clear()
        element.send_keys(current[: len(current) - count])

    def hide_keyboard(self) -> None:
        return None  # no keyboard on a W3C-only device

    def press_key(self, key: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        if key == "BACK":
            self.back()
            return
        mapping = {"ENTER": Keys.ENTER, "BACKSPACE": Keys.BACKSPACE, "TAB": Keys.TAB, "ESCAPE": Keys.ESCAPE}
        if key not in mapping:
            raise ToolFailure(f"pressKey {key} is not available on automation '{self.name}'")
        ActionChains(self.driver).send_keys(mapping[key]).perform()

    def back(self) -> None:
        self.driver.back()

    # -- apps --------------------------------------------------------------------------------
    def launch_app(self, app_id: str, mode: str) -> str:
        if self.app_id is not None and app_id == self.app_id:
            return f"{app_id} is the session's app and is already running (no app management on '{self.name}')"
        raise ToolFailure(f"launchApp needs UiAutomator2 or XCUITest; automation '{self.name}' cannot launch '{app_id}'")

    def open_url(self, url: str) -> None:
        self.driver.get(url)

    def describe_screen(self) -> str | None:
        """What is in front (the app and its screen), for ``trailblaze snapshot``'s header line."""
        return f"app {self.app_id}" if self.app_id else None

    def set_clipboard(self, text: str) -> None:
        self.driver.execute_script("mobile: setClipboard", {
            "content": base64.b64encode(text.encode()).decode(), "contentType": "plaintext"})

    def get_clipboard(self) -> str:
        raw = self.driver.execute_script("mobile: getClipboard", {"contentType": "plaintext"})
        return base64.b64decode(raw or b"").decode("utf-8", "replace")

    def list_apps(self) -> list[str]:
        raise ToolFailure(f"listing installed apps is not available on automation '{self.name}'")

    def shell(self, command: list[str]) -> str:
        raise ToolFailure(f"android_adbShell needs UiAutomator2 (automation is '{self.name}')")


class UiAutomator2Actions(Actions):
    name = "UiAutomator2"

    def hide_keyboard(self) -> None:
        try:
            self.driver.execute_script("mobile: hideKeyboard", {})
        except Exception:  # noqa: BLE001, S110 - no keyboard shown is not a failure
            pass

    def press_key(self, key: str) -> None:
        if key not in ANDROID_KEYCODES:
            raise ToolFailure(f"unknown key {key}")
        self.driver.execute_script("mobile: pressKey", {"keycode": ANDROID_KEYCODES[key]})

    def back(self) -> None:
        self.driver.back()

    def launch_app(self, app_id: str, mode: str) -> str:
        if mode == "REINSTALL":
            self.driver.execute_script("mobile: terminateApp", {"appId": app_id})
            self.driver.execute_script("mobile: clearApp", {"appId": app_id})
        elif mode == "FORCE_RESTART":
            self.driver.execute_script("mobile: terminateApp", {"appId": app_id})
        self.driver.execute_script("mobile: activateApp", {"appId": app_id})
        return f"Launched {app_id} ({mode})"

    def open_url(self, url: str) -> None:
        args: dict[str, Any] = {"url": url}
        if self.app_id:
            args["package"] = self.app_id
        self.driver.execute_script("mobile: deepLink", args)

    def describe_screen(self) -> str | None:
        return f"{self.driver.current_package}/{self.driver.current_activity}"

    def list_apps(self) -> list[str]:
        try:
            apps = self.driver.execute_script("mobile: listApps", {})
            if isinstance(apps, dict):
                return sorted(apps)
            if isinstance(apps, list):
                return sorted(str(a) for a in apps)
        except Exception:  # noqa: BLE001, S110 - older UiAutomator2 drivers: fall back to pm
            pass
        out = self.shell(["pm", "list", "packages"])
        return sorted(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("package:"))

    def shell(self, command: list[str]) -> str:
        if not command:
            raise ToolFailure("android_adbShell: empty command")
        try:
            result = self.driver.execute_script("mobile: shell", {"command": command[0], "args": command[1:],
                                                                   "includeStderr": False})
        except Exception as exc:  # noqa: BLE001
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ToolFailure(f"adb shell failed: {text} (the Appium server needs "
                              "--allow-insecure=uiautomator2:adb_shell; managed servers get it)") from None
        return str(result if result is not None else "")


class XCUITestActions(Actions):
    name = "XCUITest"

    def hide_keyboard(self) -> None:
        try:
            self.driver.execute_script("mobile: hideKeyboard", {})
        except Exception:  # noqa: BLE001, S110
            pass

    def press_key(self, key: str) -> None:
        if key == "HOME":
            self.driver.execute_script("mobile: pressButton", {"name": "home"})
            return
        if key == "BACK":
            self.back()
            return
        chars = {"ENTER": "\n", "BACKSPACE": "\b", "TAB": "\t"}
        if key not in chars:
            raise ToolFailure(f"pressKey {key} is not available on iOS")
        self.driver.switch_to.active_element.send_keys(chars[key])

    def back(self) -> None:
        # iOS has no back button: an edge swipe is what users (and upstream's Maestro driver) do.
        y = self.height // 2
        self.drag(2, y, int(self.width * 0.7), y, duration_ms=300)

    def launch_app(self, app_id: str, mode: str) -> str:
        if mode in ("REINSTALL", "FORCE_RESTART"):
            self.driver.execute_script("mobile: terminateApp", {"bundleId": app_id})
        if mode == "REINSTALL" and not app_id.startswith("com.apple."):
            self.driver.execute_script("mobile: clearApp", {"bundleId": app_id})
        self.driver.execute_script("mobile: launchApp", {"bundleId": app_id})
        return f"Launched {app_id} ({mode})"

    def open_url(self, url: str) -> None:
        args: dict[str, Any] = {"url": url}
        if self.app_id:
            args["bundleId"] = self.app_id
        self.driver.execute_script("mobile: deepLink", args)

    def describe_screen(self) -> str | None:
        info = self.driver.execute_script("mobile: activeAppInfo", {})
        return str(info.get("bundleId")) if isinstance(info, dict) and info.get("bundleId") else None

    def list_apps(self) -> list[str]:
        apps = self.driver.execute_script("mobile: listApps", {"applicationType": "User"})
        return sorted(apps) if isinstance(apps, dict) else sorted(str(a) for a in apps or [])


def actions_for(automation: str) -> type[Actions]:
    key = automation.lower()
    if key in ("uiautomator2", "espresso"):
        return UiAutomator2Actions
    if key == "xcuitest":
        return XCUITestActions
    return Actions
