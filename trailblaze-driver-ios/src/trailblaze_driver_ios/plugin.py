"""The ``ios`` plugin: the ``ios-appium-xcuitest`` driver. Its tools are the shared mobile tools of
the ``mobile`` plugin (trailblaze-driver-android); upstream has no iOS-only framework tools (§4.4)."""

from __future__ import annotations

from trailblaze import DriverRegistry, hookimpl


@hookimpl
def trailblaze_register_drivers(registry: DriverRegistry) -> None:
    from .driver import IosAppiumDriver

    registry.add_driver(IosAppiumDriver)
