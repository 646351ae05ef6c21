"""Swiping and scrolling tools (upstream §4.1): a swipe in a direction or between relative points, and
scrolling until a text is visible."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator
from trailblaze import ToolContext, ToolResult

from ..hierarchy import Node
from ..patterns import escape_for_selector
from .common import (
    MobileTool,
    appium_driver,
    maestro_match,
    selector,
    upper_text,
)
from .taps import parse_relative

Direction = Literal["UP", "DOWN", "LEFT", "RIGHT"]


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


class SwipeTool(MobileTool):
    """Swipe the screen (the finger moves in `direction`; swipe UP to scroll content down), optionally
    starting on the element showing `swipeOnElementText`."""

    name = "swipe"
    is_read_only: ClassVar[bool] = True
    toolsets = ("core_interaction",)
    direction: Direction = Field("DOWN", description="UP, DOWN, LEFT or RIGHT.")
    swipeOnElementText: str | None = Field(None, description="Start the swipe on the element with this text.")

    @field_validator("direction", mode="before")
    @classmethod
    def upper_dir(cls, value: Any) -> Any:
        return upper_text(value)

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


class SwipeWithRelativeCoordinatesTool(MobileTool):
    """Swipe between two points given as percentages of the screen ("x%, y%")."""

    name = "swipeWithRelativeCoordinates"
    is_read_only: ClassVar[bool] = True
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


class ScrollUntilTextIsVisibleTool(MobileTool):
    """Scroll until the element with the given text (or textRegex, or id) is visible. Give exactly one
    target."""

    name = "scrollUntilTextIsVisible"
    is_read_only: ClassVar[bool] = True
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
        return upper_text(value)

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
