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
    ("id: shop/x\nweb:\n  required:\n    - selector: {web: {ariaRole: 3}}\n", ":4:7:",
     "'web.required.0.selector': selector.web.ariaRole: Input should be a valid string"),
    ("id: shop/x\nweb:\n  required:\n    - {minCount: 0, selector: {web: {cssSelector: h1}}}\n", ":4:",
     "'web.required.0.minCount': Input should be greater than or equal to 1"),
    ("id: shop/x\nrequired: []\n", ":2:1:", "'required': the v1 top-level 'required:' is not accepted"),
    ("id: shop\nweb: {}\n", ":1:1:", "'id': waypoint id 'shop' must have two or more"),
    ("description: no id\n", ":1:", "'id': a waypoint needs a non-blank string id"),
    ("id: shop/x\nweb:\n  required: {a: 1}\n", ":3:", "'web.required': Input should be a valid list"),
])
def test_a_broken_waypoint_is_an_error_with_file_line_and_key(tmp_path: Path, text: str, where: str,
                                                              message: str) -> None:
    write(tmp_path, {f"{WAYPOINTS}/cart.waypoint.yaml": CART, f"{WAYPOINTS}/bad.waypoint.yaml": text})
    found = load_workspace_waypoints(WorkspaceConfig(root=tmp_path))
    assert list(found.by_id) == ["shop/cart"]  # the others still load
    [error] = found.errors
    assert f"bad.waypoint.yaml{where}" in str(error) and message in str(error), str(error)


def test_waypoint_commands_read_the_workspace_config_as_check_does(tmp_path: Path) -> None:
    """Upstream's root ``trailblaze.yaml`` has ``targets:`` (a section the yaml-tools plugin claims): the
    waypoint commands load the plugins first, as ``check`` does, instead of refusing the section."""
    write(tmp_path, {"trails/config/trailblaze.yaml": "targets:\n  - shop\n",
                     "trails/config/trailmaps/shop/trailmap.yaml": "id: shop\ntarget: {display_name: Shop}\n",
                     f"{WAYPOINTS}/cart.waypoint.yaml": CART})
    for verb in ("list", "validate"):
        result = run_cli(["waypoint", verb], cwd=tmp_path)
        assert result.exit_code == 0, result.output
        assert "unknown section" not in result.output
    assert run_cli(["check", "--no-servers"], cwd=tmp_path).exit_code == 0


def test_unknown_keys_are_ignored_with_one_warning_each(tmp_path: Path) -> None:
    """Upstream decodes waypoint files with kaml ``strictMode = false`` (``WaypointLoader.kt`` line 20), so
    its own ``contacts/ios/search-active`` (an ``iosMaestro.childOf``) loads: here too, each unknown key is
    one warning with file:line, and the rest of the waypoint stands."""
    text = ("id: shop/x\nweb:\n  requird: []\n  required:\n"
            "    - selector: {web: {ariaRole: heading, nope: 1}, childOf: {web: {cssSelector: main, deep: 2}}}\n"
            "      note: why\n")
    write(tmp_path, {f"{WAYPOINTS}/x.waypoint.yaml": text})
    found = load_workspace_waypoints(WorkspaceConfig(root=tmp_path))
    assert found.errors == []
    waypoint = found.get("shop/x")
    assert waypoint is not None and waypoint.blocks["web"].required[0].selector.web is not None
    warnings = [f"{where}: {message}" for message, where in found.warnings]
    assert len(warnings) == 4, warnings
    assert warnings[0].endswith("x.waypoint.yaml:3:3: unknown key 'web.requird' in waypoint 'shop/x' is ignored")
    assert any("x.waypoint.yaml:5:" in w and "'web.required.0.selector.web.nope'" in w for w in warnings)
    assert any("'web.required.0.selector.childOf.web.deep'" in w for w in warnings)
    assert any("x.waypoint.yaml:6:7: unknown key 'web.required.0.note'" in w for w in warnings)
    validated = run_cli(["waypoint", "validate", "--workspace", str(tmp_path)])
    assert validated.exit_code == 0 and "1 waypoint(s) valid, 0 error(s)" in validated.output
    assert validated.stderr.count("warning: ") == 4
    checked = run_cli(["check", "--no-servers"], cwd=tmp_path)
    assert checked.exit_code == 0 and checked.output.count("warning: [Waypoints] unknown key") == 4


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
        f"{WAYPOINTS}/bad.waypoint.yaml": "id: shop/bad\nweb: {required: [{minCount: 0, selector: {web: {}}}]}\n",
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
    assert "shortcut 'shop_toCart' from: 'shop/home' names no waypoint (closest known: shop/cart)" in plain.output
    assert "to: 'shop/cart'" not in plain.output
    asserts = run_cli(["check", str(tmp_path / "trails" / "asserts.trail.yaml")], cwd=tmp_path)
    assert asserts.exit_code == 3 and "error: [Waypoints]" in asserts.output
    strict = run_cli(["check", "--strict", str(tmp_path / "trails" / "plain.trail.yaml")], cwd=tmp_path)
    assert strict.exit_code == 3 and "shop_toCart.shortcut.yaml:5:3: error: [Waypoints]" in strict.output

