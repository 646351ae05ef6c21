"""The ``web`` plugin: the Playwright driver and the ``web_*`` tools (``trailblaze snapshot`` uses the driver).

Hook implementations only; Playwright itself is imported when a browser starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trailblaze import hookimpl, upstream_class_decoder

from .tools import UPSTREAM_CLASSES

if TYPE_CHECKING:
    from trailblaze import DriverRegistry, ToolRegistry


@hookimpl
def trailblaze_register_drivers(registry: DriverRegistry) -> None:
    from .driver import PlaywrightDriver

    registry.add_driver(PlaywrightDriver)


@hookimpl
def trailblaze_register_tools(registry: ToolRegistry) -> None:
    from .tools import all_tools

    for tool in all_tools():
        registry.add_tool(tool)


trailblaze_decode_tool = upstream_class_decoder(UPSTREAM_CLASSES)
