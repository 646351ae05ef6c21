"""``assertWaypoint`` on a real Appium server with the fake driver (Android and iOS): the waypoint's
``android:``/``ios:`` block is matched with the Appium drivers' own selector resolver."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from trailblaze.tools.base import ToolCall

pytestmark = pytest.mark.appium

SIGN_IN = """\
id: shop/sign-in
android:
  required:
    - selector: {androidAccessibility: {textRegex: Sign in}}
  forbidden:
    - {description: an error banner, selector: {androidAccessibility: {textRegex: Wrong password}}}
ios:
  required:
    - selector: {iosAxe: {labelRegex: Sign in}}
"""
CHECKOUT = """\
id: shop/checkout
android:
  required:
    - {description: the Pay button, selector: {androidAccessibility: {textRegex: Pay now}}}
"""


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_assert_waypoint_on_appium(fake_session: Any, tmp_path: Path, platform: str) -> None:
    folder = tmp_path / "trails" / "config" / "trailmaps" / "shop" / "waypoints"
    folder.mkdir(parents=True)
    (folder / "sign-in.waypoint.yaml").write_text(SIGN_IN)
    (folder / "checkout.waypoint.yaml").write_text(CHECKOUT)
    session = fake_session(platform)

    def call(name: str, **args: Any) -> Any:
        return session.dispatcher.call(ToolCall(name, args), session.context(step_index=0))

    ok = call("assertWaypoint", waypoint="shop/sign-in", timeoutMs=500)
    assert ok.success, ok.message
    other = call("assertWaypoint", waypoint="shop/checkout", timeoutMs=300, pollIntervalMs=100)
    assert not other.success
    if platform == "android":
        assert other.message.endswith("required the Pay button is missing (found 0)")
    else:
        assert other.message.endswith("waypoint 'shop/checkout' has no block for this device's classifiers")
