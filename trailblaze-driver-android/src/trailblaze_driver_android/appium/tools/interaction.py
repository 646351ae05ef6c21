"""Mobile interaction tools with upstream's names, parameters and flags (reference §4.1, §4.2)."""

from __future__ import annotations

import random
import re
import time
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator
from trailblaze.context import ToolContext
from trailblaze.tools.base import DelegatingTool, Tool, ToolCall, ToolResult

from ..generator import best_selector
from ..hierarchy import IOS, Node
from ..patterns import escape_for_selector
from .common import (
    MOBILE_DRIVERS,
    appium_driver,
    device_errors,
    maestro_match,
    selector,
    selector_field,
    validate_selector,
)

REF_TIMEOUT_MS = 1_500


class _Mobile(Tool):
    drivers: ClassVar[frozenset[str] | None] = MOBILE_DRIVERS


class _MobileDelegating(DelegatingTool):
    drivers: ClassVar[frozenset[str] | None] = MOBILE_DRIVERS


def tap_node(ctx: ToolContext, node: Node, *, long_press: bool, relative: tuple[float, float] | None = None,
              matches: int = 1) -> ToolResult:
    drv = appium_driver(ctx)
    if node.bounds is None:
        return ToolResult.fail(f"{node.describe()} has no bounds to tap")
    if relative is None:
        x, y = node.bounds.center
    else:
        b = node.bounds
        x, y = b.left + int(b.width * relative[0]), b.top + int(b.height * relative[1])
    assert drv.actions is not None
    with device_errors(ctx, "tap"):
        if long_press:
            drv.actions.long_press(x, y)
        else:
            drv.actions.tap(x, y)
    drv.note_action(node)
    extra = f" (first of {matches} matches)" if matches > 1 else ""
    verb = "Long-pressed" if long_press else "Tapped"
    return ToolResult.ok(f"{verb} {node.describe()}{extra}", data={"x": x, "y": y, "matches": matches})


def tap_selector(ctx: ToolContext, raw: dict[str, Any], *, long_press: bool = False,
                 relative: tuple[float, float] | None = None, timeout_ms: int | None = None) -> ToolResult:
    drv = appium_driver(ctx)
    sel = selector(raw)
    _h, result = drv.find(sel, timeout_ms)
    node = result.first
    if node is None:
        return ToolResult.fail(f"no element matches {sel.description()}")
    return tap_node(ctx, node, long_press=long_press, relative=relative, matches=len(result.nodes))


def _ref_expansion(ctx: ToolContext, ref: str, *, long_press: bool, reasoning: str | None) -> list[ToolCall]:
    drv = appium_driver(ctx)
    h, node = drv.find_ref(ref, REF_TIMEOUT_MS)
    center = node.center
    if center is None:
        from trailblaze.errors import ToolFailure

        raise ToolFailure(f"tap: element ref '{ref}' found but has no bounds")
    sel = None
    if not (node.platform == IOS and not node.identifiable):
        sel = best_selector(h, node)
    if sel is None:
        args: dict[str, Any] = {"x": center[0], "y": center[1]}
        if long_press:
            args["longPress"] = True
        if reasoning:
            args["reasoning"] = reasoning
        return [ToolCall("tapOnPoint", args)]
    args = {"nodeSelector": sel.to_yaml()}
    if long_press:
        args["longPress"] = True
    if reasoning:
        args["reason"] = reasoning
    return [ToolCall("tapOnElementBySelector", args)]


class TapTool(_MobileDelegating):
    """Tap an element by its ref ID from the snapshot. Use the short hash ref shown in square brackets
    (e.g. y778 from [y778] "Network & internet"). Refs are stable across captures of the same screen. To
    enter a value on a number pad, PIN pad or keypad, tap each digit button."""

    name = "tap"
    is_recordable = False
    toolsets = ("core_interaction",)
    ref: str = Field(..., description="The element ref from the snapshot (e.g. 'y778').")
    longPress: bool = Field(False, description="Set to true for a long press instead of a tap.")
    reasoning: str | None = Field(None, description="Why you are tapping this element.")

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        return _ref_expansion(ctx, self.ref, long_press=self.longPress, reasoning=self.reasoning)


