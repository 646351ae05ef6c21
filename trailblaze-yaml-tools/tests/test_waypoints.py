"""Waypoint files (upstream's v2 ``*.waypoint.yaml``): loading, file:line errors, ``trailblaze waypoint
list|validate``, and what ``check`` says about broken files and shortcut ends naming no waypoint."""

from __future__ import annotations

from pathlib import Path

import pytest
from trailblaze.config import WorkspaceConfig
from trailblaze.testing import run_cli
from trailblaze.waypoints import load_workspace_waypoints

CART = """\
id: shop/cart
description: The cart page.
route: /cart.html
web:
  required:
    - selector: {web: {ariaRole: heading, ariaNameRegex: Your cart}}
  forbidden:
    - {description: the empty-cart notice, selector: {web: {cssSelector: .empty}}}
android:
  route: shop://cart
  required:
    - {minCount: 2, selector: {androidAccessibility: {textRegex: Remove}}}
"""
WAYPOINTS = "trails/config/trailmaps/shop/waypoints"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in {"trails/config/trailblaze.yaml": "{}\n", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_waypoint_loads_with_per_classifier_blocks(tmp_path: Path) -> None:
    write(tmp_path, {f"{WAYPOINTS}/cart.waypoint.yaml": CART})
    found = load_workspace_waypoints(WorkspaceConfig(root=tmp_path))
    assert found.errors == []
    cart = found.get("shop/cart")
    assert cart is not None and sorted(cart.blocks) == ["android", "web"]
    assert cart.route_for(["android"]) == "shop://cart" and cart.route_for(["web"]) == "/cart.html"
    assert cart.block_for(["iphone", "ios"]) is None
    assert cart.blocks["android"].required[0].minCount == 2
    assert cart.blocks["web"].forbidden[0].describe() == "the empty-cart notice"


@pytest.mark.parametrize(("text", "where", "message"), [
    ("id: shop/x\nweb:\n  required:\n    - selector: {web: {ariaRole: heading, nope: 1}}\n", ":4:7:",
     "'web.required.0.selector': selector.web.nope: Extra inputs are not permitted"),
    ("id: shop/x\nweb:\n  required:\n    - {minCount: 0, selector: {web: {cssSelector: h1}}}\n", ":4:",
     "'web.required.0.minCount': Input should be greater than or equal to 1"),
    ("id: shop/x\nrequired: []\n", ":2:1:", "'required': the v1 top-level 'required:' is not accepted"),
    ("id: shop\nweb: {}\n", ":1:1:", "'id': waypoint id 'shop' must have two or more"),
    ("description: no id\n", ":1:", "'id': a waypoint needs a non-blank string id"),
    ("id: shop/x\nweb:\n  requird: []\n", ":3:3:", "'web.requird': Extra inputs are not permitted"),
])
def test_a_broken_waypoint_is_an_error_with_file_line_and_key(tmp_path: Path, text: str, where: str,
                                                              message: str) -> None:
    write(tmp_path, {f"{WAYPOINTS}/cart.waypoint.yaml": CART, f"{WAYPOINTS}/bad.waypoint.yaml": text})
    found = load_workspace_waypoints(WorkspaceConfig(root=tmp_path))
    assert list(found.by_id) == ["shop/cart"]  # the others still load
    [error] = found.errors
    assert f"bad.waypoint.yaml{where}" in str(error) and message in str(error), str(error)


def test_waypoint_list_and_validate(tmp_path: Path) -> None:
    write(tmp_path, {f"{WAYPOINTS}/cart.waypoint.yaml": CART})
    listed = run_cli(["waypoint", "list", "--workspace", str(tmp_path)])
    assert listed.exit_code == 0 and "shop/cart  [android, web]  The cart page." in listed.output
    valid = run_cli(["waypoint", "validate", "--workspace", str(tmp_path)])
    assert valid.exit_code == 0 and "1 waypoint(s) valid, 0 error(s)" in valid.output
    write(tmp_path, {f"{WAYPOINTS}/dup.waypoint.yaml": CART})
    broken = run_cli(["waypoint", "validate", "--workspace", str(tmp_path)])
    assert broken.exit_code == 3
    assert "dup.waypoint.yaml:1:1: waypoint 'shop/cart' is also defined in" in broken.output


def test_check_reports_broken_waypoints_and_shortcut_ends_naming_none(tmp_path: Path) -> None:
    write(tmp_path, {
        f"{WAYPOINTS}/cart.waypoint.yaml": CART,
        f"{WAYPOINTS}/bad.waypoint.yaml": "id: shop/bad\nweb: {required: [{selector: {web: {nope: 1}}}]}\n",
        "trails/config/trailmaps/shop/trailmap.yaml": "id: shop\ntarget: {display_name: Shop}\n",
        "trails/config/trailmaps/shop/shortcuts/shop_toCart.shortcut.yaml":
            "id: shop_toCart\ndescription: d\nparameters: []\nshortcut:\n  from: shop/home\n  to: shop/cart\n"
            "tools:\n  - wait: {timeToWaitInSeconds: 0}\n",
        "trails/plain.trail.yaml": "trail:\n  - step: w\n    recording:\n      host:\n"
                                   "        - wait: {timeToWaitInSeconds: 0}\n",
        "trails/asserts.trail.yaml": "trail:\n  - step: a\n    recording:\n      web:\n"
                                     "        - assertWaypoint: {waypoint: shop/cart}\n",
    })
    plain = run_cli(["check", str(tmp_path / "trails" / "plain.trail.yaml")], cwd=tmp_path)
    assert plain.exit_code == 0, plain.output
    assert "bad.waypoint.yaml:2:" in plain.output and "warning: [Waypoints]" in plain.output
    assert ("shop_toCart.shortcut.yaml:5:3: warning: [Waypoints] shortcut 'shop_toCart' from: 'shop/home' names "
            "no waypoint (known: shop/bad" not in plain.output)
    assert "shortcut 'shop_toCart' from: 'shop/home' names no waypoint (known: shop/cart)" in plain.output
    assert "to: 'shop/cart'" not in plain.output
    asserts = run_cli(["check", str(tmp_path / "trails" / "asserts.trail.yaml")], cwd=tmp_path)
    assert asserts.exit_code == 3 and "error: [Waypoints]" in asserts.output
    strict = run_cli(["check", "--strict", str(tmp_path / "trails" / "plain.trail.yaml")], cwd=tmp_path)
    assert strict.exit_code == 3 and "shop_toCart.shortcut.yaml:5:3: error: [Waypoints]" in strict.output

