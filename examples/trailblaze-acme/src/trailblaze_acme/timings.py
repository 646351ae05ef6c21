"""An observer plugin: prints how long every tool call took, whatever kind of tool it is.

It wraps ``trailblaze_execute_tool``, the hook every call the dispatcher makes goes through, so it
sees class tools, YAML tools and MCP tools alike without touching any driver or tool. It is the
distribution's second entry point (pyproject.toml), so a user turns off just the timings with
``TRAILBLAZE_DISABLE_PLUGINS=acme_timings`` and keeps the tools::

    [project.entry-points.trailblaze]
    acme = "trailblaze_acme.plugin"
    acme_timings = "trailblaze_acme.timings"

Each call prints one stderr line: ``acme timing: web_click [class] 12.3 ms``. A delegating call (a
YAML tool) is timed for its expansion; the calls it expands into are dispatched, and timed, after it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Generator
from typing import Any

from trailblaze import ToolCall, ToolDefinition, hookimpl


@hookimpl(wrapper=True)
def trailblaze_execute_tool(call: ToolCall, definition: ToolDefinition) -> Generator[None, Any, Any]:
    started = time.perf_counter()
    try:
        return (yield)
    finally:
        elapsed_ms = (time.perf_counter() - started) * 1000
        print(f"acme timing: {call.name} [{definition.kind}] {elapsed_ms:.1f} ms", file=sys.stderr, flush=True)
