"""``findMatches`` on the web driver answers upstream's ``MatchDescriptor`` list (issue 37 item 1):
``matches.length`` counts visible elements, each with ``indexPath``, ``bounds`` and its identity."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from trailblaze.selectors import parse_selector
from trailblaze_driver_web.config import WebDriverConfig
from trailblaze_driver_web.driver import PlaywrightDriver

PAGE = """<!doctype html><body style="margin:0"><main>
<button data-testid="buy" style="position:absolute;left:10px;top:20px;width:100px;height:30px">Buy</button>
<button aria-label="Close dialog" style="position:absolute;left:10px;top:60px;width:40px;height:30px">x</button>
<button style="display:none">Hidden</button>
</main></body>"""


@pytest.fixture
def driver(chromium: str) -> Iterator[PlaywrightDriver]:
    drv = PlaywrightDriver(WebDriverConfig())
    try:
        drv.launch()
        drv.page.set_content(PAGE)
        yield drv
    finally:
        drv.stop()


def test_find_matches_returns_match_descriptors_of_visible_elements(driver: PlaywrightDriver) -> None:
    buttons = driver.find_matches(parse_selector({"web": {"ariaRole": "button"}}))
    assert len(buttons) == 2  # the display:none button is not on screen
    buy, close = buttons
    assert buy == {"indexPath": [1, 0, 0], "bounds": {"left": 10, "top": 20, "right": 110, "bottom": 50},
                   "matchedText": "Buy", "accessibilityId": None, "resourceId": "buy"}
    assert close["matchedText"] == "Close dialog" and close["accessibilityId"] == "Close dialog"
    assert close["indexPath"] == [1, 0, 1]


def test_find_matches_with_a_timeout_and_no_match_is_an_empty_list(driver: PlaywrightDriver) -> None:
    assert driver.find_matches(parse_selector({"web": {"ariaRole": "button", "ariaNameRegex": "Pay"}}), 200) == []
