"""``--max-llm-cost``: one spending cap for every model call of a run, across its trails and devices.

The runner puts one ``CostBudget`` into each session's resources; the one path every model call takes
(``agent/model_calls.complete_with_retries``: the agent's requests and the memory tools' questions) asks
it before the request and adds the request's cost after it. Once the run has spent its cap, no step is
handed to the model any more: the step that needed it ends as ERROR with ``CostBudget.reason`` (and is
not retried: the next attempt would find the budget spent too).
"""

from __future__ import annotations

import threading
from typing import Any

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


def budget_of(resources: dict[str, Any]) -> CostBudget | None:
    found = resources.get(BUDGET_KEY)
    return found if isinstance(found, CostBudget) else None
