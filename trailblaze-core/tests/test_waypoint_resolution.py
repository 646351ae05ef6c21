"""Which conditions a waypoint holds for a device, ported from upstream's algorithm (block/trailblaze
``a022ca69``): per-field closest-wins resolution, classifier lineage, and ``{{target.appId}}``.

The screens themselves are counted on real Chromium in ``trailblaze-driver-web/tests/test_web_waypoints.py``;
these rules decide what is counted, before any driver is asked.
"""

from __future__ import annotations

from pathlib import Path

from trailblaze.driver import DeviceInfo
from trailblaze.selectors import parse_selector
from trailblaze.waypoints import device_classifiers, load_file
from trailblaze.waypoints.templates import expand

TABLET = """\
id: shop/cart
route: /default
android:
  route: shop://cart
  required:
    - {description: family title, selector: {androidAccessibility: {textRegex: Cart}}}
  forbidden:
    - {description: family spinner, selector: {androidAccessibility: {classNameRegex: Progress}}}
android-tablet:
  route: shop://tablet-cart
tablet:
  required:
    - {description: any tablet's pane, selector: {androidAccessibility: {textRegex: Pane}}}
"""


def waypoint(tmp_path: Path, text: str = TABLET):  # type: ignore[no-untyped-def]
    path = tmp_path / "cart.waypoint.yaml"
    path.write_text(text)
    return load_file(path)


def test_compound_classifiers_expand_to_upstreams_lineage() -> None:
    """``TrailblazeClassifierLineage.kt`` lines 129-148 (``resolutionChain``): the joined compound first
    (``android-tablet``, then its string-derived parent ``android``), then each segment's own chain, the
    most specific segment first."""
    assert device_classifiers(DeviceInfo(platform="android", driver="x", classifiers=["android", "tablet"])) == [
        "android-tablet", "android", "tablet"]
    assert device_classifiers(DeviceInfo(platform="ios", driver="x", classifiers=["ios", "ipad", "pro"])) == [
        "ios-ipad-pro", "ios-ipad", "ios", "pro", "ipad"]
    # No classifiers reported: the platform alone (WaypointMatcher.kt ``classifierFor``).
    assert device_classifiers(DeviceInfo(platform="web", driver="x")) == ["web"]


def test_each_field_comes_from_the_closest_block_that_has_it(tmp_path: Path) -> None:
    """``ResolvedWaypoint.kt`` lines 52-54: ``route`` from the closest block declaring one, ``required`` and
    ``forbidden`` each from the closest block with a non-empty list. The ``android-tablet:`` block holds only
    a route, so it must not leave the tablet with no conditions at all."""
    resolved = waypoint(tmp_path).resolve(["android-tablet", "android", "tablet"])
    assert resolved is not None and resolved.classifier == "android-tablet"
    assert resolved.route == "shop://tablet-cart"
    assert [c.describe() for c in resolved.required] == ["family title"]
    assert [c.describe() for c in resolved.forbidden] == ["family spinner"]


def test_a_block_of_a_lower_segment_is_still_probed(tmp_path: Path) -> None:
    """``resolutionChain`` step 2 (line 144): a ``tablet:`` block is reached by a device whose compound
    identity is not ``tablet``; replace-not-merge, so its ``required`` wins over nothing closer."""
    text = TABLET.replace("android:\n  route: shop://cart\n  required:\n    - {description: family title, "
                          "selector: {androidAccessibility: {textRegex: Cart}}}\n", "android:\n  route: shop://cart\n")
    resolved = waypoint(tmp_path, text).resolve(["android-tablet", "android", "tablet"])
    assert resolved is not None
    assert [c.describe() for c in resolved.required] == ["any tablet's pane"]
    assert [c.describe() for c in resolved.forbidden] == ["family spinner"]


def test_the_top_level_route_is_the_default_and_no_block_means_no_match(tmp_path: Path) -> None:
    """``ResolvedWaypoint.kt`` line 52 (``?: route``) and ``WaypointMatcher.kt`` line 146 (no block on the
    chain: skipped, never matched vacuously)."""
    found = waypoint(tmp_path, "id: shop/x\nroute: /default\nweb:\n  required: []\n")
    resolved = found.resolve(["web"])
    assert resolved is not None and resolved.route == "/default" and resolved.required == []
    assert found.resolve(["ios-iphone", "ios", "iphone"]) is None
    assert found.route_for(["web"]) == "/default"


def test_target_app_id_templates_expand_or_are_left_for_the_matcher_to_refuse() -> None:
    """``SelectorTemplating.kt`` ``expand``: one app id is substituted regex-escaped, several become an
    alternation, none leaves the placeholder (which ``WaypointMatcher.kt`` lines 45-55 then refuse)."""
    selector = parse_selector({"androidAccessibility": {"resourceIdRegex": "^{{target.appId}}:id/cart$"},
                               "childOf": {"androidAccessibility": {"textRegex": "{{target.appId}}"}}})
    one, left = expand(selector, ["com.shop"])
    assert not left and one.androidAccessibility is not None
    assert one.androidAccessibility.resourceIdRegex == r"^com\.shop:id/cart$"
    several, left = expand(selector, ["com.shop", "com.shop.beta"])
    assert not left and several.childOf is not None and several.childOf.androidAccessibility is not None
    assert several.childOf.androidAccessibility.textRegex == r"(?:com\.shop|com\.shop\.beta)"
    same, left = expand(selector, [])
    assert left and same == selector
