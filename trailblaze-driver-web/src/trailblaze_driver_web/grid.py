"""Chromium from a Selenium Grid 4 hub (or a cloud hub that speaks its protocol).

The hub is asked for a WebDriver session whose capabilities name Chrome; Grid 4 answers with the
session's DevTools address (``se:cdp``, proxied through the hub), and Playwright drives the browser over
it. This is what Playwright does itself for ``SELENIUM_REMOTE_URL``, done here per launch: that variable
is read from the environment of Playwright's driver process, once for every browser it launches, while a
run may point each worker at its own hub, pass capabilities per driver and must name the hub when the
queue times out. Playwright reaches a Grid for Chromium only, so other browsers are refused.

Nothing here imports Selenium: the session request is one JSON POST and the release one DELETE.
"""

from __future__ import annotations

import base64
import json
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from trailblaze import DriverError

GRID_BROWSERS = frozenset({"chrome"})
"""The ``browserName`` values a Grid can serve to Playwright (CDP: Chromium only)."""

QUEUE_HINT = ("the hub's session queue holds a request while every slot is busy: give it more slots, fewer "
              "workers, or a longer grid_queue_timeout_ms")


@dataclass(frozen=True)
class GridHub:
    """One hub URL, split into the address requests go to and the credentials they carry."""

    url: str
    """As configured, minus credentials: what errors and reports name."""
    base: str
    """Where ``/session`` is appended (the URL without credentials, query or a trailing slash)."""
    headers: dict[str, str]

    @classmethod
    def parse(cls, url: str, headers: dict[str, str] | None = None) -> GridHub:
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise DriverError(f"grid_url '{url}' is not an http(s) URL of a Selenium Grid hub",
                              hint="e.g. -o grid_url=http://127.0.0.1:4444")
        sent = {"Content-Type": "application/json; charset=utf-8", **(headers or {})}
        netloc = parts.hostname + (f":{parts.port}" if parts.port else "")
        if parts.username is not None:
            # Cloud hubs take credentials in the URL (https://USER:KEY@hub...): sent as Basic auth,
            # never shown.
            pair = f"{parts.username}:{parts.password or ''}".encode()
            sent.setdefault("Authorization", "Basic " + base64.b64encode(pair).decode())
        shown = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
        return cls(url=shown, base=shown.rstrip("/"), headers=sent)


@dataclass
class GridSession:
    """A WebDriver session a hub started for this browser: its id and its DevTools endpoint."""

    hub: GridHub
    session_id: str
    cdp_url: str

    def describe(self) -> str:
        return f"Selenium Grid {self.hub.url} (session {self.session_id})"

    def release(self) -> None:
        """Give the slot back (DELETE the session). Never raises: a hub or node that is gone has
        already dropped it, and the hub's session timeout ends one a crash left behind."""
        request = urllib.request.Request(f"{self.hub.base}/session/{self.session_id}", method="DELETE",
                                         headers=self.hub.headers)
        try:
            with urllib.request.urlopen(request, timeout=30):
                pass
        except Exception:  # noqa: BLE001, S110 - best effort, see above
            pass


def check_capabilities(capabilities: dict[str, Any]) -> None:
    """Refuse a browser Playwright cannot drive through a Grid, in one line (raises ``ValueError`` for
    the config validator)."""
    name = capabilities.get("browserName", "chrome")
    if name not in GRID_BROWSERS:
        raise ValueError(f"a Selenium Grid serves Playwright Chromium only (browserName 'chrome'), "
                         f"not browserName '{name}'")


def session_capabilities(extra: dict[str, Any], args: list[str], headless: bool) -> dict[str, Any]:
    """The ``alwaysMatch`` capabilities: Chrome with this run's arguments, then ``grid_capabilities``
    (vendor options such as ``bstack:options`` pass through untouched; ``goog:chromeOptions`` merge,
    their ``args`` appended to ours)."""
    chrome_args = [*args, *(["--headless=new"] if headless else [])]
    capabilities: dict[str, Any] = {"browserName": "chrome", "goog:chromeOptions": {"args": chrome_args}}
    for key, value in extra.items():
        if key == "goog:chromeOptions" and isinstance(value, dict):
            merged = {**capabilities[key], **value}
            merged["args"] = chrome_args + [a for a in value.get("args", []) if a not in chrome_args]
            capabilities[key] = merged
        else:
            capabilities[key] = value
    return capabilities


