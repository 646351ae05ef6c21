"""The run as Markdown (``run --markdown``, upstream's flag of the same name): a table a CI job can paste
into a pull-request comment or ``$GITHUB_STEP_SUMMARY``, redacted like every other output."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..results.model import RunResult, TrailResult


def _cell(text: str) -> str:
    """One table cell: a pipe or a line break would end the cell or the row."""
    return " ".join(text.replace("|", "\\|").split())


def _seconds(trail: TrailResult) -> str:
    done = trail.completed_at or time.time()
    return f"{max(done - trail.started_at, 0.0):.1f}s"


def render_markdown(result: RunResult) -> str:
    """The run's results line, then one row per trail and device (status, title, device, duration, the
    first line of a failure)."""
    lines = ["# Trailblaze run", "", result.results_line(), "",
             "| Status | Trail | Device | Duration | Failure |", "|---|---|---|---|---|"]
    for trail in result.trails:
        first = (trail.message or "").strip().splitlines()[0] if not trail.passed and trail.message else ""
        device = trail.device_label or trail.classifier or trail.platform or ""
        lines.append(f"| {trail.status} | {_cell(trail.title)} | {_cell(device)} | {_seconds(trail)} | {_cell(first)} |")
    return str(result.redact("\n".join(lines) + "\n"))


__all__ = ["render_markdown"]
