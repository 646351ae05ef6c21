"""What the pages of a web session report: console messages, page errors, requests, failed requests,
dialogs and downloads.

``PageEvents`` listens to a context's failed requests (and, with ``network: all``, its responses), and to
each page the driver adopts (once per page: a page adopted again, the current one after a popup closed,
gets no second set of listeners), keeps what tools search (``web_assertNetworkEvent`` reads ``requests``),
logs console messages, failed requests, HTTP errors and dialogs, hands dialogs to ``Dialogs``
(``dialogs.py``) and downloads to ``Downloads`` (``downloads.py``), and feeds the network and console
evidence when it is captured.
"""

from __future__ import annotations

import inspect
import re
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze import valid_text

from .dialogs import Dialogs, LogWriter
from .downloads import Downloads
from .evidence import WebEvidence

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, ConsoleMessage, Dialog, Download, Page, Request, Response

MAX_CAPTURED_REQUESTS = 5000
MAX_CAPTURED_BODY = 64 * 1024
_BODILESS = frozenset(("GET", "HEAD", "OPTIONS"))
"""Methods a page cannot send a body with (fetch refuses one, XHR drops it): their body is not read."""
_HTTP_ERROR_PREFIX = "Failed to load resource: the server responded with a status of "
_HTTP_ERROR = re.compile(re.escape(_HTTP_ERROR_PREFIX) + r"(\d{3}) \((.*)\)\Z", re.S)
"""How Chromium reports a response with HTTP ≥ 400 on the page's console (its ``Log`` domain, which
Playwright forwards as a console message with the resource's URL as the location): every such response,
the document's, a subresource's, cross-origin (no-cors) ones and those in frames alike."""



@dataclass(frozen=True)
class SentRequest:
    """A request a page sent: what ``web_assertNetworkEvent`` looks for event names in."""

    method: str
    url: str
    body: str

    def mentions(self, needle_lower: str) -> bool:
        return needle_lower in self.url.lower() or needle_lower in self.body.lower()


