"""The ``web`` plugin: the Playwright driver, the ``web_*`` tools and the ``trailblaze snapshot`` command.

Hook implementations only; Playwright itself is imported when a browser starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trailblaze import hookimpl

if TYPE_CHECKING:
    import click
    from trailblaze.driver import DriverRegistry
    from trailblaze.tools.registry import ToolRegistry


@hookimpl
def trailblaze_register_drivers(registry: DriverRegistry) -> None:
    from .driver import PlaywrightDriver

    registry.add_driver(PlaywrightDriver)


@hookimpl
def trailblaze_register_tools(registry: ToolRegistry) -> None:
    from .tools import all_tools

    for tool in all_tools():
        registry.add_tool(tool)


@hookimpl
def trailblaze_register_commands(cli: click.Group) -> None:
    from .commands import snapshot

    if "snapshot" not in cli.commands:
        cli.add_command(snapshot)
