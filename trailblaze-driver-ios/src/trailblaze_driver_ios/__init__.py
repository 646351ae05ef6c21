"""Trailblaze driver for iOS through Appium XCUITest, built on ``trailblaze_driver_android.appium``."""

from __future__ import annotations

__version__ = "0.1.0"
