"""The session's model: its state, one call with the provider's retry policy, what it is shown of the
screen, and the request with every secret taken out.

Shared by the step agent (``loop.py``), the one-question screen queries of the memory tools
(``screen_query.py``) and the MCP agent client (``agent_client.py``), so every model call of a session is
counted, priced and redacted in one place.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import BadInputError, InfrastructureError
from ..llm.budget import CostBudget, LlmCostLimit, budget_of
from ..llm.config import DEFAULT_MAX_LLM_CALLS, ResolvedModel, load_settings, resolve_model
from ..llm.registry import LlmProvider, LlmProviderRegistry, ProviderError, providers_of
from ..llm.types import LlmImage, LlmMessage, LlmRequest, LlmResponse, LlmToolCall

if TYPE_CHECKING:
    from ..session import Session

STATE_KEY = "trailblaze.agent"
DEFAULT_MAX_RETRIES = 4
DEFAULT_BACKOFF_SECONDS = 1.0
MAX_BACKOFF_SECONDS = 30.0


@dataclass
class AgentState:
    """Per-session agent state (``session.resources["trailblaze.agent"]``): the model, its client and
    the session totals."""

    model: ResolvedModel
    provider: LlmProvider
    max_llm_calls: int
    llm_call_count: int = 0
    llm_cost_usd: float = 0.0
    budget: CostBudget | None = None
    """The run's ``--max-llm-cost`` (from the session's resources): every model call of the session is
    checked against it and charged to it here, the agent's and the memory tools' alike."""

    def close(self) -> None:
        self.provider.close()


def agent_state(session: "Session", options: Any = None, *,
                providers: LlmProviderRegistry | None = None) -> AgentState | None:
    """The session's agent state, created on first use; None when no model is configured.

    ``providers`` are the provider types (the runner passes its host's); without them, those the
    session's opener kept in its resources (``llm.registry.PROVIDERS_KEY``)."""
    state = session.resources.get(STATE_KEY)
    if isinstance(state, AgentState):
        state.budget = budget_of(session.resources)
        return state
    types = providers if providers is not None else providers_of(session.resources)
    if types is None:
        raise InfrastructureError("this session has no LLM provider types: it was built by hand; open it "
                                  "with SessionFactory or trailblaze.testing.make_session, or pass providers=")
    cli_llm = getattr(options, "llm", None)
    model = resolve_model(session.workspace, types, cli_llm=cli_llm)
    if model is None:
        return None
    cap = getattr(options, "max_llm_calls", None)
    if cap is None:
        cap = load_settings(session.workspace, types).max_llm_calls
    if cap is not None and cap < 1:
        raise BadInputError(f"--max-llm-calls must be at least 1, got {cap}")
    state = AgentState(model, model.create_provider(), cap or DEFAULT_MAX_LLM_CALLS,
                       budget=budget_of(session.resources))
    session.resources[STATE_KEY] = state
    return state


def capture_screen(driver: Any, *, vision: bool) -> tuple[str, LlmImage | None]:
    """What a model is shown of the device: its snapshot text, and a screenshot for vision models."""
    text = "(no device)"
    if driver is not None:
        try:
            text = driver.snapshot()
        except (NotImplementedError, BadInputError):  # a driver with no screen
            text = "(this driver shows no screen text)"
        except InfrastructureError:
            raise
        except Exception as exc:  # noqa: BLE001 - a flaky snapshot is told to the model, not fatal
            text = f"(could not read the screen: {type(exc).__name__}: {exc})"
    image = None
    if vision and driver is not None:
        try:
            data = driver.screenshot()
        except InfrastructureError:
            raise
        except Exception:  # noqa: BLE001
            data = None
        if data:
            image = LlmImage(data, _media_type(data))
    return text, image


def complete_with_retries(state: AgentState, request: LlmRequest, *, hint: str,
                          on_failure: Callable[[str, int, int], None] | None = None,
                          ) -> tuple[LlmResponse, int, float | None]:
    """One model call with the provider's retry policy, counted in the session totals.

    Returns the response, its duration in ms and its cost (None when the model has no prices).
    ``on_failure(message, duration_ms, retry)`` sees each failed try (the agent logs them).
    :raises LlmCostLimit: the run's ``--max-llm-cost`` is spent; no request is sent (exit 2, not retried).
    :raises InfrastructureError: the provider failed for good (exit 2)."""
    if state.budget is not None and state.budget.exhausted:
        raise LlmCostLimit(state.budget.reason(), hint=hint)
    spec = state.model.provider
    retries = spec.max_retries if spec.max_retries is not None else DEFAULT_MAX_RETRIES
    backoff = spec.retry_backoff_seconds
    if backoff is None:
        backoff = DEFAULT_BACKOFF_SECONDS
    for i in range(retries + 1):
        t0 = time.perf_counter()
        try:
            response = state.provider.complete(request)
        except ProviderError as exc:
            if on_failure is not None:
                on_failure(exc.message, int((time.perf_counter() - t0) * 1000), i)
            if not exc.retryable or i == retries:
                tries = f" after {i + 1} attempts" if i else ""
                raise InfrastructureError(f"{exc.message}{tries}",
                                          hint=f"model {state.model.ref}; {hint}") from None
            delay = exc.retry_after if exc.retry_after is not None else backoff * (2 ** i)
            time.sleep(min(MAX_BACKOFF_SECONDS, max(0.0, delay)))
            continue
        duration = int((time.perf_counter() - t0) * 1000)
        usage = response.usage
        cost = state.model.cost(usage.input_tokens, usage.output_tokens, usage.cached_input_tokens,
                                usage.cache_write_tokens)
        state.llm_call_count += 1
        state.llm_cost_usd += cost or 0.0
        if state.budget is not None:
            state.budget.add(cost, usage.input_tokens + usage.output_tokens)
        return response, duration, cost
    raise AssertionError("unreachable")  # pragma: no cover


def redacted_request(request: LlmRequest, memory: Any) -> LlmRequest:
    """The request with every secret value replaced (the prompt never asks for secrets, but a screen or a
    tool result may show one)."""
    if not memory.secret_values():
        return request
    messages = []
    for m in request.messages:
        calls = [LlmToolCall(c.id, c.name, memory.redact(c.arguments), memory.redact(c.raw_arguments), c.parse_error)
                 for c in m.tool_calls]
        messages.append(LlmMessage(m.role, memory.redact(m.content), calls, m.tool_call_id, m.tool_name, m.images,
                                   m.is_error))
    return LlmRequest(request.model, memory.redact(request.system), messages, request.tools, request.temperature,
                      request.max_output_tokens, request.require_tool)


def _media_type(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "image/png"


__all__ = ["DEFAULT_BACKOFF_SECONDS", "DEFAULT_MAX_RETRIES", "MAX_BACKOFF_SECONDS", "STATE_KEY", "AgentState",
           "agent_state", "capture_screen", "complete_with_retries", "redacted_request"]
