"""``web_assertNetworkEvent`` in real Chromium on the example shop: requests the page sends (fetch,
beacons, late ones) are found by URL or body, case-insensitively; a missing one fails with what was seen."""

from __future__ import annotations

from typing import Any

import pytest
from trailblaze.errors import ToolArgumentError


def test_an_event_in_a_url_or_a_body_is_found(web_session: Any) -> None:
    ws = web_session()
    ws.ok("web_navigate", url="/")
    ws.ok("web_evaluate", script="fetch('/collect?e=Add-To-Cart').catch(() => null) && true")
    result = ws.ok("web_assertNetworkEvent", eventName="add-to-cart")
    assert result.message.startswith('Network event "add-to-cart" found: GET ') and "/collect?e=Add-To-Cart" in result.message
    ws.ok("web_evaluate", script="navigator.sendBeacon('/beacon', JSON.stringify({event: 'checkout-started'}))")
    beacon = ws.ok("web_assertNetworkEvent", eventName="CHECKOUT-STARTED")  # found in the body
    assert beacon.data["method"] == "POST" and beacon.data["url"].endswith("/beacon")


def test_a_request_sent_later_is_waited_for(web_session: Any) -> None:
    ws = web_session()
    ws.ok("web_navigate", url="/")
    ws.ok("web_evaluate", script="setTimeout(() => fetch('/late?evt=late-event').catch(() => null), 400) && true")
    ws.ok("web_assertNetworkEvent", eventName="late-event", timeoutMs=5000)


def test_a_missing_event_fails_with_what_was_captured(web_session: Any) -> None:
    ws = web_session()
    ws.ok("web_navigate", url="/")
    message = ws.fails("web_assertNetworkEvent", eventName="never-sent", timeoutMs=200)
    assert 'no request the page sent mentions "never-sent" in its URL or body within 200 ms' in message
    assert "requests captured; the last was GET " in message


def test_a_blank_event_name_is_bad_input(web_session: Any) -> None:
    ws = web_session()
    with pytest.raises(ToolArgumentError, match="argument 'eventName': Value error, eventName must not be blank"):
        ws.call("web_assertNetworkEvent", eventName="   ")
