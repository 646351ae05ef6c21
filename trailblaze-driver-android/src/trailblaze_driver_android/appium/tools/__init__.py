"""The mobile tools both Appium drivers offer (upstream §4.1–§4.2), registered by the ``mobile`` plugin."""

from __future__ import annotations

from trailblaze import Tool


def all_tools() -> list[type[Tool]]:
    from . import interaction, maestro, verification

    return [*interaction.TOOLS, *verification.TOOLS, *maestro.TOOLS]


UPSTREAM_CLASSES: dict[str, str] = {
    "xyz.block.trailblaze.toolcalls.commands.TapTrailblazeTool": "tap",
    "xyz.block.trailblaze.toolcalls.commands.LongPressTrailblazeTool": "longPress",
    "xyz.block.trailblaze.toolcalls.commands.TapOnByElementSelector": "tapOnElementBySelector",
    "xyz.block.trailblaze.toolcalls.commands.TapOnTrailblazeTool": "tapOn",
    "xyz.block.trailblaze.toolcalls.commands.TapOnPointTrailblazeTool": "tapOnPoint",
    "xyz.block.trailblaze.toolcalls.commands.DragByPointsTrailblazeTool": "dragByPoints",
    "xyz.block.trailblaze.toolcalls.commands.SwipeTrailblazeTool": "swipe",
    "xyz.block.trailblaze.toolcalls.commands.SwipeWithRelativeCoordinatesTool": "swipeWithRelativeCoordinates",
    "xyz.block.trailblaze.toolcalls.commands.ScrollUntilTextIsVisibleTrailblazeTool": "scrollUntilTextIsVisible",
    "xyz.block.trailblaze.toolcalls.commands.InputTextTrailblazeTool": "inputText",
    "xyz.block.trailblaze.toolcalls.commands.InputTextRandomTrailblazeTool": "inputTextRandom",
    "xyz.block.trailblaze.toolcalls.commands.ClearTextTrailblazeTool": "clearText",
    "xyz.block.trailblaze.toolcalls.commands.HideKeyboardTrailblazeTool": "hideKeyboard",
    "xyz.block.trailblaze.toolcalls.commands.PressKeyTrailblazeTool": "pressKey",
    "xyz.block.trailblaze.toolcalls.commands.LaunchAppTrailblazeTool": "launchApp",
    "xyz.block.trailblaze.toolcalls.commands.WaitForChangeTrailblazeTool": "waitForChange",
    "xyz.block.trailblaze.toolcalls.commands.TakeSnapshotTool": "takeSnapshot",
    "xyz.block.trailblaze.mobile.tools.SetClipboardTrailblazeTool": "mobile_setClipboard",
    "xyz.block.trailblaze.toolcalls.commands.PasteClipboardTrailblazeTool": "mobile_pasteClipboard",
    "xyz.block.trailblaze.mobile.tools.ListInstalledAppsTrailblazeTool": "mobile_listInstalledApps",
    "xyz.block.trailblaze.toolcalls.commands.AssertVisibleBySelectorTrailblazeTool": "assertVisibleBySelector",
    "xyz.block.trailblaze.toolcalls.commands.AssertNotVisibleBySelectorTrailblazeTool": "assertNotVisibleBySelector",
    "xyz.block.trailblaze.toolcalls.commands.AssertVisibleTrailblazeTool": "assertVisible",
    "xyz.block.trailblaze.toolcalls.commands.AssertNotVisibleWithTextTrailblazeTool": "assertNotVisibleWithText",
    "xyz.block.trailblaze.toolcalls.commands.WaitUntilNotVisibleTrailblazeTool": "waitUntilNotVisible",
    "xyz.block.trailblaze.toolcalls.commands.TapOnElementWithTextTrailblazeTool": "tapOnElementWithText",
    "xyz.block.trailblaze.toolcalls.commands.TapOnElementWithAccessiblityTextTrailblazeTool": "tapOnElementWithAccessibilityText",
    "xyz.block.trailblaze.toolcalls.commands.LongPressOnElementWithTextTrailblazeTool": "longPressOnElementWithText",
    "xyz.block.trailblaze.toolcalls.commands.LongPressElementWithAccessibilityTextTrailblazeTool": "longPressElementWithAccessibilityText",
    "xyz.block.trailblaze.toolcalls.commands.AssertVisibleWithTextTrailblazeTool": "assertVisibleWithText",
    "xyz.block.trailblaze.toolcalls.commands.AssertVisibleWithAccessibilityTextTrailblazeTool": "assertVisibleWithAccessibilityText",
    "xyz.block.trailblaze.toolcalls.commands.AssertVisibleWithResourceIdTrailblazeTool": "assertVisibleWithResourceId",
    "xyz.block.trailblaze.toolcalls.commands.MaestroTrailblazeTool": "mobile_maestro",
}
"""Upstream's Kotlin class for each of these tools (the class its ``*.tool.yaml`` file names), so a call
written in upstream's legacy ``{"class": "<FQCN>", ...}`` form, or an upstream ``class:`` tool file,
resolves to the tool here (this plugin's ``trailblaze_decode_tool``). Tools upstream defines in YAML
have no class and are not listed."""
