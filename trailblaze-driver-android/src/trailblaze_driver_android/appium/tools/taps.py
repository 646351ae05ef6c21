"""Tapping tools (upstream §4.1): by ref, by selector, at a point inside an element or on the screen,
and dragging between two points."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, field_validator
from trailblaze import ToolCall, ToolContext, ToolResult

from ..generator import best_selector
from ..hierarchy import IOS, Node
from .common import (
    MobileDelegatingTool,
    MobileTool,
    appium_driver,
    device_errors,
    selector,
    selector_field,
    validate_selector,
)

REF_TIMEOUT_MS = 1_500


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
        from trailblaze import ToolFailure

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


class TapTool(MobileDelegatingTool):
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


class LongPressTool(MobileDelegatingTool):
    """Long-press an element by its ref ID from the snapshot."""

    name = "longPress"
    is_recordable = False
    toolsets = ("core_interaction",)
    ref: str = Field(..., description="The element ref from the snapshot (e.g. 'y778').")
    reasoning: str | None = Field(None, description="Why you are long-pressing this element.")

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        return _ref_expansion(ctx, self.ref, long_press=True, reasoning=self.reasoning)


class TapOnElementBySelectorTool(MobileTool):
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


class TapOnTool(MobileTool):
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


class TapOnPointTool(MobileTool):
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


class DragByPointsTool(MobileTool):
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
