"""Upstream's Kotlin classes for the mobile and Android tools, mapped by the plugins owning those tools
(``trailblaze_decode_tool``): legacy ``{"class": "<FQCN>", ...}`` calls read as our tools, including the
classes whose names do not follow the tool's (``TapOnByElementSelector`` is ``tapOnElementBySelector``).
No device is needed to decode."""

from __future__ import annotations

import pytest
from trailblaze.plugins import PluginHost
from trailblaze.tools.base import OtherTool
from trailblaze_driver_android.appium.tools import UPSTREAM_CLASSES, all_tools

COMMANDS = "xyz.block.trailblaze.toolcalls.commands."


@pytest.mark.parametrize("fqcn, tool", [
    (COMMANDS + "TapOnByElementSelector", "tapOnElementBySelector"),
    (COMMANDS + "TapOnElementWithAccessiblityTextTrailblazeTool", "tapOnElementWithAccessibilityText"),
    (COMMANDS + "SwipeWithRelativeCoordinatesTool", "swipeWithRelativeCoordinates"),
    (COMMANDS + "InputTextTrailblazeTool", "inputText"),
    ("xyz.block.trailblaze.mobile.tools.SetClipboardTrailblazeTool", "mobile_setClipboard"),
    ("xyz.block.trailblaze.mobile.tools.AdbShellTrailblazeTool", "android_adbShell"),
    (COMMANDS + "WaitForIdleSyncTrailblazeTool", "wait"),  # the core's own tool, mapped by the core
])
def test_legacy_calls_decode_to_the_owning_plugins_tool(mobile_host: PluginHost, fqcn: str, tool: str) -> None:
    call = mobile_host.codec().decode_json({"class": fqcn, "nodeSelector": {"textRegex": "OK"}})
    assert (call.name, call.args) == (tool, {"nodeSelector": {"textRegex": "OK"}})
    assert not isinstance(call, OtherTool)


def test_every_mapped_class_names_a_mobile_tool() -> None:
    assert set(UPSTREAM_CLASSES.values()) <= {t.name for t in all_tools()}
