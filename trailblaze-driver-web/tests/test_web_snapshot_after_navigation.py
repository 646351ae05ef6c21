"""What someone looks at right after a click that navigates (``snapshot``, the agent, a live session) is
the new page as its scripts drew it, not the moment between commit and ``DOMContentLoaded`` — in real
headless Chromium, against a loopback page whose deferred script arrives late."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from .conftest import WebSession

PAGES = {
    "/": b'<!doctype html><title>Start</title><a href="/next.html">Next</a>',
    "/next.html": b'<!doctype html><title>Next</title><script defer src="/draw.js"></script><main></main>',
    "/draw.js": b'document.querySelector("main").innerHTML = "<h1>Drawn by the script</h1>";',
}


class _Pages(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - the http.server hook
        body = PAGES.get(self.path)
        if body is None:
            self.send_error(404)
            return
        if self.path == "/draw.js":
            time.sleep(1.0)  # the window a snapshot taken at commit would fall into
        self.send_response(200)
        self.send_header("Content-Type", "text/javascript" if self.path.endswith(".js") else "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def slow_pages() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_a_snapshot_right_after_a_navigating_click_shows_the_page_its_scripts_drew(
        web_session: Callable[..., WebSession], slow_pages: str) -> None:
    ws = web_session(base_url=slow_pages)
    ws.ok("web_navigate", url="/")
    ws.ok("web_click", ref='link "Next"')
    shown = ws.driver.snapshot()
    assert 'heading "Drawn by the script"' in shown, shown
    assert 'heading "Drawn by the script"' in ws.driver.native_snapshot()


def test_a_page_is_known_parsed_until_its_main_frame_navigates(
        web_session: Callable[..., WebSession], slow_pages: str) -> None:
    """The driver skips the wait (and Playwright's messages about it) only while the document it saw parsed
    is still the page's: a navigation of the main frame, even within the document, makes the next look wait
    again, and the page is parsed again once the new document is."""
    ws = web_session(base_url=slow_pages)
    ws.ok("web_navigate", url="/")
    page, documents = ws.driver.page, ws.driver.documents
    assert not documents.parsed(page)  # never looked at: the first look waits as it always did
    assert 'link "Next"' in ws.driver.snapshot()
    assert documents.parsed(page)
    page.evaluate("history.pushState({}, '', '#moved')")
    page.title()  # a round trip: the navigation's event has arrived
    assert not documents.parsed(page)
    assert 'link "Next"' in ws.driver.snapshot()
    assert documents.parsed(page)
    ws.ok("web_click", ref='link "Next"')
    assert not documents.parsed(page)  # committed, its deferred script still on its way
    assert 'heading "Drawn by the script"' in ws.driver.snapshot()
    assert documents.parsed(page)
