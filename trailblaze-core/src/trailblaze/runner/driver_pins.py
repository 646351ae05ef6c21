"""A trail's driver pins (``config.devices``, v1 ``driver:``) that no installed plugin answers.

``check`` reports such a trail (exit 3) instead of leaving ``run`` to fail with "no driver", and both
name the distribution that would provide the driver when one is known: upstream's driver names
(``TrailblazeDriverType.kt``) map onto ours, and the ones no distribution here provides say so.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..errors import ConfigError, SourceLocation, TrailblazeError

if TYPE_CHECKING:
    from ..driver import DriverRegistry
    from ..trail.model import Trail

PROVIDERS: dict[str, str | None] = {
    "playwright-native": "trailblaze-driver-web",
    "android-ondevice-accessibility": "trailblaze-driver-android",
    "android-ondevice-instrumentation": "trailblaze-driver-android",
    "android-appium-uiautomator2": "trailblaze-driver-android",
    "ios-host": "trailblaze-driver-ios",
    "ios-axe": "trailblaze-driver-ios",
    "ios-appium-xcuitest": "trailblaze-driver-ios",
    "playwright-electron": None,
    "revyl-android": None,
    "revyl-ios": None,
    "compose": None,
}
"""Upstream's driver names (and our keys), canonical form → the distribution that provides that driver
here, or None when none does yet (Electron apps, Revyl's cloud devices, Compose desktop)."""


def _canon(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.strip().lower()).strip("-")


def provider(name: str) -> str:
    """What to say about a driver no installed plugin provides: the distribution to install, or that no
    distribution here provides it."""
    key = _canon(name)
    if key not in PROVIDERS:
        return "no known distribution provides it; a third-party driver plugin may"
    dist = PROVIDERS[key]
    return f"install {dist}" if dist else "no distribution of Trailblaze for Python provides it yet"


def unprovided_pins(trail: Trail, drivers: DriverRegistry) -> ConfigError | None:
    """The trail's pins when none of them names an installed driver (the run would have no driver to
    start), else None; a trail that pins nothing runs on whatever ``-d``/``--driver`` choose."""
    wanted = [*trail.config.devices.values(), *([trail.config.driver] if trail.config.driver else [])]
    if not wanted or any(drivers.get(name) is not None for name in wanted):
        return None
    named = "; ".join(f"'{name}': {provider(name)}" for name in dict.fromkeys(wanted))
    return ConfigError(f"this trail runs on driver {' or '.join(repr(w) for w in dict.fromkeys(wanted))}, which no "
                       f"installed plugin provides ({named})", location=_pin_location(trail),
                       hint=f"installed drivers: {', '.join(drivers.keys()) or 'none'}")


def _pin_location(trail: Trail) -> SourceLocation:
    path = trail.path
    from ..yamlio import locate_in_text, read_text

    key = ("config", "devices") if trail.config.devices else ("config", "driver")
    try:
        return locate_in_text(read_text(path), key, path)
    except (OSError, TrailblazeError):  # the file went away since it was read: the file is enough
        return SourceLocation(path)


__all__ = ["PROVIDERS", "provider", "unprovided_pins"]
