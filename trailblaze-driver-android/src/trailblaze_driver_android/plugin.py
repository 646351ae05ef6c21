"""The ``android`` plugin: the ``android-appium-uiautomator2`` driver and the Android-only tools.

The shared mobile tools come from the ``mobile`` plugin (``trailblaze_driver_android.appium.plugin``),
a second entry point of this distribution.
"""

from __future__ import annotations

from trailblaze import hookimpl
from trailblaze.driver import DriverRegistry
from trailblaze.tools.registry import ToolRegistry


@hookimpl
def trailblaze_register_drivers(registry: DriverRegistry) -> None:
    from .driver import AndroidAppiumDriver

    registry.add_driver(AndroidAppiumDriver)


@hookimpl
def trailblaze_register_tools(registry: ToolRegistry) -> None:
    from .tools import TOOLS

    for tool in TOOLS:
        registry.add_tool(tool)
