"""The evidence of a web attempt: every request with its status and timing, every console message and
page error — what a developer asks for first when a trail fails.

Captured in memory from events the driver already listens to (``request``, ``response``,
``requestfailed``, ``console``, ``pageerror``: no extra round trip per request), and written at the end
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
from typing import Any

NETWORK_FILE = "network.ndjson"
CONSOLE_FILE = "console.ndjson"
MAX_ENTRIES = 5000


@dataclass
class WebEvidence:
    network: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_ENTRIES))
    console: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_ENTRIES))
    _sent: dict[int, tuple[float, dict[str, Any]]] = field(default_factory=dict)

    def request(self, request: Any) -> None:
        entry = {"ts": _now(), "method": request.method, "url": request.url,
                 "resourceType": request.resource_type}
        self._sent[id(request)] = (time.perf_counter(), entry)
        self.network.append(entry)

    def response(self, response: Any) -> None:
        sent = self._sent.pop(id(response.request), None)
        if sent is None:
            return
        started, entry = sent
        entry["status"] = response.status
        entry["durationMs"] = round((time.perf_counter() - started) * 1000, 1)

    def failed(self, request: Any) -> None:
        sent = self._sent.pop(id(request), None)
        if sent is None:
            return
        started, entry = sent
        entry["failure"] = request.failure
        entry["durationMs"] = round((time.perf_counter() - started) * 1000, 1)

    def message(self, kind: str, text: str, url: Any = None, location: Any = None) -> None:
        self.console.append({"ts": _now(), "type": kind, "text": text, "url": url, "location": location})

    def write(self, log_dir: Path, redact: Callable[[str], str]) -> dict[str, str]:
        """Write both files (redacted) and return ``{"network_log": path, "console_log": path}``."""
        log_dir.mkdir(parents=True, exist_ok=True)
        out = {}
        for key, name, entries in (("network_log", NETWORK_FILE, self.network),
                                   ("console_log", CONSOLE_FILE, self.console)):
            text = "".join(redact(json.dumps(e, ensure_ascii=False, default=str)) + "\n" for e in entries)
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


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}Z"
