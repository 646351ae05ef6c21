"""The run results under the name the runner used first; the model lives in ``trailblaze.run_results``."""

from __future__ import annotations

from ..run_results import OUTCOME_TO_SUMMARY, RunResult, StepResult, TrailResult, results_line

__all__ = ["OUTCOME_TO_SUMMARY", "RunResult", "StepResult", "TrailResult", "results_line"]
