"""Text tools (upstream §4.2): typing (also a random value remembered in memory), clearing and erasing
the focused field, hiding the keyboard."""

from __future__ import annotations

import random
from typing import Any

from pydantic import Field
from trailblaze import ToolCall, ToolContext, ToolResult

from .common import (
    MobileDelegatingTool,
    MobileTool,
    appium_driver,
    device_errors,
)


class InputTextTool(MobileTool):
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


class InputTextRandomTool(MobileTool):
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


class ClearTextTool(MobileTool):
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


class EraseTextTool(MobileDelegatingTool):
    """Erase characters from the end of the focused text field; omit charactersToErase to erase all of it.
    Use before inputText to replace existing text."""

    name = "eraseText"
    toolsets = ("core_interaction",)
    charactersToErase: int | None = Field(None, ge=0, description="How many characters to erase; omit for all.")

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        arg: dict[str, Any] = {} if self.charactersToErase is None else {"charactersToErase": self.charactersToErase}
        return [ToolCall("mobile_maestro", {"commands": [{"eraseText": arg}]})]


class HideKeyboardTool(MobileTool):
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
