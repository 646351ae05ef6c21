"""``trailblaze run``: find trails, start devices, replay recordings or hand steps to the agent."""

from __future__ import annotations

from .options import RunOptions
from ..run_results import RunResult, StepResult, TrailResult

__all__ = ["RunOptions", "RunResult", "StepResult", "TrailResult"]
