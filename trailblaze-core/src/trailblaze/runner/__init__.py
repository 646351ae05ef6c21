"""``trailblaze run``: find trails, start devices, replay recordings or hand steps to the agent."""

from __future__ import annotations

from ..results.model import RunResult, StepResult, TrailResult
from .options import RunOptions

__all__ = ["RunOptions", "RunResult", "StepResult", "TrailResult"]
