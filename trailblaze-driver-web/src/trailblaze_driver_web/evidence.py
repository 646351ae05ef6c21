"""The evidence of a web attempt: every request with its status and timing, every console message and
page error — what a developer asks for first when a trail fails.

Captured in memory from events the driver already listens to (``requestfailed``, ``console``,
``pageerror``, and ``response`` with ``network: all``: no extra round trip per request, and no ``request``
event either — a request is entered when its response or its failure arrives, with the send time and the
time to the response's headers that Playwright measured in the browser; with ``network: errors``, the
default, HTTP ≥ 400 as Chromium reports it on the console, and the last 100 requests of each open page
read from the browser just before a failed attempt's files are written), and written at the end
of the trail as two NDJSON files in the session's log directory — ``network.ndjson`` and
``console.ndjson`` — only when the ``evidence`` setting keeps them (``retain-on-failure``, the default:
for failed attempts only; ``on``; ``off`` captures nothing). Every line passes through the session's
redaction (``--secret`` values and sensitive memory) before it is written; URLs, headers we do not keep,
bodies we never keep.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trailblaze import Session

NETWORK_FILE = "network.ndjson"
CONSOLE_FILE = "console.ndjson"
MAX_ENTRIES = 5000


@dataclass
class WebEvidence:
    """Entries hold their time as ``time.time()`` until they are written: formatting a timestamp on
    every request and message would cost the step loop for files most passing runs never write. For the
    same reason a request is kept as it arrived (``_Request``: the Playwright object and what the caller
    read anyway) and its resource type and browser timing are read only when the files are written."""

    network: deque[_Request] = field(default_factory=lambda: deque(maxlen=MAX_ENTRIES))
    console: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_ENTRIES))
    read_back: Callable[[], None] | None = None
    """What completes the network evidence just before its files are written, when the requests were not
    all heard as they ended (``network: errors``: ``PageEvents.read_back``)."""

    def response(self, request: Any, method: str, url: str, status: int) -> None:
        """A request whose response headers arrived (``method``, ``url``, ``status``: read once by the
        caller, each read of a Playwright property goes through its wrappers)."""
        self.network.append(_Request(time.time(), request, {"method": method, "url": url}, "status", status))

    def failed(self, request: Any, method: str, url: str) -> None:
        """A request that ended without a response (refused, aborted, blocked)."""
        self.network.append(_Request(time.time(), request, {"method": method, "url": url}, "failure",
                                     request.failure))

    def http_error(self, url: str, status: int) -> None:
        """A response with HTTP ≥ 400 the browser reported (no Playwright request: method and timing unknown)."""
        self.network.append(_Request(time.time(), None, {"url": url}, "status", status))

    def read(self, request: Any, method: str, url: str, status: int | None) -> None:
        """A request read back from its page (``read_back``); its status when the browser reported one."""
        known = {"method": method, "url": url, "readBack": True}
        self.network.append(_Request(time.time(), request, known, "status" if status is not None else "", status))

    def take_reported(self) -> dict[str, list[int]]:
        """Remove the HTTP errors the browser reported and return them, URL → statuses in order."""
        reported: dict[str, list[int]] = {}
        kept = []
        for r in self.network:
            if r.request is None and r.outcome == "status":
                reported.setdefault(r.known["url"], []).append(r.value)
            else:
                kept.append(r)
        self.network.clear()
        self.network.extend(kept)
        return reported

    def downloaded(self, url: str, file_name: str) -> None:
        """A download's request (Chromium reports none for it: the response became a file)."""
        self.network.append(_Request(time.time(), None, {"method": "GET", "url": url, "resourceType": "download"},
                                     "download", file_name))

    def message(self, kind: str, text: str, url: Any = None, location: Any = None) -> None:
        self.console.append({"ts": time.time(), "type": kind, "text": text, "url": url, "location": location})

    def write(self, log_dir: Path, redact: Callable[[str], str]) -> dict[str, str]:
        """Write both files (redacted) and return ``{"network_log": path, "console_log": path}``."""
        log_dir.mkdir(parents=True, exist_ok=True)
        out = {}
        network = sorted((r.entry() for r in self.network), key=lambda e: e["ts"])  # entered as they ended: shown as sent
        for key, name, entries in (("network_log", NETWORK_FILE, network),
                                   ("console_log", CONSOLE_FILE, self.console)):
            text = "".join(redact(json.dumps({**e, "ts": _iso(e["ts"])}, ensure_ascii=False, default=str)) + "\n"
                           for e in entries)
            path = log_dir / name
            tmp = path.with_name(f".{name}.tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)
            out[key] = name
        return out

    def summary(self) -> dict[str, int]:
        return {"requests": len(self.network),
                "failedRequests": sum(1 for r in self.network if r.failed),
                "consoleErrors": sum(1 for e in self.console if e["type"] in ("error", "pageerror"))}


    def trail_finished(self, session: Session, ok: bool, keep: str) -> None:
        """Write the files when ``keep`` (the ``evidence`` setting) asks for them after this outcome, and
        log where they are; a disk that refuses them is logged, the run's verdict stands."""
        if not session.log.enabled or (keep == "retain-on-failure" and ok):
            return
        if self.read_back is not None:
            self.read_back()
        try:
            files = self.write(session.log_dir, lambda text: str(session.memory.redact(text)))
        except OSError as exc:
            session.log.write("WebArtifactLog", {"error": f"the network and console logs could not be written: {exc}"})
            return
        session.log.write("WebEvidenceLog", {"evidence": files, **self.summary()})


@dataclass(frozen=True)
class _Request:
    """A request as the capture saw it end: when, the Playwright request (None for a download or an HTTP
    error the browser reported), the entry's fields known then, and how it ended (``status``, ``failure``,
    ``download`` with its value; ``""`` for a request read back whose outcome is not known)."""

    ended: float
    request: Any
    known: dict[str, Any]
    outcome: str
    value: Any

    @property
    def failed(self) -> bool:
        return (self.outcome == "failure" and bool(self.value)) or (self.outcome == "status" and self.value >= 400)

    def entry(self) -> dict[str, Any]:
        """The line written: the time the browser sent the request and how long its response's headers
        took (Playwright's own timing, taken in the browser; the time it ended and unknown without one)."""
        entry: dict[str, Any] = {"ts": self.ended, **self.known}
        if self.request is None:
            entry[self.outcome] = self.value
            return entry
        entry["resourceType"] = self.request.resource_type
        try:
            timing = self.request.timing
        except Exception:  # noqa: BLE001 - a request Playwright has no timing for
            timing = {}
        start, headers = timing.get("startTime", -1), timing.get("responseStart", -1)
        if start > 0:
            entry["ts"] = start / 1000
            if headers >= 0:
                entry["durationMs"] = round(headers, 1)
        if self.outcome:
            entry[self.outcome] = self.value
        return entry


def _iso(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(stamp)) + f".{int(stamp * 1000) % 1000:03d}Z"
