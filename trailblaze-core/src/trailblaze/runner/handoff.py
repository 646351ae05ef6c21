"""The agent hand-off of the step loop: a step without a usable recording (or whose recording failed,
under self-heal) goes to the model, and what the model recorded is written back into the trail file
(only each step's device slot changes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ExitCode, TrailblazeError
from ..llm import budget as _budget
from ..results.model import StepResult
from ..session import Session, SessionOutcome
from ..tools.base import ToolCall

if TYPE_CHECKING:
    from ..llm.budget import CostBudget
    from ..llm.registry import LlmProviderRegistry
    from ..trail.model import Trail, TrailStep
    from .options import RunOptions
    from .progress import Progress


class StepFailed(Exception):
    """Internal: a step failed; carries the exit code and message for the trail result."""

    def __init__(self, message: str, code: ExitCode, outcome: SessionOutcome = SessionOutcome.FAILED,
                 kind: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.outcome = outcome
        self.kind = kind


class AgentHandoff:
    """Hands a step to the agent for one run: with the run's ``options`` (``--llm``, ``--max-llm-calls``),
    its shared cost ``budget`` and the LLM provider types (``providers``, asked when a step first needs
    them); its lines go to ``progress``."""

    def __init__(self, options: RunOptions, progress: Progress, budget: CostBudget,
                 providers: Callable[[], LlmProviderRegistry]) -> None:
        self.options = options
        self.progress = progress
        self.budget = budget
        self._providers = providers

    @property
    def over_budget(self) -> bool:
        """The run's ``--max-llm-cost`` is spent: no further step goes to the model."""
        return self.budget.exhausted

    def solve(self, session: Session, step: "TrailStep", trail: "Trail", *, self_heal: bool,
              attempt_context: str | None = None) -> "AgentOutcome":
        from ..agent import LlmNotConfiguredError, solve_step

        if self.budget.exhausted:
            raise StepFailed(f"step {step.number} not handed to the model: {self.budget.reason()}"
                             + not_run(trail, step, including=True), ExitCode.INFRASTRUCTURE,
                             SessionOutcome.ERROR, _budget.FAILURE_KIND)
        try:
            out = solve_step(session, step, trail=trail, options=self.options, self_heal=self_heal,
                             attempt_context=attempt_context, providers=self._providers())
        except LlmNotConfiguredError as exc:
            raise StepFailed(exc.message, ExitCode.BAD_INPUT, SessionOutcome.ERROR, "NeedsLlm") from None
        return AgentOutcome(out.success, out.message, out.outcome, out.exit_code, out.llm_call_count,
                            out.llm_cost_usd, list(out.recording), out.llm_tokens, out.input_tokens,
                            out.output_tokens, out.cached_tokens, list(out.calls))

    def save_recordings(self, trail: "Trail", session: Session,
                         saves: list[tuple[int, str, list[ToolCall] | None]]) -> None:
        """Write the agent's recordings back into the trail file, unproven: only each step's device slot
        changes. A run decides through ``RecordingSaveBack.settle`` (``runner/heal_check.py``), which
        proves them first."""
        if saves and trail.path.is_file():
            self.write_back(trail, session, self.writable(trail, saves))

    def writable(self, trail: "Trail", saves: list[tuple[int, str, list[ToolCall] | None]]
                 ) -> list[tuple[int, str, list[ToolCall] | None]]:
        """The recordings that can be written (a trailhead records exactly one call); the rest are noted."""
        writable = []
        for index, classifier, calls in saves:
            step = trail.steps[index]
            if step.kind == "trailhead" and calls is not None and len(calls) != 1:
                self.progress.note(f"  ! trailhead recording not saved: it took {len(calls)} calls and a trailhead "
                                     "records exactly one (wrap them in a YAML tool)")
                continue
            writable.append((index, classifier, calls))
        return writable

    def write_back(self, trail: "Trail", session: Session,
                   writable: list[tuple[int, str, list[ToolCall] | None]]) -> bool:
        """Write ``writable`` into the trail file (one locked read-splice-write); whether it was written."""
        if not writable:
            return False
        from ..trail.saveback import save_recordings

        try:
            save_recordings(trail.path, writable, codec=session.codec, original=trail)
        except TrailblazeError as exc:
            self.progress.note(f"  ! could not save recordings into {trail.path}: {exc}")
            return False
        session.log.write("RecordingSavedLog", {"trailFilePath": str(trail.path), "updates": [
            {"stepIndex": i, "classifier": c, "recording": [x.to_json() for x in calls or []]} for i, c, calls in writable]})
        steps = ", ".join(str(trail.steps[i].number) for i, _, _ in writable)
        self.progress.note(f"  ↳ saved recording{'s' if len(writable) > 1 else ''} for step{'s' if len(writable) > 1 else ''} "
                             f"{steps} ({writable[0][1]}) into {trail.path}")
        return True


@dataclass
class AgentOutcome:
    """What the agent did with one step, as the step loop records it."""

    success: bool
    message: str | None
    outcome: SessionOutcome | None
    exit_code: ExitCode
    llm_call_count: int = 0
    llm_cost_usd: float = 0.0
    recording: list[ToolCall] | None = None
    llm_tokens: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    calls: list[ToolCall] | None = None
    """The top-level calls the model made (as it wrote them)."""

    def step_result(self, step: "TrailStep", mode: str, reason: str, *, message: str | None = None,
                    tool: str | None = None) -> StepResult:
        """The step's result as the agent left it: ``mode`` ``ai`` or ``self-heal``, why it ran (``reason``)."""
        return StepResult(step.index, step.kind, step.text, mode, self.success, self.message or message, tool,
                          llm_call_count=self.llm_call_count, llm_cost_usd=self.llm_cost_usd,
                          recording=self.recording, llm_tokens=self.llm_tokens, reason=reason,
                          input_tokens=self.input_tokens, output_tokens=self.output_tokens,
                          cached_tokens=self.cached_tokens, tool_calls=self.calls)



def not_run(trail: "Trail", step: "TrailStep", *, including: bool = False) -> str:
    """``; steps 3–5 not run`` for the steps after ``step`` (and ``step`` itself with ``including``)."""
    numbers = [s.number for s in trail.steps if s.index > step.index or (including and s is step)]
    if not numbers:
        return ""
    if len(numbers) == 1:
        return f"; step {numbers[0]} not run"
    return f"; steps {numbers[0]}–{numbers[-1]} not run"

