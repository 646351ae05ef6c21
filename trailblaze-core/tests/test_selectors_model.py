"""The shared ``nodeSelector`` model: upstream recordings round-trip, bad keys are named, depth is capped."""

from __future__ import annotations

from typing import Any

import pytest
from trailblaze.selectors import MAX_DEPTH, NodeSelector, WebMatch, parse_selector

# An upstream-shaped recording using every kind of nesting (and several drivers' vocabularies).
UPSTREAM: dict[str, Any] = {
    "androidAccessibility": {"textRegex": "Add to cart", "isClickable": True, "collectionItemRowIndex": 2},
    "below": {"androidMaestro": {"textRegex": "Headlamp", "enabled": True}},
    "childOf": {
        "androidAccessibility": {"resourceIdRegex": "com.shop:id/row"},
        "containsChild": {"iosMaestro": {"accessibilityTextRegex": "Price"}},
    },
    "containsDescendants": [{"compose": {"testTag": "qty"}}, {"iosAxe": {"labelRegex": "Total", "enabled": False}}],
    "index": 1,
}


def test_a_nested_upstream_selector_round_trips_through_model_and_yaml() -> None:
    sel = parse_selector(UPSTREAM)
    assert sel.childOf is not None and sel.childOf.containsChild is not None
    assert sel.childOf.containsChild.driver_key == "iosMaestro"
    assert sel.driver_key == "androidAccessibility" and sel.geometric
    assert sel.to_yaml() == UPSTREAM
    assert NodeSelector.model_validate(sel.to_yaml()) == sel
    # Upstream's field order: the driver match first, then the relations, index last.
    assert list(sel.to_yaml()) == ["androidAccessibility", "below", "childOf", "containsDescendants", "index"]
    web = parse_selector({"web": {"ariaRole": "button", "nthIndex": 0}, "childOf": {"web": {"dataTestId": "row"}}})
    assert web.web == WebMatch(ariaRole="button", nthIndex=0) and not web.geometric
    assert web.describe() == ('nodeSelector {"web": {"ariaRole": "button", "nthIndex": 0}, '
                              '"childOf": {"web": {"dataTestId": "row"}}}')
    assert "textRegex='Add to cart'" in sel.description() and "index=1" in sel.description()


@pytest.mark.parametrize("raw, key", [
    ({"web": {"ariaRol": "button"}}, "web.ariaRol"),
    ({"childOf": {"androidAccessibility": {"textRegx": "OK"}}}, "childOf.androidAccessibility.textRegx"),
    ({"containsDescendants": [{"web": {}}, {"tapOn": {}}]}, "containsDescendants.1.tapOn"),
    ({"nodeSelector": {"web": {}}}, "nodeSelector"),
])
def test_an_unknown_key_is_named_with_its_path(raw: dict[str, Any], key: str) -> None:
    with pytest.raises(ValueError, match=f"unknown selector key '{key}'") as info:
        parse_selector(raw, owner="tool 'web_click' nodeSelector")
    assert str(info.value).startswith(f"tool 'web_click' nodeSelector.{key}: ")


def test_what_can_never_match_is_bad_input_but_still_decodes() -> None:
    with pytest.raises(ValueError, match=r"nodeSelector\.below\.index: must be 0 or more, got -1"):
        parse_selector({"below": {"index": -1}})
    with pytest.raises(ValueError, match=r"nodeSelector\.web\.nthIndex: must be 0 or more"):
        parse_selector({"web": {"nthIndex": -2}})
    with pytest.raises(ValueError, match=r"nodeSelector\.index: .*integer.* \(selector key 'index'\)"):
        parse_selector({"index": "first"})
    with pytest.raises(ValueError, match="must be a map of selector fields, got str"):
        parse_selector("button")
    # Decoding alone mirrors upstream: an upstream recording with index -1 loads (and matches nothing).
    assert NodeSelector.model_validate({"index": -1}).index == -1


def _chain(depth: int) -> dict[str, Any]:
    raw: dict[str, Any] = {"web": {"ariaRole": "button"}}
    for level in range(depth):
        key = ("below", "childOf", "containsChild", "above")[level % 4]
        raw = {"web": {"cssSelector": f"l{level}"}, key: raw}
    return raw


def test_nesting_is_capped_at_the_upstream_depth() -> None:
    assert MAX_DEPTH == 10
    parse_selector(_chain(MAX_DEPTH))
    with pytest.raises(ValueError, match="nodeSelector: selectors nest at most 10 levels"):
        parse_selector(_chain(MAX_DEPTH + 1))
    # A list of descendants counts one level, like any other relation.
    with pytest.raises(ValueError, match="nest at most 10 levels"):
        parse_selector({"containsDescendants": [{"web": {}}, _chain(MAX_DEPTH)]})
