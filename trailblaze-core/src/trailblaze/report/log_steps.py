"""A session log read back as steps: each step's tool calls, screenshots, events and model requests.

The HTML report renders from this grouping; it is the reading of the log format (``ObjectiveStartLog`` …
``ObjectiveCompleteLog``, tool logs written as calls complete), apart from how it is shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

TOOL_LOGS = ("TrailblazeToolLog", "DelegatingTrailblazeToolLog")
EVENT_LOGS = {"WebConsoleLog": "console", "WebNetworkLog": "network", "WebDialogLog": "dialog",
              "WebDownloadLog": "download", "WebArtifactLog": "artifact", "WebEvidenceLog": "evidence"}
SETUP_LOGS = ("SetupStartLog", "SetupCompleteLog")
"""Written around the calls a setup trail replays (``runner/setup.py``): they group as a "setup" step."""


@dataclass
class LogStep:
    """One step of a trail as its log tells it; ``index`` is the step's 0-based ``stepIndex``."""

    index: int | None
    kind: str
    text: str
    success: bool | None = None
    mode: str | None = None
    message: str | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    shots: list[dict[str, Any]] = field(default_factory=list)
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    llm: list[dict[str, Any]] = field(default_factory=list)
    """The step's model requests (``TrailblazeLlmRequestLog``), when the agent ran it."""


def group_steps(entries: Iterable[dict[str, Any]]) -> tuple[list[LogStep], list[dict[str, Any]]]:
    """Group log entries by step (ObjectiveStartLog … ObjectiveCompleteLog, and a setup's calls between
    SetupStartLog and SetupCompleteLog as a step of kind "setup"); the rest is returned loose."""
    steps: list[LogStep] = []
    loose: list[dict[str, Any]] = []
    current: LogStep | None = None
    for entry in entries:
        kind = str(entry.get("class", "")).rsplit(".", 1)[-1]
        if kind == "SetupStartLog":
            names = entry.get("setup") or []
            current = LogStep(None, "setup", ", ".join(str(n) for n in names) if isinstance(names, list) else "")
            steps.append(current)
        elif kind == "SetupCompleteLog":
            if current is not None and current.kind == "setup":
                current.success = bool(entry.get("successful"))
                current.message = entry.get("message")
            current = None
        elif kind == "ObjectiveStartLog":
            current = LogStep(entry.get("stepIndex"), str(entry.get("kind") or "step"),
                              str(entry.get("description") or ""))
            steps.append(current)
        elif kind == "ObjectiveCompleteLog":
            if current is not None:
                current.success = bool(entry.get("successful"))
                current.mode = entry.get("mode")
                current.message = entry.get("message")
            current = None
        elif kind in TOOL_LOGS:
            (current.tools if current is not None else loose).append(entry)
        elif kind == "TrailblazeLlmRequestLog":
            (current.llm if current is not None else loose).append(entry)
        elif entry.get("screenshot"):
            if current is not None:
                current.shots.append(entry)
            elif steps and entry.get("stepIndex") == steps[-1].index:
                steps[-1].shots.append(entry)  # the step's screenshot is taken as it completes
            else:
                loose.append(entry)
        elif kind in EVENT_LOGS:
            if current is not None:
                current.events.append((EVENT_LOGS[kind], entry))
            else:
                loose.append(entry)
        else:
            loose.append(entry)
    return steps, loose


def call_order(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parents before their children. Logs are written as calls complete (children first); a call at
    depth d adopts the calls of depth d+1 completed since the previous call at depth d."""
    pending: dict[int, list[tuple[dict[str, Any], list[Any]]]] = {}
    for entry in entries:
        depth = int(entry.get("depth") or 0)
        children = pending.pop(depth + 1, [])
        pending.setdefault(depth, []).append((entry, children))
    out: list[dict[str, Any]] = []

    def walk(node: tuple[dict[str, Any], list[Any]]) -> None:
        out.append(node[0])
        for child in node[1]:
            walk(child)

    for depth in sorted(pending):
        for node in pending[depth]:
            walk(node)
    return out


__all__ = ["EVENT_LOGS", "SETUP_LOGS", "TOOL_LOGS", "LogStep", "call_order", "group_steps"]
