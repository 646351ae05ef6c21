"""``web_assertNetworkEvent`` in real Chromium on the example shop: requests the page sends (fetch,
beacons, late ones) are found by URL or body, case-insensitively; a missing one fails with what was seen."""

from __future__ import annotations

import socket
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


def test_with_network_off_only_failures_are_heard_and_events_are_read_from_the_page(web_session: Any) -> None:
    """``network: off``: Playwright sends no event for a request that succeeds or answers 404, so none is
    logged; one that fails is still heard and logged; ``web_assertNetworkEvent`` still finds a beacon (in
    its body) and a fetch sent before it ran, read back from the page."""
    with socket.socket() as sock:  # a loopback port nothing listens on: the fetch to it fails
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    ws = web_session(network="off")
    ws.ok("web_navigate", url="/")
    assert ws.ok("web_evaluate", script="fetch('/no-such-file.json?e=lookup').then(r => r.status)").data["result"] == 404
    refused = ws.ok("web_evaluate", script=f"fetch('http://127.0.0.1:{closed}/x').then(() => 'ok', () => 'failed')")
    assert refused.data["result"] == "failed"
    ws.ok("web_evaluate", script="navigator.sendBeacon('/beacon', JSON.stringify({event: 'checkout-started'}))")
    beacon = ws.ok("web_assertNetworkEvent", eventName="CHECKOUT-STARTED")
    assert beacon.data["method"] == "POST" and beacon.data["url"].endswith("/beacon")
    assert ws.ok("web_assertNetworkEvent", eventName="e=lookup").data["url"].endswith("/no-such-file.json?e=lookup")
    for _ in range(50):  # the failure's event arrives with the next message from the browser
        if ws.driver.events.failed_requests:
            break
        ws.driver.page.evaluate("1")
    (failed,) = ws.driver.events.failed_requests
    assert failed["url"] == f"http://127.0.0.1:{closed}/x" and "status" not in failed and failed["failure"]
    ws.session.log.flush()
    logged = [e for e in ws.session.log.entries if e["class"].endswith("WebNetworkLog")]
    assert len(logged) == 1 and f":{closed}/x" in str(logged[0])
    assert ws.driver.evidence is not None  # the network evidence holds the failure alone
    assert ws.driver.evidence.summary()["requests"] == ws.driver.evidence.summary()["failedRequests"] == 1
    missing = ws.fails("web_assertNetworkEvent", eventName="never-sent", timeoutMs=200)
    assert "requests captured; the last was " in missing
