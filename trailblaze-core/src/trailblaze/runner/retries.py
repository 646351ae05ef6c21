"""Retrying a failed trail: which results earn another attempt, and how the attempts are kept.

A retry is a whole new attempt of the trail on the same device: a new session (memory seeded again, a
new log directory), a new driver and so a fresh browser context or app state. Only what another
attempt can change is retried: a failed step or assertion (exit 1) and an infrastructure error
(exit 2). Bad input (exit 3) fails the same way every time, a skipped trail never ran and a cancelled
one was stopped on purpose, so none of them is retried. The last attempt is the trail's result and
carries the earlier ones in ``TrailResult.attempts``: a trail that passed on a retry is FLAKY, and its
first failure stays in the summary, the report, the JUnit XML and the history.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ExitCode
from ..llm.budget import FAILURE_KIND
from ..results.model import TrailResult
from ..session import SessionOutcome

RETRYABLE_EXIT_CODES = frozenset({ExitCode.TRAIL_FAILED, ExitCode.INFRASTRUCTURE})


def should_retry(result: TrailResult) -> bool:
    """A failed or infrastructure-errored attempt; never a pass, a skip, a cancel or bad input."""
    if result.passed or result.outcome in (SessionOutcome.SKIPPED, SessionOutcome.CANCELLED):
        return False
    if result.failure_kind == FAILURE_KIND:
        return False  # the run's --max-llm-cost is spent: another attempt would stop at the same place
    return result.exit_code in RETRYABLE_EXIT_CODES


def retry_budget(trail_retries: int | None, run_retries: int | None) -> int:
    """The trail's own ``config: retries:`` wins over ``--retries`` (a known slow trail, or 0 for a
    trail that must never be retried)."""
    return max(0, (run_retries or 0) if trail_retries is None else trail_retries)


def run_attempts(attempt: Callable[[], TrailResult], retries: int,
                 on_retry: Callable[[TrailResult, int], None] | None = None) -> TrailResult:
    """Run ``attempt`` until it does not earn a retry or ``retries`` retries are spent.

    ``on_retry(failed, number)`` is told before attempt ``number`` (2-based) starts. Returns the last
    attempt, with the earlier ones in its ``attempts``; an interruption's ``trail_result`` gets them too."""
    tries: list[TrailResult] = []
    try:
        tries.append(attempt())
        while len(tries) <= retries and should_retry(tries[-1]):
            if on_retry is not None:
                on_retry(tries[-1], len(tries) + 1)
            tries.append(attempt())
    except KeyboardInterrupt as exc:
        stopped = getattr(exc, "trail_result", None)
        if isinstance(stopped, TrailResult):  # interrupted on a retry: the earlier attempts stay with it
            stopped.attempts = tries
        raise
    last = tries[-1]
    last.attempts = tries[:-1]
    return last
