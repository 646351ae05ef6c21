"""Selector and configuration validation (no browser): errors are bad input that names the key."""

from __future__ import annotations

import pytest
from trailblaze.config import validate_config
from trailblaze.errors import ConfigError
from trailblaze.selectors import parse_selector
from trailblaze_driver_web.config import WebDriverConfig
from trailblaze_driver_web.selectors import REF, _pattern
from trailblaze_driver_web.targets import escape_regex


def test_selector_fields_and_nesting() -> None:
    sel = parse_selector({"web": {"ariaRole": "button", "ariaNameRegex": "Add to cart", "nthIndex": 1},
                          "childOf": {"web": {"dataTestId": "product-2"}}, "below": {"web": {"cssSelector": "h2"}}})
    assert sel.web is not None and sel.web.nthIndex == 1 and sel.geometric
    assert sel.describe().startswith('nodeSelector {"web": {"ariaRole": "button"')
    assert sel.to_yaml()["childOf"] == {"web": {"dataTestId": "product-2"}}


@pytest.mark.parametrize("bad, message", [
    ({"web": {"ariaRol": "button"}}, "nodeSelector.web.ariaRol: Extra inputs are not permitted"),
    ({"web": {"nthIndex": -1}}, "nodeSelector.web.nthIndex"),
    ("button", "must be a map of selector fields"),
])
def test_bad_selectors_name_the_key(bad: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace(".", r"\.").replace("(", r"\(")):
        parse_selector(bad)


def test_regex_semantics_full_match_java_quotes_and_case_opt_in() -> None:
    assert _pattern("Add to cart").fullmatch("Add to cart")  # type: ignore[union-attr]
    assert not _pattern("Add").fullmatch("Add to cart")  # type: ignore[union-attr]
    assert _pattern(r"\Q$3.00\E off").fullmatch("$3.00 off")  # type: ignore[union-attr]
    assert _pattern("(?i)checkout").fullmatch("CHECKOUT")  # type: ignore[union-attr]
    assert _pattern("Cart (") is None  # invalid: only literal equality remains
    assert escape_regex("Cart (2) $3.00") == r"Cart \(2\) \$3\.00"


def test_refs_are_recognised() -> None:
    assert REF.match("e12") and REF.match("f1e3")
    assert not REF.match("e12x") and not REF.match('button "e12"')


def test_config_defaults_and_errors() -> None:
    cfg = validate_config(WebDriverConfig, {"browser_path": " ", "viewport": {"width": 390, "height": 844}},
                          owner="driver 'playwright-native'")
    assert cfg.executable_path is None and cfg.headless and cfg.trace == "off" and cfg.screenshots == "only-on-failure"
    assert (cfg.viewport.width, cfg.viewport.height) == (390, 844) and cfg.classifiers == ["web"]
    with pytest.raises(ConfigError, match="headles"):
        validate_config(WebDriverConfig, {"headles": False}, owner="driver 'playwright-native'")
    with pytest.raises(ConfigError, match="trace"):
        validate_config(WebDriverConfig, {"trace": "sometimes"}, owner="driver 'playwright-native'")
    with pytest.raises(ConfigError, match="set one of 'connect'"):
        validate_config(WebDriverConfig, {"connect": "ws://127.0.0.1:1/", "cdp_url": "http://127.0.0.1:2"},
                        owner="driver 'playwright-native'")
