"""A plain pytest test that drives the example shop through ``trailblaze_session`` (docs/pytest.md).

The fixture comes from the plugin ``trailblaze`` installs for pytest; it opens a session with the one
session lifecycle, so the shop server is started by the example plugin exactly as for ``trailblaze run``
(``{{shopUrl}}`` in memory, relative URLs resolve against it) and everything is closed after the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from trailblaze.pytest_plugin import ToolFailed, TrailblazeSession

EXAMPLE = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.browser, pytest.mark.trailblaze(workspace=str(EXAMPLE), driver="playwright-native")]


def test_sign_in_and_fill_the_cart_from_python(trailblaze_session: TrailblazeSession) -> None:
    shop = trailblaze_session
    shop.call("shop_login", email="py@example.com", password="secret123")  # the workspace's YAML tool
    shop.call("shop_addToCart", name="Compass", quantity=2)
    shop.call("web_navigate", url="/cart.html")
    screen = shop.snapshot()
    assert 'table "Items in your cart"' in screen and "Compass" in screen
    total = shop.call("web_evaluate", script="document.querySelector('[data-testid=cart-total]').textContent")
    assert total.message == "Total: $49.98"
    # A tool that fails raises with the tool's own message (what the page had), not a bare False.
    with pytest.raises(ToolFailed, match='no element matches.*button elements: .*"Checkout"'):
        shop.call("web_click", ref='button "Pay now"')
    # The password typed through web_fillSecret is a secret of this session: never in its logs.
    shop.session.log.flush()
    log_text = "".join(p.read_text(errors="replace") for p in shop.session.log_dir.glob("*.ndjson"))
    assert "py@example.com" in log_text and "secret123" not in log_text


def test_a_trail_file_runs_from_a_test(trailblaze_session: TrailblazeSession) -> None:
    result = trailblaze_session.run_trail(EXAMPLE / "trails" / "sign-in.trail.yaml")
    assert result.passed and [s.success for s in result.steps] == [True] * 5