def new_session(hub: GridHub, capabilities: dict[str, Any], timeout_s: float) -> GridSession:
    """Ask the hub for a session, waiting in its queue up to ``timeout_s``; raise ``DriverError`` (exit
    2) in one line naming the hub when it does not answer, refuses, or the wait runs out."""
    body = json.dumps({"capabilities": {"alwaysMatch": capabilities}}).encode()
    request = urllib.request.Request(f"{hub.base}/session", data=body, method="POST", headers=hub.headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            answer = json.load(response)
    except urllib.error.HTTPError as exc:
        raise DriverError(f"Selenium Grid {hub.url} refused the session: {_grid_message(exc)}",
                          hint=_refusal_hint(exc)) from None
    except (TimeoutError, socket.timeout):
        raise DriverError(f"Selenium Grid {hub.url} started no session within {timeout_s:g} s (queued behind "
                          f"busy slots)", hint=QUEUE_HINT) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, (TimeoutError, socket.timeout)):
            raise DriverError(f"Selenium Grid {hub.url} started no session within {timeout_s:g} s (queued "
                              f"behind busy slots)", hint=QUEUE_HINT) from None
        raise DriverError(f"Selenium Grid {hub.url} does not answer: {reason}",
                          hint="is the hub running there (GET /status)? start it with "
                               "`java -jar selenium-server-<version>.jar standalone` (docs/scale-out.md)") from None
    value = answer.get("value") if isinstance(answer, dict) else None
    session_id = value.get("sessionId") if isinstance(value, dict) else None
    caps = value.get("capabilities") if isinstance(value, dict) else None
    if not isinstance(session_id, str) or not isinstance(caps, dict):
        raise DriverError(f"Selenium Grid {hub.url} answered the session request without a session: "
                          f"{json.dumps(answer)[:300]}")
    session = GridSession(hub, session_id, "")
    cdp = caps.get("se:cdp")
    if not isinstance(cdp, str) or not cdp:
        session.release()
        raise DriverError(f"Selenium Grid {hub.url} gave session {session_id} no DevTools endpoint (se:cdp)",
                          hint="Playwright needs Grid 4 with a Chromium node (Selenium 3 hubs are not supported)")
    session.cdp_url = _through_hub(cdp, hub)
    return session


def _through_hub(cdp: str, hub: GridHub) -> str:
    """A DevTools URL the hub reported as its own loopback address, addressed as the hub is (a hub on
    another machine says ``localhost`` of itself)."""
    parts = urlsplit(cdp if "://" in cdp else f"ws://{cdp}")
    if parts.hostname in ("localhost", "127.0.0.1"):
        hub_parts = urlsplit(hub.url)
        host = hub_parts.hostname or "127.0.0.1"
        scheme = "wss" if hub_parts.scheme == "https" and parts.scheme == "ws" else parts.scheme
        netloc = host + (f":{parts.port}" if parts.port else "")
        return urlunsplit((scheme, netloc, parts.path, parts.query, ""))
    return urlunsplit(parts)


def _grid_message(exc: urllib.error.HTTPError) -> str:
    try:
        body = json.loads(exc.read().decode("utf-8", "replace"))
        message = str(body["value"].get("message") or body["value"].get("error"))
    except Exception:  # noqa: BLE001 - not the W3C error shape
        message = f"HTTP {exc.code} {exc.reason}"
    first = next((line.strip() for line in message.splitlines() if line.strip()), message)
    return first[:400]


def _refusal_hint(exc: urllib.error.HTTPError) -> str:
    if exc.code in (401, 403):
        return "the hub wants credentials: put them in grid_url (https://USER:KEY@hub/...) from the environment"
    return ("check grid_capabilities against the hub's node stereotypes (GET /status); a queue timeout on the "
            "hub's side is its session-request-timeout")


__all__ = ["GRID_BROWSERS", "GridHub", "GridSession", "check_capabilities", "new_session", "session_capabilities"]