class LongPressTool(_MobileDelegating):
    """Long-press an element by its ref ID from the snapshot."""

    name = "longPress"
    is_recordable = False
    toolsets = ("core_interaction",)
    ref: str = Field(..., description="The element ref from the snapshot (e.g. 'y778').")
    reasoning: str | None = Field(None, description="Why you are long-pressing this element.")

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        return _ref_expansion(ctx, self.ref, long_press=True, reasoning=self.reasoning)


class TapOnElementBySelectorTool(_Mobile):
    """Tap the element a recorded node selector resolves to (the canonical recorded tap)."""

    name = "tapOnElementBySelector"
    surface_to_llm = False
    nodeSelector: dict[str, Any] = selector_field("The recorded node selector.")
    longPress: bool = Field(False, description="Long-press instead of tapping.")
    reason: str | None = Field(None, description="Why this element was tapped (annotation).")

    @field_validator("nodeSelector")
    @classmethod
    def check_selector(cls, value: dict[str, Any]) -> dict[str, Any]:
        return validate_selector(value, "nodeSelector")

    def execute(self, ctx: ToolContext) -> ToolResult:
        return tap_selector(ctx, self.nodeSelector, long_press=self.longPress)


_REL_POINT = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*%\s*,\s*(-?\d+(?:\.\d+)?)\s*%\s*$")


def parse_relative(text: str, owner: str) -> tuple[float, float]:
    m = _REL_POINT.match(text)
    if m is None:
        raise ValueError(f"{owner}: expected \"x%, y%\" such as \"50%, 90%\", got '{text}'")
    return float(m.group(1)) / 100, float(m.group(2)) / 100


class TapOnTool(_Mobile):
    """Tap the element a selector resolves to, optionally at a relative point inside it ("x%,y%")."""

    name = "tapOn"
    surface_to_llm = False
    selector: dict[str, Any] = selector_field("Node selector of the element.")
    relativePoint: str | None = Field(None, description="Point inside the element, e.g. \"90%,50%\".")
    longPress: bool = False

    @field_validator("selector")
    @classmethod
    def check_selector(cls, value: dict[str, Any]) -> dict[str, Any]:
        return validate_selector(value, "selector")

    @field_validator("relativePoint")
    @classmethod
    def check_relative(cls, value: str | None) -> str | None:
        if value is not None:
            parse_relative(value, "relativePoint")
        return value

    def execute(self, ctx: ToolContext) -> ToolResult:
        rel = parse_relative(self.relativePoint, "relativePoint") if self.relativePoint else None
        return tap_selector(ctx, self.selector, long_press=self.longPress, relative=rel)


