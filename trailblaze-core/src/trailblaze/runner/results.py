"""The run results under the name the runner used first; the model lives in ``trailblaze.results.model``."""

from __future__ import annotations

from ..results.model import OUTCOME_TO_SUMMARY, RunResult, StepResult, TrailResult, results_line

__all__ = ["OUTCOME_TO_SUMMARY", "RunResult", "StepResult", "TrailResult", "results_line"]
