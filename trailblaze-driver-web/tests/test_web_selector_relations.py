"""Hierarchy relations of a recorded ``nodeSelector`` on a real Chromium page.

Upstream's ``containsChild`` needs a *direct* child to match, ``containsDescendants`` any descendant;
Playwright's ``filter(has=...)`` alone means "any descendant", so this pins the difference in a browser.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from trailblaze.selectors import parse_selector
from trailblaze_driver_web.config import WebDriverConfig
from trailblaze_driver_web.driver import PlaywrightDriver
from trailblaze_driver_web.selectors import selector_locator

PAGE = """<!doctype html><main>
<section data-testid="direct"><button>Buy</button></section>
<section data-testid="grandchild"><div class="wrap"><button>Buy</button></div></section>
<section data-testid="neither"><p>Sold out</p></section>
</main>"""

BUY = {"web": {"ariaRole": "button", "ariaNameRegex": "Buy"}}
SECTION = {"cssSelector": "section"}


@pytest.fixture
def page(chromium: str) -> Iterator[Any]:
    driver = PlaywrightDriver(WebDriverConfig())
    try:
        driver.launch()
        driver.page.set_content(PAGE)
        yield driver.page
    finally:
        driver.stop()


def matching(page: Any, raw: dict[str, Any]) -> list[str]:
    loc = selector_locator(page, parse_selector(raw))
    return list(loc.evaluate_all("els => els.map(e => e.dataset.testid)"))


def test_contains_child_needs_a_direct_child(page: Any) -> None:
    assert matching(page, {"web": SECTION, "containsChild": BUY}) == ["direct"]


def test_contains_descendants_still_accepts_a_grandchild(page: Any) -> None:
    assert matching(page, {"web": SECTION, "containsDescendants": [BUY]}) == ["direct", "grandchild"]


def test_nested_contains_child_is_direct_at_every_level(page: Any) -> None:
    # section > div.wrap > button: each containsChild is relative to its own candidate.
    chain = {"web": SECTION, "containsChild": {"web": {"cssSelector": "div.wrap"}, "containsChild": BUY}}
    assert matching(page, chain) == ["grandchild"]
    # main > section > button: the button is a grandchild of main, never its child.
    assert matching(page, {"web": {"cssSelector": "main"}, "containsChild": BUY}) == []
    assert matching(page, {"web": {"cssSelector": "main"}, "containsDescendants": [BUY]}) == [None]
