"""``--max-llm-cost``: one spending cap for every model call of a run, across its trails and devices.

The runner puts one ``CostBudget`` into each session's resources; the one path every model call takes
(``agent/model_calls.complete_with_retries``: the agent's requests and the memory tools' questions) asks
it before the request and adds the request's cost after it. Once the run has spent its cap, no step is
handed to the model any more: the step that needed it ends as ERROR with ``CostBudget.reason`` (and is
not retried: the next attempt would find the budget spent too).

The xdist workers of one run (``trailblaze run -n``, ``pytest -n``) are separate processes: their
``SharedCostBudget`` keeps the run's total in a small file they share, so the cap is the run's, not each
worker's.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from ..errors import InfrastructureError

BUDGET_KEY = "trailblaze.llm_budget"
FAILURE_KIND = "LlmCostLimit"


class LlmCostLimit(InfrastructureError):
    """A model call was not sent because the run's budget is spent (a memory tool's question, say):
    exit 2, and the trail is not retried (its ``failure_kind`` is ``FAILURE_KIND``)."""


class CostBudget:
    def __init__(self, limit_usd: float | None) -> None:
        self.limit_usd = limit_usd
        self.spent_usd = 0.0
        self.tokens = 0
        self._lock = threading.Lock()

    def add(self, cost_usd: float | None, tokens: int) -> None:
        with self._lock:
            self.spent_usd += cost_usd or 0.0
            self.tokens += tokens

    @property
    def exhausted(self) -> bool:
        return self.limit_usd is not None and self.spent_usd >= self.limit_usd

    def reason(self) -> str:
        return (f"the run's LLM budget is spent: ${self.spent_usd:.4f} of --max-llm-cost "
                f"${self.limit_usd or 0:.4f} "
                "(raise --max-llm-cost, or record the steps so they replay without the model)")


class SharedCostBudget(CostBudget):
    """One cap for several processes: each request's cost is added to a running total in ``path`` (the
    run's, next to its workers' output directories) under an exclusive lock, and ``exhausted`` reads that
    total. A worker can overshoot by the requests already in flight in the other workers when the cap is
    reached, as threads of one process can."""

    def __init__(self, limit_usd: float | None, path: Path) -> None:
        super().__init__(limit_usd)
        self.path = path

    def add(self, cost_usd: float | None, tokens: int) -> None:
        super().add(cost_usd, tokens)
        if cost_usd:
            with _locked(self.path) as handle:  # read, add, write back: one writer at a time
                total = _read_total(handle) + cost_usd
                handle.seek(0)
                handle.truncate()
                handle.write(repr(total))

    def total_usd(self) -> float:
        """What every process of the run has spent so far."""
        if not self.path.exists():
            return 0.0
        with _locked(self.path) as handle:
            return _read_total(handle)

    @property
    def exhausted(self) -> bool:
        return self.limit_usd is not None and self.total_usd() >= self.limit_usd

    def reason(self) -> str:
        return (f"the run's LLM budget is spent: ${self.total_usd():.4f} of --max-llm-cost "
                f"${self.limit_usd or 0:.4f} (all workers together; raise --max-llm-cost, or record the steps "
                "so they replay without the model)")


def llm_spend_file(run_id: str | None) -> str:
    """The name of a run's shared total, in the output directory its workers write below."""
    return f".llm-spend-{run_id or 'run'}"


@contextmanager
def _locked(path: Path) -> Iterator[IO[str]]:
    """``path`` open for reading and writing under an exclusive ``flock`` (the workers' shared total)."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            handle.seek(0)
            yield handle
        finally:
            handle.flush()
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _read_total(handle: IO[str]) -> float:
    try:
        return float(handle.read().strip() or 0.0)
    except ValueError:  # not a total this module wrote: count from zero rather than stop the run
        return 0.0


def budget_of(resources: dict[str, Any]) -> CostBudget | None:
    found = resources.get(BUDGET_KEY)
    return found if isinstance(found, CostBudget) else None