class TapOnPointTool(_Mobile):
    """Tap the screen at a coordinate (device pixels on Android, points on iOS)."""

    name = "tapOnPoint"
    toolsets = ("core_interaction",)
    x: int = Field(..., description="X coordinate.")
    y: int = Field(..., description="Y coordinate.")
    longPress: bool = Field(False, description="Long-press instead of tapping.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        if self.longPress:
            drv.actions.long_press(self.x, self.y)
        else:
            drv.actions.tap(self.x, self.y)
        target = None
        if drv.last is not None:
            hits = [n for n in drv.last.nodes if n.bounds is not None and n.bounds.contains_point(self.x, self.y)]
            target = hits[-1] if hits else None
        drv.note_action(target)
        return ToolResult.ok(f"{'Long-pressed' if self.longPress else 'Tapped'} ({self.x}, {self.y})")


class DragByPointsTool(_Mobile):
    """Drag from one coordinate to another."""

    name = "dragByPoints"
    surface_to_llm = False
    startX: int
    startY: int
    endX: int
    endY: int
    durationMs: int = Field(1000, ge=0)

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        drv.actions.drag(self.startX, self.startY, self.endX, self.endY, self.durationMs)
        drv.note_action()
        return ToolResult.ok(f"Dragged ({self.startX},{self.startY}) → ({self.endX},{self.endY})")


Direction = Literal["UP", "DOWN", "LEFT", "RIGHT"]


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


def swipe_points(width: int, height: int, direction: str, origin: tuple[int, int] | None = None) -> tuple[int, int, int, int]:
    """Finger start and end of a swipe in ``direction`` (the finger moves that way, as in Maestro)."""
    cx, cy = origin or (width // 2, height // 2)
    dx, dy = int(width * 0.3), int(height * 0.25)
    if direction == "UP":
        return cx, min(height - 1, cy + dy), cx, max(1, cy - dy)
    if direction == "DOWN":
        return cx, max(1, cy - dy), cx, min(height - 1, cy + dy)
    if direction == "LEFT":
        return min(width - 1, cx + dx), cy, max(1, cx - dx), cy
    return max(1, cx - dx), cy, min(width - 1, cx + dx), cy


class SwipeTool(_Mobile):
    """Swipe the screen (the finger moves in `direction`; swipe UP to scroll content down), optionally
    starting on the element showing `swipeOnElementText`."""

    name = "swipe"
    toolsets = ("core_interaction",)
    direction: Direction = Field("DOWN", description="UP, DOWN, LEFT or RIGHT.")
    swipeOnElementText: str | None = Field(None, description="Start the swipe on the element with this text.")

    @field_validator("direction", mode="before")
    @classmethod
    def upper_dir(cls, value: Any) -> Any:
        return _upper(value)

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None and drv.device is not None
        origin = None
        if self.swipeOnElementText:
            sel = selector(maestro_match(drv.platform, textRegex=escape_for_selector(self.swipeOnElementText)))
            _h, found = drv.find(sel)
            if found.first is None or found.first.center is None:
                return ToolResult.fail(f"no element with text '{self.swipeOnElementText}' to swipe on")
            origin = found.first.center
        x1, y1, x2, y2 = swipe_points(drv.device.width or 0, drv.device.height or 0, self.direction, origin)
        drv.actions.drag(x1, y1, x2, y2, 400)
        drv.note_action()
        return ToolResult.ok(f"Swiped {self.direction}")


class SwipeWithRelativeCoordinatesTool(_Mobile):
    """Swipe between two points given as percentages of the screen ("x%, y%")."""

    name = "swipeWithRelativeCoordinates"
    surface_to_llm = False
    startRelative: str
    endRelative: str
    swipeOnElementText: str | None = None
    durationMs: int | None = Field(None, ge=0)

    @field_validator("startRelative", "endRelative")
    @classmethod
    def check_relative(cls, value: str) -> str:
        parse_relative(value, "relative coordinate")
        return value

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None and drv.device is not None
        w, h = drv.device.width or 0, drv.device.height or 0
        (sx, sy), (ex, ey) = parse_relative(self.startRelative, "startRelative"), parse_relative(self.endRelative, "endRelative")
        drv.actions.drag(int(w * sx), int(h * sy), int(w * ex), int(h * ey), self.durationMs or 400)
        drv.note_action()
        return ToolResult.ok(f"Swiped {self.startRelative} → {self.endRelative}")


class ScrollUntilTextIsVisibleTool(_Mobile):
    """Scroll until the element with the given text (or textRegex, or id) is visible. Give exactly one
    target."""

    name = "scrollUntilTextIsVisible"
    toolsets = ("core_interaction",)
    text: str = Field("", description="Text of the element to reveal.")
    textRegex: str | None = Field(None, description="Regex of the text instead of `text`.")
    id: str | None = Field(None, description="Resource id (regex) of the element.")
    index: int = Field(0, ge=0, description="0-based index among matching elements.")
    direction: Direction = Field("DOWN", description="Direction to scroll the content.")
    visibilityPercentage: int = Field(100, ge=1, le=100, description="How much of the element must be on screen.")
    centerElement: bool = Field(False, description="Scroll a little further to center the element.")
    scrollStartPosition: Literal["CENTER", "TOP", "BOTTOM"] = Field("CENTER")
    maxScrolls: int = Field(20, ge=1, le=200, description="Give up after this many scrolls.")

    @field_validator("direction", "scrollStartPosition", mode="before")
    @classmethod
    def upper_dir(cls, value: Any) -> Any:
        return _upper(value)

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None and drv.device is not None
        pattern = self.textRegex or (escape_for_selector(self.text) if self.text else None)
        if pattern is None and not self.id:
            return ToolResult.fail("scrollUntilTextIsVisible needs text, textRegex or id")
        sel = selector({**maestro_match(drv.platform, textRegex=pattern, resourceIdRegex=self.id),
                        **({"index": self.index} if self.index else {})})
        w, h = drv.device.width or 0, drv.device.height or 0
        start_y = {"CENTER": h // 2, "TOP": int(h * 0.3), "BOTTOM": int(h * 0.7)}[self.scrollStartPosition]
        finger = {"DOWN": "UP", "UP": "DOWN", "LEFT": "RIGHT", "RIGHT": "LEFT"}[self.direction]
        digest = None
        for scrolls in range(self.maxScrolls + 1):
            tree = drv.settled()
            from ..selectors import resolve

            node = resolve(tree, sel).first
            if node is not None and node.bounds is not None and _visible_fraction(node, w, h) * 100 >= \
                    self.visibilityPercentage:
                if self.centerElement:
                    cy = node.bounds.center_y
                    if abs(cy - h // 2) > h // 10:
                        drv.actions.drag(w // 2, cy, w // 2, h // 2, 600)
                        drv.note_action()
                return ToolResult.ok(f"'{self.text or self.textRegex or self.id}' visible after {scrolls} scroll(s)")
            if digest is not None and digest == drv._last_source_digest:
                break  # the screen no longer moves: the end of the list
            digest = drv._last_source_digest
            x1, y1, x2, y2 = swipe_points(w, h, finger, (w // 2, start_y))
            drv.actions.drag(x1, y1, x2, y2, 500)
            drv.note_action()
        return ToolResult.fail(f"'{self.text or self.textRegex or self.id}' did not become visible after scrolling "
                               f"{self.direction}")


def _visible_fraction(node: Node, width: int, height: int) -> float:
    b = node.bounds
    if b is None or b.width <= 0 or b.height <= 0:
        return 0.0
    vis_w = max(0, min(b.right, width or b.right) - max(b.left, 0))
    vis_h = max(0, min(b.bottom, height or b.bottom) - max(b.top, 0))
    return (vis_w * vis_h) / (b.width * b.height)


class InputTextTool(_Mobile):
    """Type text into the focused field (tap the field first)."""

    name = "inputText"
    toolsets = ("core_interaction",)
    text: str = Field(..., description="The text to type.")
    hideKeyboardAfter: bool = Field(True, description="Hide the keyboard after typing.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        return type_text(ctx, self.text, self.hideKeyboardAfter)


def type_text(ctx: ToolContext, text: str, hide: bool) -> ToolResult:
    drv = appium_driver(ctx)
    assert drv.actions is not None
    with device_errors(ctx, "inputText"):
        drv.actions.type_text(text, drv.focused_node() if drv.last is not None else None)
        if hide:
            drv.actions.hide_keyboard()
    drv.note_action()
    return ToolResult.ok(f"Typed {len(text)} character(s)")


class InputTextRandomTool(_Mobile):
    """Type a unique value (prefix + random digits) into the focused field and remember it as `variable`."""

    name = "inputTextRandom"
    toolsets = ("core_interaction",)
    variable: str = Field(..., description="Memory key to store the typed value under.")
    prefix: str = Field("TBZ-", description="Text before the random digits.")
    digitCount: int = Field(6, ge=1, le=32, description="How many random digits.")
    hideKeyboardAfter: bool = Field(True, description="Hide the keyboard after typing.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        value = self.prefix + "".join(random.choice("0123456789") for _ in range(self.digitCount))
        result = type_text(ctx, value, self.hideKeyboardAfter)
        ctx.memory.remember(self.variable, value)
        return ToolResult.ok(f"Typed {value} and remembered it as {self.variable}", data={self.variable: value}) \
            if result.success else result


class ClearTextTool(_Mobile):
    """Clear the focused text field."""

    name = "clearText"
    toolsets = ("core_interaction",)

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        with device_errors(ctx, "clearText"):
            drv.actions.clear_text(drv.focused_node() if drv.last is not None else None)
        drv.note_action()
        return ToolResult.ok("Cleared the focused field")


class EraseTextTool(_MobileDelegating):
    """Erase characters from the end of the focused text field; omit charactersToErase to erase all of it.
    Use before inputText to replace existing text."""

    name = "eraseText"
    toolsets = ("core_interaction",)
    charactersToErase: int | None = Field(None, ge=0, description="How many characters to erase; omit for all.")

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        arg: dict[str, Any] = {} if self.charactersToErase is None else {"charactersToErase": self.charactersToErase}
        return [ToolCall("mobile_maestro", {"commands": [{"eraseText": arg}]})]


class HideKeyboardTool(_Mobile):
    """Hide the on-screen keyboard."""

    name = "hideKeyboard"
    toolsets = ("core_interaction",)

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        with device_errors(ctx, "hideKeyboard"):
            drv.actions.hide_keyboard()
        drv.note_action()
        return ToolResult.ok("Keyboard hidden")


class PressKeyTool(_Mobile):
    """Press a special key: BACK, ENTER, HOME, BACKSPACE, TAB or ESCAPE."""

    name = "pressKey"
    toolsets = ("core_interaction",)
    keyCode: Literal["BACK", "ENTER", "HOME", "BACKSPACE", "TAB", "ESCAPE"] = Field(..., description="The key.")

    @field_validator("keyCode", mode="before")
    @classmethod
    def upper_key(cls, value: Any) -> Any:
        return _upper(value)

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        with device_errors(ctx, f"pressKey {self.keyCode}"):
            drv.actions.press_key(self.keyCode)
        drv.note_action()
        return ToolResult.ok(f"Pressed {self.keyCode}")


class PressBackTool(_MobileDelegating):
    """Navigate back one screen (Android back button; an edge swipe on iOS)."""

    name = "pressBack"
    toolsets = ("navigation",)

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        return [ToolCall("mobile_maestro", {"commands": [{"back": {}}]})]


class LaunchAppTool(_Mobile):
    """Open an app on the device as if a user tapped its icon. REINSTALL (default) starts it with its data
    cleared, RESUME brings it back as it was, FORCE_RESTART stops it and starts it again."""

    name = "launchApp"
    toolsets = ("navigation",)
    appId: str = Field(..., description="Package name (Android) or bundle id (iOS), e.g. 'com.example.app'.")
    launchMode: Literal["REINSTALL", "RESUME", "FORCE_RESTART"] = Field("REINSTALL", description="How to launch.")

    @field_validator("launchMode", mode="before")
    @classmethod
    def upper_mode(cls, value: Any) -> Any:
        return _upper(value)

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        mode = self.launchMode
        if mode == "REINSTALL" and drv.platform == IOS and self.appId.startswith("com.apple."):
            mode = "FORCE_RESTART"  # iOS system apps cannot have their data cleared
        with device_errors(ctx, "launchApp"):
            message = drv.actions.launch_app(self.appId, mode)
        drv.note_action()
        return ToolResult.ok(message)


class OpenUrlTool(_MobileDelegating):
    """Open a URL or deep link on the device."""

    name = "openUrl"
    toolsets = ("navigation",)
    url: str = Field(..., min_length=1, description="The URL to open (https://… or an app link).")

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        return [ToolCall("mobile_maestro", {"commands": [{"openLink": self.url.strip()}]})]


class WaitForChangeTool(_Mobile):
    """Wait until the UI has settled after your action (a new screen loads, content updates). Returns once
    the screen has been quiet for quietWindowMs."""

    name = "waitForChange"
    toolsets = ("observation",)
    timeoutMs: int = Field(8000, ge=0, description="Maximum time to wait, in milliseconds.")
    quietWindowMs: int = Field(300, ge=0, description="Quiet time that counts as settled, in milliseconds.")
    requireChange: bool = Field(True, description="When true, a screen that never settles is an error.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        start = time.monotonic()
        deadline = start + self.timeoutMs / 1000
        drv.capture()
        first = last = drv._last_source_digest
        quiet_since = time.monotonic()
        changed = False
        while time.monotonic() < deadline:
            if (time.monotonic() - quiet_since) * 1000 >= self.quietWindowMs:
                elapsed = int((time.monotonic() - start) * 1000)
                return ToolResult.ok(f"UI settled after {elapsed}ms ({'changed' if changed else 'no change seen'})",
                                     data={"changed": changed, "elapsedMs": elapsed})
            time.sleep(min(self.quietWindowMs / 1000 / 3 or 0.05, drv.cfg.poll_interval_ms / 1000))
            drv.capture()
            if drv._last_source_digest != last:
                last = drv._last_source_digest
                quiet_since = time.monotonic()
                changed = changed or last != first
        if self.requireChange:
            return ToolResult.fail(f"the UI did not settle within {self.timeoutMs}ms")
        return ToolResult.ok(f"waited {self.timeoutMs}ms (ceiling) for the UI to settle")


class TakeSnapshotTool(_Mobile):
    """Save a named screenshot, view hierarchy and snapshot text of the current screen to the logs."""

    name = "takeSnapshot"
    toolsets = ("observation",)
    screenName: str = Field(..., min_length=1, description="Name of this screen, used in the file names.")
    screen_description: str | None = Field(None, alias="description", description="What the screen shows.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.screenName).strip("_") or "screen"
        log = ctx.session.log
        tree = drv.capture()
        from ..snapshot import build_snapshot

        text = build_snapshot(tree).text
        png = drv.screenshot() or b""
        shot = log.write_file(f"snapshot_{safe}.png", png)
        log.write_file(f"snapshot_{safe}.xml", tree.source.encode("utf-8"))
        log.write_file(f"snapshot_{safe}.txt", text.encode("utf-8"))
        log.write("TrailblazeSnapshotLog", {"screenName": self.screenName, "description": self.screen_description,
                                            "screenshot": shot.name, "stepIndex": ctx.step_index,
                                            "snapshotText": text})
        return ToolResult.ok(f"Saved snapshot '{self.screenName}'", data={"screenshot": shot.name})


class SetClipboardTool(_Mobile):
    """Set the device clipboard to the given text."""

    name = "mobile_setClipboard"
    toolsets = ("mobile_primitives",)
    text: str = Field(..., description="Text to put on the clipboard.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        with device_errors(ctx, "mobile_setClipboard"):
            drv.actions.set_clipboard(self.text)
        return ToolResult.ok("Clipboard set")


class PasteClipboardTool(_Mobile):
    """Paste the clipboard into the focused field."""

    name = "mobile_pasteClipboard"
    toolsets = ("mobile_primitives",)

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        with device_errors(ctx, "mobile_pasteClipboard"):
            text = drv.actions.get_clipboard()
        return type_text(ctx, text, False)


class ListInstalledAppsTool(_Mobile):
    """List the app ids installed on the device."""

    name = "mobile_listInstalledApps"
    toolsets = ("mobile_primitives",)
    is_recordable = True

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        with device_errors(ctx, "mobile_listInstalledApps"):
            apps = drv.actions.list_apps()
        return ToolResult.ok(", ".join(apps) or "(no apps)", data={"appIds": apps})


TOOLS: list[type[Tool]] = [
    TapTool, LongPressTool, TapOnElementBySelectorTool, TapOnTool, TapOnPointTool, DragByPointsTool, SwipeTool,
    SwipeWithRelativeCoordinatesTool, ScrollUntilTextIsVisibleTool, InputTextTool, InputTextRandomTool,
    ClearTextTool, EraseTextTool, HideKeyboardTool, PressKeyTool, PressBackTool, LaunchAppTool, OpenUrlTool,
    WaitForChangeTool, TakeSnapshotTool, SetClipboardTool, PasteClipboardTool, ListInstalledAppsTool,
]
