"""The ``mobile`` plugin: the tools the Android and iOS Appium drivers share, and the ``mobile`` library
trailmap (``mobile_primitives`` toolset). Registered through its own entry point so the iOS driver can
rely on it without depending on the Android driver's plugin being enabled."""

from __future__ import annotations

from pathlib import Path

from trailblaze import ToolRegistry, hookimpl, upstream_class_decoder

from .tools import UPSTREAM_CLASSES

TRAILMAPS = Path(__file__).parent / "trailmaps"


@hookimpl
def trailblaze_register_tools(registry: ToolRegistry) -> None:
    from .tools import all_tools

    for tool in all_tools():
        registry.add_tool(tool)


@hookimpl
def trailblaze_trailmap_dirs() -> list[Path]:
    return [TRAILMAPS]


trailblaze_decode_tool = upstream_class_decoder(UPSTREAM_CLASSES)
