"""Findings from ``trailblaze check`` and the pre-run checks: errors and advisories."""

from __future__ import annotations

from collections.abc import Iterable
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
    tools_complete: bool = False
    """True when the registry holds every tool the workspace can offer, including those of declared MCP
    servers (``trailblaze check`` started them and listed their tools): a name nobody registers is then
    a mistake (an error), not a tool a server might serve later (an advisory)."""
    findings: list[Finding] = field(default_factory=list)
    deferred: dict[str, list[Finding]] = field(default_factory=dict)
    """Errors that belong to the trails calling a tool (tool name → findings); see ``tool_error``."""
    _seen: set[str] = field(default_factory=set)

    def tool_error(self, tools: Iterable[str], check: str, message: str,
                   location: SourceLocation | None = None) -> None:
        """A mistake inside a tool's own file that only matters when the tool runs (a body passing an
        argument its callee rejects). Upstream decodes tool arguments leniently at run time
        (``TrailblazeYaml.kt``, ``strict = false``), so one bad tool file must not fail every run: it is
        an error of the trails whose recordings call one of ``tools`` (the tool and every tool that
        reaches it), a warning otherwise, and an error now under ``--strict``."""
        if self.strict:
            self.error(check, message, location)
            return
        finding = Finding("error", check, message, location)
        for name in tools:
            self.deferred.setdefault(name, []).append(finding)
        self.advisory(check, f"{message} (an error of the trails that call it)", location)

    def errors_for(self, tools: Iterable[str]) -> list[Finding]:
        """The deferred errors of a trail calling ``tools``, each once."""
        out: list[Finding] = []
        for name in sorted(tools):
            out.extend(f for f in self.deferred.get(name, ()) if f not in out)
        return out

    def error(self, check: str, message: str, location: SourceLocation | None = None) -> None:
        self.findings.append(Finding("error", check, message, location))

    def advisory(self, check: str, message: str, location: SourceLocation | None = None,
                 dedupe_key: str | None = None) -> None:
        key = f"{check}:{dedupe_key or message}"
        if key in self._seen:
            return
        self._seen.add(key)
        self.findings.append(Finding("error" if self.strict else "advisory", check, message, location))

    def unknown_tool(self, check: str, message: str, location: SourceLocation | None = None,
                     dedupe_key: str | None = None) -> None:
        """A tool name no source registers: an error when the registry is complete, else an advisory
        that says why it could not be decided."""
        if self.tools_complete:
            self.error(check, message, location)
        else:
            self.advisory(check, f"{message} (not decided: MCP tool servers were not started, so the tools they "
                          "serve are not known yet)",
                          location, dedupe_key=dedupe_key)

    def exempt(self, check: str, message: str, location: SourceLocation | None, target: str, reason: str) -> None:
        """A finding in a recorded tool call of a target whose trailmap says ``trail_validation.exempt``:
        reported, never fatal (not even under ``--strict``), as upstream's ``check`` treats it."""
        self.findings.append(Finding("advisory", check, f"{message} (not fatal: target '{target}' is exempt from "
                                     f"trail validation: {reason})", location))

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
