"""The web driver's Grid settings, validated before anything starts (the Grid itself is exercised by
tests/test_selenium_grid.py against a real one)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from trailblaze_driver_web.config import WebDriverConfig
from trailblaze_driver_web.grid import GridHub, session_capabilities


def test_a_grid_pool_entry_arriving_as_connect_is_a_hub() -> None:
    cfg = WebDriverConfig.model_validate({"connect": "grid+http://127.0.0.1:4444"})
    assert cfg.grid_url == "http://127.0.0.1:4444" and cfg.connect is None
    assert cfg.remote == "grid+http://127.0.0.1:4444"


def test_one_remote_at_a_time_and_chromium_only() -> None:
    with pytest.raises(ValidationError, match="not 'connect' and 'grid_url'"):
        WebDriverConfig.model_validate({"connect": "ws://a:3000/", "grid_url": "http://hub:4444"})
    with pytest.raises(ValidationError, match="serves Playwright Chromium only .* not browserName 'firefox'"):
        WebDriverConfig.model_validate({"grid_url": "http://hub:4444", "grid_capabilities": {"browserName": "firefox"}})
    with pytest.raises(ValidationError, match="http\\(s\\) URL of a Selenium Grid hub"):
        WebDriverConfig.model_validate({"grid_url": "ws://hub:4444"})


def test_credentials_in_the_hub_url_are_sent_as_basic_auth_and_never_shown() -> None:
    hub = GridHub.parse("https://user:s3cret@hub.example.com/wd/hub")
    assert hub.url == "https://hub.example.com/wd/hub" and hub.base == "https://hub.example.com/wd/hub"
    assert hub.headers["Authorization"] == "Basic dXNlcjpzM2NyZXQ="
    cfg = WebDriverConfig.model_validate({"grid_url": "https://user:s3cret@hub.example.com/wd/hub"})
    assert cfg.remote is not None and "s3cret" not in cfg.remote


def test_capabilities_pass_through_and_chrome_arguments_append() -> None:
    caps = session_capabilities({"bstack:options": {"os": "Windows"}, "goog:chromeOptions": {"args": ["--lang=de"]}},
                                ["--no-sandbox"], headless=True)
    assert caps == {"browserName": "chrome", "bstack:options": {"os": "Windows"},
                    "goog:chromeOptions": {"args": ["--no-sandbox", "--headless=new", "--lang=de"]}}
