"""``web_assertNetworkEvent`` in real Chromium on the example shop: requests the page sends (fetch,
beacons, late ones) are found by URL or body, case-insensitively; a missing one fails with what was seen."""

from __future__ import annotations

import json
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


def test_by_default_failures_and_http_errors_are_heard_and_events_are_read_from_the_page(web_session: Any) -> None:
    """``network: errors`` (the default): Playwright sends no event for a request that succeeds, so none is
    logged; a response with HTTP 404 is logged as Chromium reports it (URL and status, no method); one that
    fails is heard and logged; ``web_assertNetworkEvent`` still finds a beacon (in its body) and a fetch
    sent before it ran, read back from the page."""
    with socket.socket() as sock:  # a loopback port nothing listens on: the fetch to it fails
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    ws = web_session()
    assert ws.driver.cfg.network == "errors" and not ws.driver.events.responses
    ws.ok("web_navigate", url="/")
    assert ws.ok("web_evaluate", script="fetch('/no-such-file.json?e=lookup').then(r => r.status)").data["result"] == 404
    refused = ws.ok("web_evaluate", script=f"fetch('http://127.0.0.1:{closed}/x').then(() => 'ok', () => 'failed')")
    assert refused.data["result"] == "failed"
    ws.ok("web_evaluate", script="navigator.sendBeacon('/beacon', JSON.stringify({event: 'checkout-started'}))")
    beacon = ws.ok("web_assertNetworkEvent", eventName="CHECKOUT-STARTED")
    assert beacon.data["method"] == "POST" and beacon.data["url"].endswith("/beacon")
    assert ws.ok("web_assertNetworkEvent", eventName="e=lookup").data["url"].endswith("/no-such-file.json?e=lookup")
    for _ in range(50):  # the failure's event arrives with the next message from the browser
        if len(ws.driver.events.failed_requests) >= 2:
            break
        ws.driver.page.evaluate("1")
    heard = ws.driver.events.failed_requests
    missing_file = [e for e in heard if e["url"].endswith("/no-such-file.json?e=lookup")]
    assert missing_file == [{"url": ws.driver.page.url.rstrip("/") + "/no-such-file.json?e=lookup", "status": 404,
                             "failure": "HTTP 404 Not Found"}], heard
    (refused_entry,) = [e for e in heard if e["url"] == f"http://127.0.0.1:{closed}/x"]
    assert "status" not in refused_entry and refused_entry["failure"]
    assert all("status" in e or e["failure"] for e in heard)  # failures only: nothing that succeeded is heard
    ws.session.log.flush()
    logged = [str(e) for e in ws.session.log.entries if e["class"].endswith("WebNetworkLog")]
    assert len(logged) == len(heard) and any(f":{closed}/x" in e for e in logged)
    assert any("HTTP 404" in e and "no-such-file" in e for e in logged)
    evidence = ws.driver.evidence
    assert evidence is not None  # as heard so far: the failures alone
    assert evidence.summary()["requests"] == evidence.summary()["failedRequests"] == len(heard)
    missing = ws.fails("web_assertNetworkEvent", eventName="never-sent", timeoutMs=200)
    assert "requests captured; the last was " in missing


def test_a_failed_attempt_s_network_evidence_reads_the_page_s_requests_back(web_session: Any) -> None:
    """Before a failed attempt's ``network.ndjson`` is written (``network: errors``), the page's last
    requests are read back with method and resource type; the 404 Chromium reported is entered once, as
    the request read with its status; a request still in flight (the server never answers) is listed
    without one, and reading it does not wait for it."""
    import threading

    with socket.socket() as hanging:  # accepts and never answers
        hanging.bind(("127.0.0.1", 0))
        hanging.listen()
        port = hanging.getsockname()[1]
        ws = web_session()
        ws.ok("web_navigate", url="/")
        ws.ok("web_evaluate", script="fetch('/no-such-file.json').then(r => r.status)")
        ws.ok("web_evaluate", script=f"fetch('http://127.0.0.1:{port}/never').catch(() => null) && true")
        for _ in range(50):
            if ws.driver.events.failed_requests:
                break
            ws.driver.page.evaluate("1")
        unblock = threading.Timer(30, hanging.close)  # were the read to wait for it, the test fails, never hangs
        unblock.start()
        try:
            ws.driver.trail_finished(ws.session, False)
        finally:
            unblock.cancel()
    lines = [json.loads(line) for line in (ws.session.log_dir / "network.ndjson").read_text().splitlines()]
    missing = [e for e in lines if e["url"].endswith("/no-such-file.json")]
    assert len(missing) == 1 and missing[0]["method"] == "GET" and missing[0]["status"] == 404
    assert missing[0]["resourceType"] == "fetch" and missing[0]["readBack"] is True
    document = [e for e in lines if e.get("resourceType") == "document"]
    assert document and document[0]["method"] == "GET" and "status" not in document[0]
    never = [e for e in lines if e["url"].endswith("/never")]
    assert len(never) == 1 and "status" not in never[0] and "failure" not in never[0]


def test_the_network_setting_s_first_names_still_work_with_a_warning() -> None:
    """``on``/``off`` (one release) are ``all``/``errors`` now: accepted, with a ``DeprecationWarning``."""
    from trailblaze_driver_web.config import WebDriverConfig

    with pytest.warns(DeprecationWarning, match="network: on is deprecated; write network: all"):
        assert WebDriverConfig.model_validate({"network": "on"}).network == "all"
    with pytest.warns(DeprecationWarning, match="network: off is deprecated; write network: errors"):
        assert WebDriverConfig.model_validate({"network": "off"}).network == "errors"
    assert WebDriverConfig().network == "errors"
