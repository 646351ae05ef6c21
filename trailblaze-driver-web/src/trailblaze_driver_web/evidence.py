"""The evidence of a web attempt: every request with its status and timing, every console message and
page error — what a developer asks for first when a trail fails.

Captured in memory from events the driver already listens to (``response``, ``requestfailed``,
``console``, ``pageerror``: no extra round trip per request, and no ``request`` event either — a request
is entered when its response or its failure arrives, with the send time and the time to the response's
headers that Playwright measured in the browser), and written at the end
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
    every request and message would cost the step loop for files most passing runs never write."""

    network: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_ENTRIES))
    console: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_ENTRIES))

    def response(self, request: Any, method: str, url: str, status: int) -> None:
        """A request whose response headers arrived (``method``, ``url``, ``status``: read once by the
        caller, each read of a Playwright property goes through its wrappers)."""
        entry = _sent(request, method, url)
        entry["status"] = status
        self.network.append(entry)

    def failed(self, request: Any, method: str, url: str) -> None:
        """A request that ended without a response (refused, aborted, blocked)."""
        entry = _sent(request, method, url)
        entry["failure"] = request.failure
        self.network.append(entry)

    def downloaded(self, url: str, file_name: str) -> None:
        """A download's request (Chromium reports none for it: the response became a file)."""
        self.network.append({"ts": time.time(), "method": "GET", "url": url, "resourceType": "download",
                             "download": file_name})

    def message(self, kind: str, text: str, url: Any = None, location: Any = None) -> None:
        self.console.append({"ts": time.time(), "type": kind, "text": text, "url": url, "location": location})

    def write(self, log_dir: Path, redact: Callable[[str], str]) -> dict[str, str]:
        """Write both files (redacted) and return ``{"network_log": path, "console_log": path}``."""
        log_dir.mkdir(parents=True, exist_ok=True)
        out = {}
        network = sorted(self.network, key=lambda e: e["ts"])  # entered as they ended: shown as they were sent
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
                "failedRequests": sum(1 for e in self.network
                                      if e.get("failure") or (e.get("status") or 0) >= 400),
                "consoleErrors": sum(1 for e in self.console if e["type"] in ("error", "pageerror"))}


    def trail_finished(self, session: Session, ok: bool, keep: str) -> None:
        """Write the files when ``keep`` (the ``evidence`` setting) asks for them after this outcome, and
        log where they are; a disk that refuses them is logged, the run's verdict stands."""
        if not session.log.enabled or (keep == "retain-on-failure" and ok):
            return
        try:
            files = self.write(session.log_dir, lambda text: str(session.memory.redact(text)))
        except OSError as exc:
            session.log.write("WebArtifactLog", {"error": f"the network and console logs could not be written: {exc}"})
            return
        session.log.write("WebEvidenceLog", {"evidence": files, **self.summary()})


def _sent(request: Any, method: str, url: str) -> dict[str, Any]:
    """An entry with the time the browser sent ``request`` and how long its response's headers took
    (Playwright's own timing, taken in the browser; now and unknown when it has none)."""
    entry: dict[str, Any] = {"ts": time.time(), "method": method, "url": url, "resourceType": request.resource_type}
    try:
        timing = request.timing
    except Exception:  # noqa: BLE001 - a request Playwright has no timing for
        return entry
    start, headers = timing.get("startTime", -1), timing.get("responseStart", -1)
    if start > 0:
        entry["ts"] = start / 1000
        if headers >= 0:
            entry["durationMs"] = round(headers, 1)
    return entry


def _iso(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(stamp)) + f".{int(stamp * 1000) % 1000:03d}Z"