class PageEvents:
    """Listens to a context and its pages; ``dialogs`` answers their dialogs (``dialogs.py``; a string is
    the web driver's ``dialogs`` setting, for a ``Dialogs`` that answers with it)."""

    def __init__(self, *, dialogs: str | Dialogs, log: LogWriter, evidence: WebEvidence | None,
                 downloads: Downloads | None = None, responses: bool = True) -> None:
        self.dialogs = dialogs if isinstance(dialogs, Dialogs) else Dialogs(dialogs, log)
        self.downloads = downloads if downloads is not None else Downloads(lambda: None, log)
        self.log = log
        self.evidence = evidence
        self.console: list[dict[str, Any]] = []
        self.failed_requests: list[dict[str, Any]] = []
        self.requests: deque[SentRequest] = deque(maxlen=MAX_CAPTURED_REQUESTS)
        """Every request the pages sent, newest last (``web_assertNetworkEvent`` searches them)."""
        self.responses = responses
        """Every response is heard (the driver's ``network: all``); else failed requests are, and HTTP ≥ 400
        as Chromium reports it on the console (``network: errors``)."""
        self._pages: weakref.WeakSet[Page] = weakref.WeakSet()
        if evidence is not None and not responses:
            evidence.read_back = self.read_back

    def listen_to_context(self, context: BrowserContext) -> None:
        """Requests are taken when they end (``response``, ``requestfailed``), never from ``request``: each
        subscribed network event costs the step loop a Playwright object and an event dispatch, and one
        event per request instead of two is most of the capture's cost (benchmarks/bench_web_replay.py).
        A request still in flight is therefore not yet among ``requests``. Chromium's own Network domain
        through a CDP session per page costs more than these objects do (two larger events a request, and
        the driver forwards both), and listening on Playwright's implementation objects, past the sync API's
        wrapping, saves about 20 µs an event: benchmarks/bench_web_network_capture.py. Without ``responses``
        Playwright sends an event only for a request that fails: the rest cost nothing (``sent``)."""
        if self.responses:
            context.on("response", listener(self._on_response))
        context.on("requestfailed", listener(self._on_request_failed))

    def sent(self) -> list[SentRequest]:
        """The requests ``web_assertNetworkEvent`` searches, newest last: every one heard; or, when only
        failures are heard, the last 100 of each open page as well, read from the browser now
        (``page.requests()``: Playwright's driver keeps them without sending an event for each)."""
        heard = list(self.requests)
        if self.responses:
            return heard
        read = [_sent_request(request) for request in self._recent_requests()]
        known = set(read)
        return [r for r in heard if r not in known] + read

    def _recent_requests(self) -> list[Request]:
        """The last 100 requests of each open page, read from the browser (``page.requests()``, one call a
        page: Playwright's driver keeps them without sending an event for each); method, URL and body are
        then read without a round trip."""
        read: list[Request] = []
        for page in list(self._pages):
            try:
                read.extend(page.requests())
            except Exception:  # noqa: BLE001 - a page that closed as it was read has nothing to add
                continue
        return read

    def listen_to_page(self, page: Page) -> None:
        """Listen to ``page``'s events, once: Playwright's ``page`` event and the driver's own adoption of
        the page it opened both arrive here, and two listeners would log every message twice."""
        if page in self._pages:
            return
        self._pages.add(page)
        page.on("console", listener(self._on_console))
        page.on("pageerror", listener(self._on_page_error))
        page.on("dialog", listener(self._on_dialog))
        page.on("download", listener(self._on_download))

    def _on_console(self, msg: ConsoleMessage) -> None:
        text = msg.text
        entry = {"type": msg.type, "text": valid_text(text), "location": msg.location, "url": _safe_url(msg.page)}
        self.console.append(entry)
        if self.evidence is not None:
            self.evidence.message(msg.type, text, entry["url"], entry["location"])
        self.log("WebConsoleLog", entry)
        if not self.responses and text.startswith(_HTTP_ERROR_PREFIX):
            self._http_error(text, entry["location"])

    def _http_error(self, text: str, location: Any) -> None:
        """A response with HTTP ≥ 400 that Chromium reported (``network: errors``, no response event):
        logged and kept like one heard, without the method and resource type the report does not carry."""
        match = _HTTP_ERROR.match(text)
        url = location.get("url") if isinstance(location, dict) else None
        if match is None or not isinstance(url, str) or not url:
            return
        status, url = int(match[1]), valid_text(url)
        entry = {"url": url, "status": status, "failure": f"HTTP {status} {valid_text(match[2])}".strip()}
        self.failed_requests.append(entry)
        self.log("WebNetworkLog", entry)
        if self.evidence is not None:
            self.evidence.http_error(url, status)

    def read_back(self) -> None:
        """Before a failed attempt's network evidence is written (``network: errors``): the last 100 requests
        of each open page (``_recent_requests``) with their method and resource type. Their status is known only where Chromium reported an HTTP error for the URL (that
        entry is then replaced by the request read, which has the method): asking each request for its
        response would wait, without a timeout, for one still in flight. A request heard as it failed is
        not entered twice."""
        evidence = self.evidence
        if evidence is None:
            return
        reported = evidence.take_reported()
        for request in self._recent_requests():
            if request.failure is not None:
                continue  # heard as it failed
            method, url = request.method, request.url
            statuses = reported.get(url)
            evidence.read(request, method, url, statuses.pop(0) if statuses else None)
        for url, statuses in reported.items():  # reported for a page no longer open, or past its last 100
            for status in statuses:
                evidence.http_error(url, status)

    def _on_page_error(self, error: Any) -> None:
        text = str(error)
        entry = {"type": "pageerror", "text": valid_text(text)}
        self.console.append(entry)
        if self.evidence is not None:
            self.evidence.message("pageerror", text)
        self.log("WebConsoleLog", entry)

    def _sent(self, request: Request) -> tuple[str, str]:
        """Enter ``request`` among those the pages sent; its method and URL."""
        sent = _sent_request(request)
        self.requests.append(sent)
        return sent.method, sent.url

    def _on_request_failed(self, request: Request) -> None:
        method, url = self._sent(request)
        entry = {"url": url, "method": method, "failure": request.failure, "resourceType": request.resource_type}
        self.failed_requests.append(entry)
        self.log("WebNetworkLog", entry)
        if self.evidence is not None:
            self.evidence.failed(request, method, url)

    def _on_response(self, response: Response) -> None:
        status = response.status
        request = response.request
        method, url = self._sent(request)
        if self.evidence is not None:
            self.evidence.response(request, method, url, status)
        if status < 400:
            return
        entry = {"url": url, "method": method, "status": status,
                 "failure": f"HTTP {status} {response.status_text}".strip(),
                 "resourceType": request.resource_type}
        self.failed_requests.append(entry)
        self.log("WebNetworkLog", entry)

    def _on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.handle(dialog)

    def _on_download(self, download: Download) -> None:
        """A download's request ends in the download, not in a response a page sees: Chromium reports no
        ``request`` event for it, so it is added to the requests (and the network evidence) here."""
        kept = self.downloads.started(download)
        self.requests.append(SentRequest("GET", kept.url, ""))
        if self.evidence is not None:
            self.evidence.downloaded(kept.url, kept.file_name)


def _sent_request(request: Request) -> SentRequest:
    """``request`` as ``web_assertNetworkEvent`` searches it: method, URL, and a text body (capped)."""
    method, url = request.method, request.url  # each property read goes through Playwright's wrappers
    body = ""
    if method not in _BODILESS:
        try:
            body = request.post_data or ""
        except Exception:  # noqa: BLE001 - a binary body that is not text
            body = ""
    return SentRequest(method, url, body[:MAX_CAPTURED_BODY])


def listener(handle: Callable[[Any], None]) -> Callable[[Any], None]:
    """``handle`` as a one-argument function carrying its signature: Playwright's sync API calls
    ``inspect.signature`` on a listener for every event it delivers (to pass it as many arguments as it
    takes), which for a bound method costs more than most handlers do; ``inspect.signature`` returns a
    callable's ``__signature__`` as it is. Many events arrive per step (a response per request)."""

    def on_event(event: Any) -> None:
        handle(event)

    on_event.__signature__ = _ONE_ARGUMENT  # type: ignore[attr-defined]
    return on_event


def _one_argument(event: Any) -> None: ...


_ONE_ARGUMENT = inspect.signature(_one_argument)


def _safe_url(page: Page | None) -> str | None:
    try:
        return page.url if page is not None else None
    except Exception:  # noqa: BLE001
        return None
