"""Trailblaze driver for Android through Appium UiAutomator2.

The Appium foundation both mobile drivers share lives in ``trailblaze_driver_android.appium``. Nothing
here imports Appium or Selenium at import time: they load inside ``Driver.start`` and tool execution.
"""

from __future__ import annotations

__version__ = "0.1.0"
