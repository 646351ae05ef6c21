"""Findings from ``trailblaze check`` and the pre-run checks: errors and advisories."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .errors import SourceLocation


@dataclass(frozen=True)
class Finding:
    severity: Literal["error", "advisory"]
    check: str
    message: str
    location: SourceLocation | None = None

    def render(self) -> str:
        where = f"{self.location}: " if self.location is not None and self.location.file is not None else ""
        label = "error" if self.severity == "error" else "warning"
        return f"{where}{label}: [{self.check}] {self.message}"


@dataclass
class CheckReport:
    """Collects findings. Advisories are deduplicated by ``dedupe_key`` (one line per tool/source)."""

    strict: bool = False
    findings: list[Finding] = field(default_factory=list)
    _seen: set[str] = field(default_factory=set)

    def error(self, check: str, message: str, location: SourceLocation | None = None) -> None:
        self.findings.append(Finding("error", check, message, location))

    def advisory(self, check: str, message: str, location: SourceLocation | None = None,
                 dedupe_key: str | None = None) -> None:
        key = f"{check}:{dedupe_key or message}"
        if key in self._seen:
            return
        self._seen.add(key)
        self.findings.append(Finding("error" if self.strict else "advisory", check, message, location))

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def advisories(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "advisory"]

    @property
    def ok(self) -> bool:
        return not self.errors

__all__ = [
    "CheckReport", "Finding",
]
