"""The mobile tools both Appium drivers offer (upstream §4.1–§4.2), registered by the ``mobile`` plugin."""

from __future__ import annotations

from trailblaze.tools.base import Tool


def all_tools() -> list[type[Tool]]:
    from . import interaction, maestro, verification

    return [*interaction.TOOLS, *verification.TOOLS, *maestro.TOOLS]
