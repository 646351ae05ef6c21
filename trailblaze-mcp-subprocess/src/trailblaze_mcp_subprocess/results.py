"""Mapping a ``tools/call`` result to a Trailblaze result (upstream ``CallToolResult.toTrailblazeToolResult``).

* ``isError`` false or missing → success; message = the first text block; structured content kept.
* ``isError`` true → failure; message = the first text block, else a fixed sentence; structured
  content dropped.
* A result whose structured content (or first text block, parsed as JSON) has ``_trailblaze_delegates``
  is a *delegating* result: Trailblaze runs those calls itself, so they are what gets recorded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from trailblaze import ToolCall, ToolExpansionError, ToolResult

from .wire import CallOutcome

NO_TEXT_ERROR = "Subprocess tool returned isError=true with no text content."
DELEGATES_KEY = "_trailblaze_delegates"
_SHAPE_KEYS = frozenset({"tool", "name", "args", "arguments"})


def to_tool_result(outcome: CallOutcome) -> ToolResult:
    first = outcome.texts[0] if outcome.texts else None
    if outcome.is_error:
        return ToolResult(False, first if first else NO_TEXT_ERROR)
    return ToolResult(True, first, outcome.structured)


def delegates_of(outcome: CallOutcome, *, tool: str) -> list[ToolCall] | None:
    """The calls a delegating tool returned, or None when the result is not a delegation."""
    if outcome.is_error:
        return None
    container: Any = outcome.structured if isinstance(outcome.structured, Mapping) else None
    if container is None or DELEGATES_KEY not in container:
        container = None
        if outcome.texts and DELEGATES_KEY in outcome.texts[0]:
            try:
                parsed = json.loads(outcome.texts[0])
            except ValueError:
                parsed = None
            if isinstance(parsed, Mapping):
                container = parsed
    if container is None or DELEGATES_KEY not in container:
        return None
    raw = container[DELEGATES_KEY]
    if not isinstance(raw, list):
        raise ToolExpansionError(f"tool '{tool}' returned {DELEGATES_KEY} that is not a list: {raw!r}")
    calls: list[ToolCall] = []
    for i, item in enumerate(raw):
        calls.append(_delegate(item, tool, i))
    return calls


def _delegate(item: Any, tool: str, index: int) -> ToolCall:
    """``{"tool": name, "args": {...}}`` (Decision 029), ``{"name", "arguments"}`` or ``{name: {...}}``."""
    if isinstance(item, Mapping):
        name = item.get("tool", item.get("name"))
        if isinstance(name, str):
            args = item.get("args", item.get("arguments")) or {}
            if isinstance(args, Mapping):
                return ToolCall(name, dict(args))
        elif len(item) == 1:
            ((key, value),) = item.items()
            if isinstance(key, str) and key not in _SHAPE_KEYS and (value is None or isinstance(value, Mapping)):
                return ToolCall(key, dict(value or {}))
    raise ToolExpansionError(f"tool '{tool}' returned an invalid delegate #{index + 1}: {item!r} "
                             "(expected {\"tool\": name, \"args\": {...}})")
