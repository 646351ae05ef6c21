"""The ``android`` plugin: the ``android-appium-uiautomator2`` driver and the Android-only tools.

The shared mobile tools come from the ``mobile`` plugin (``trailblaze_driver_android.appium.plugin``),
a second entry point of this distribution.
"""

from __future__ import annotations

from trailblaze import DriverRegistry, ToolRegistry, hookimpl, upstream_class_decoder


@hookimpl
def trailblaze_register_drivers(registry: DriverRegistry) -> None:
    from .driver import AndroidAppiumDriver

    registry.add_driver(AndroidAppiumDriver)


@hookimpl
def trailblaze_register_tools(registry: ToolRegistry) -> None:
    from .tools import TOOLS

    for tool in TOOLS:
        registry.add_tool(tool)


trailblaze_decode_tool = upstream_class_decoder({
    "xyz.block.trailblaze.mobile.tools.AdbShellTrailblazeTool": "android_adbShell",
})
"""Upstream's Kotlin class of the Android-only tool (what its ``android_adbShell.tool.yaml`` names), kept
here rather than in ``tools.py`` so loading the plugin does not import the tools."""
