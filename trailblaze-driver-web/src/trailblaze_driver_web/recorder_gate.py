"""``ReportGate``: which of the page script's reports the recorder takes.

A report is taken once (the same document can be seen by two sessions), and at most ``max_events_per_s``
actions a second: more is not a person (a page script holding a key down, a flood); the rest of that
second is dropped, said once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .recorder_reports import PageReport


class ReportGate:
    def __init__(self, max_events_per_s: int, warn: Callable[[str], None]) -> None:
        self.max_events_per_s = max_events_per_s
        self._warn = warn
        self._seen: set[str] = set()
        self._window = (0.0, 0, 0)
        """(second it started, actions in it, actions dropped in it)."""

    def first_time(self, report: PageReport) -> bool:
        if report.id in self._seen:
            return False
        self._seen.add(report.id)
        return True

    def admit(self, report: PageReport) -> bool:
        now = time.monotonic()
        start, count, dropped = self._window
        if now - start >= 1.0:
            start, count, dropped = now, 0, 0
        if count >= self.max_events_per_s:
            if not dropped:
                self._warn(f"more than {self.max_events_per_s} events in one second from "
                           f"{report.url or 'the page'}: the rest of that second is not recorded")
            self._window = (start, count, dropped + 1)
            return False
        self._window = (start, count + 1, dropped)
        return True
