"""A Selenium Grid pool entry (``grid+http://hub:4444``) is a ``server_url`` for the Appium drivers: a
hub speaks WebDriver, so the prefix only told the pool it has slots (tests/test_selenium_grid.py runs a
trail through a real hub and Appium relay)."""

from __future__ import annotations

from trailblaze_driver_android.driver import AndroidDriverConfig


def test_a_grid_pool_entry_is_the_hub_url() -> None:
    cfg = AndroidDriverConfig.model_validate({"server_url": "grid+http://127.0.0.1:4444/"})
    assert cfg.server_url == "http://127.0.0.1:4444"
