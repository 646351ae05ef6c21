"""The web driver's key, for the modules that name the driver without loading it: the tools declare
which driver they run on when a plugin registers them, long before (and often without) a browser."""

from __future__ import annotations

DRIVER_KEY = "playwright-native"

__all__ = ["DRIVER_KEY"]
