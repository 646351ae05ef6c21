"""Which driver looks at a screen when nothing picked one, and the line that heads its snapshot.

Shared by ``trailblaze snapshot`` and the MCP workbench (``trailblaze mcp``, live sessions); it sits below
both so the server does not reach up into a command module.
"""

from __future__ import annotations

from ..contract.device import DeviceDriver, DeviceInfo
from ..driver import Driver, DriverRegistry
from ..errors import BadInputError


def choose_driver(drivers: DriverRegistry, url: str | None) -> type[Driver]:
    """The driver when neither ``--driver``, ``-d`` nor the workspace's ``defaults.driver`` picked one.

    A URL names the driver that takes it (``Driver.takes_url``: a web address or a path means the
    browser), whatever else is installed; otherwise the only installed driver with a screen. Anything
    else is ambiguous and the user is asked, with the choices listed."""
    screens = [cls for cls in drivers if cls.platform != "host"]
    takers = [cls for cls in drivers.taking_url(url) if cls.platform != "host"] if url is not None else []
    if len(takers) == 1:
        return takers[0]
    if len(screens) == 1:
        return screens[0]
    if not screens:
        raise BadInputError("no installed driver has a screen to snapshot",
                            hint="pip install trailblaze-driver-web (or -android / -ios)")
    names = ", ".join(sorted(cls.key for cls in (takers or screens)))
    what = f"several installed drivers take {url}" if takers else "several drivers are installed"
    raise BadInputError(f"which device? {what}",
                        hint=f"pass --driver NAME or -d PLATFORM[/ID] (installed: {names}), "
                             "or set defaults.driver in trailblaze.yaml")


def screen_header(driver: DeviceDriver, device: DeviceInfo) -> str:
    """The first line of a snapshot: driver, device and screen size, and what is on screen (a page
    URL and title, an app). ``trailblaze mcp`` starts its snapshots with it too."""
    size = f" {device.width}x{device.height}" if device.width and device.height else ""
    parts = [driver.key, f"{device.name or device.platform}{size}"]
    screen = driver.describe_screen()
    if screen:
        parts.append(screen)
    return "# " + " · ".join(parts)


__all__ = ["choose_driver", "screen_header"]
