"""Deprecated: the Appium server and session moved to ``connection.AppiumConnection``, which
``driver.AppiumDriver`` holds (it no longer subclasses a session driver). ``AppiumSessionDriver`` names
``AppiumDriver`` here, with a ``DeprecationWarning``, until the next minor version."""

from __future__ import annotations

import warnings
from typing import Any

from .connection import first_line
from .driver import AppiumConfigT

__all__ = ["AppiumConfigT", "first_line"]


def __getattr__(name: str) -> Any:
    if name == "AppiumSessionDriver":
        warnings.warn("trailblaze_driver_android.appium.session_driver.AppiumSessionDriver is deprecated: use "
                      "trailblaze_driver_android.appium.driver.AppiumDriver (its session is AppiumDriver.connection)",
                      DeprecationWarning, stacklevel=2)
        from .driver import AppiumDriver

        return AppiumDriver
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
