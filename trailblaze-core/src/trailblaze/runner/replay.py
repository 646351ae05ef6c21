"""The step loop of one trail: each step replayed from its recording or handed to the agent
(``runner/handoff.py``), its result recorded; unknown tools and bad arguments are found before any
step runs."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import BadInputError, ExitCode, InfrastructureError, TrailblazeError
from ..llm import budget as _budget
from ..memory import has_tokens
from ..results.model import StepResult, TrailResult
from ..session import Session, SessionOutcome, find_tool, prepare_call
from ..tools.base import ToolCall
from .handoff import AgentHandoff, StepFailed, not_run
from .lifecycle import SessionLifecycle

if TYPE_CHECKING:
    from ..contract.device import StepInfo
    from ..trail.model import Trail, TrailStep
    from .options import RunOptions
    from .progress import Progress


class Stopped(Exception):
    """Another actor of the trail failed, so this one stopped at a step or tool-call boundary."""


@dataclass
class StepRunState:
    """What the steps of one trail run share, across its actors: how the run went so far (modes, whether
    a step was healed), the recordings to save at the end, and the signal to stop."""

    self_heal: bool
    stop: threading.Event | None = None
    modes: set[str] = field(default_factory=set)
    saves: list[tuple[int, str, list[ToolCall] | None]] = field(default_factory=list)
    healed: bool = False

    @property
    def stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()


class StepLoop:
    """Runs a trail's steps in its session: each replayed from its recording or handed to the agent
    (``handoff``), self-healed where allowed, one ``StepResult`` each; lines go to ``progress``, and
    what a failed call's arguments show passes ``redactor``. What the agent recorded is settled by
    ``saveback`` (proven, then written back or proposed: ``runner/heal_check.py``).

    ``replay_only``: never the model (a proving replay): a step without a usable recording fails."""

    def __init__(self, options: RunOptions, progress: Progress, redactor: Callable[[Any], Any],
                 handoff: AgentHandoff, *, replay_only: bool = False) -> None:
        from .heal_check import RecordingSaveBack

        self.options = options
        self.progress = progress
        self.redactor = redactor
        self.handoff = handoff
        self.replay_only = replay_only
        self.saveback = RecordingSaveBack(options, progress, handoff)
        self._lock = threading.Lock()

    def prevalidate(self, trail: "Trail", session: Session, classifiers: list[str],
                    steps: "list[TrailStep] | None" = None) -> None:
        """Unknown tools and malformed arguments are bad input: report them before any step runs, with
        the call's ``file:line``, as the dispatcher would report them (``session.find_tool``). ``steps``:
        only these (one actor's), else all of the trail's."""
        for step in trail.steps if steps is None else steps:
            found = step.recording_for(classifiers)
            if found is None:
                continue
            classifier, calls = found
            for i, call in enumerate(calls):
                try:
                    definition = find_tool(session, call.name)
                    if not has_tokens(call.args):  # interpolated at dispatch: checked then
                        prepare_call(definition, dict(call.args))
                except BadInputError as exc:
                    raise self._located(step, classifier, i, trail, exc) from None

    def _located(self, step: "TrailStep", classifier: str, index: int, trail: "Trail",
                 exc: TrailblazeError) -> TrailblazeError:
        if exc.location is None:
            try:
                from ..trail.parser import locate_call

                exc.location = locate_call(trail, step.index, classifier, index)
            except Exception:  # noqa: BLE001 - locating is best effort
                exc.location = step.location
        return exc

    def run_steps(self, trail: "Trail", lifecycle: SessionLifecycle, classifiers: list[str],
                  result: TrailResult, state: StepRunState | None = None) -> StepRunState:
        """Every step of ``trail`` in order, until one fails (``StepFailed``). The recordings the agent
        made are left in ``state.saves`` (``state``: the caller's, else a new one, returned) for
        ``saveback.settle`` once the session is closed: they are proven before they are written."""
        state = state or self.new_state()
        try:
            for step in trail.steps:
                self.run_step(trail, lifecycle, classifiers, result, step, state)
            self.finish(result, state)
        except BaseException as exc:
            _not_run(trail, lifecycle, result, exc)
            raise
        return state

    def prover(self) -> StepLoop:
        """The loop of a proving replay (``runner/heal_check.py``): the same options and agent hand-off,
        replay only (never the model, nothing healed or saved), and quiet."""
        from dataclasses import replace

        from .progress import QuietProgress

        options = replace(self.options, self_heal=False, save_recording=False)
        return StepLoop(options, QuietProgress(), self.redactor, self.handoff, replay_only=True)

    def new_state(self, stop: threading.Event | None = None) -> StepRunState:
        """What the steps of one trail run share (``stop``: set when another actor failed)."""
        options = self.options
        self_heal = options.self_heal if options.self_heal is not None else \
            os.environ.get("TRAILBLAZE_SELF_HEAL_ENABLED", "").lower() in ("1", "true", "yes")
        self_heal = self_heal and not self.replay_only
        return StepRunState(self_heal=self_heal, stop=stop)

    def finish(self, result: TrailResult, state: StepRunState) -> None:
        """Every step passed: the trail's outcome and execution mode."""
        result.outcome = SessionOutcome.SUCCEEDED_WITH_SELF_HEAL if state.healed else SessionOutcome.SUCCEEDED
        result.exit_code = ExitCode.SUCCESS
        result.execution_mode = _execution_mode(state.modes)

    def run_step(self, trail: "Trail", lifecycle: SessionLifecycle, classifiers: list[str], result: TrailResult,
                 step: "TrailStep", state: StepRunState) -> None:
        """One step in ``lifecycle``'s session: replayed, self-healed or solved; raises ``StepFailed`` when
        it fails and ``Stopped`` when ``state.stop`` was set (before the step, or between two tool calls)."""
        options = self.options
        session = lifecycle.session
        if state.stopped:
            raise Stopped()
        self.progress.step_started(step.number, step.kind, step.text, step.actor)
        started = {"stepIndex": step.index, "kind": step.kind, "description": step.text}
        session.log.write("ObjectiveStartLog", started | ({"actor": step.actor} if step.actor else {}))
        lifecycle.step_started(step)
        t0 = time.perf_counter()
        first_entry = len(session.log.entries)
        found = step.recording_for(classifiers)
        use_recording = found is not None and (step.recordable or step.kind == "tools") and \
            (options.use_recorded_steps is not False or step.kind == "tools" or self.replay_only)
        step_result: StepResult
        if use_recording:
            assert found is not None
            classifier, calls = found
            mode = "noop" if not calls else "replay"
            try:
                ok, message, tool, ran = self._replay(session, step, classifier, calls, trail, state)
            except Stopped:
                stopped = StepResult(step.index, step.kind, step.text, "stopped", False,
                                     "stopped: another actor failed", None, actor=step.actor)
                stopped.duration_ms = int((time.perf_counter() - t0) * 1000)
                self._step_done(lifecycle, step, stopped, result, first_entry)
                raise
            step_result = StepResult(step.index, step.kind, step.text, mode, ok, message, tool, tool_calls=ran)
            if not ok and state.self_heal and step.kind not in ("verify", "tools"):
                agent_result = self.handoff.solve(session, step, trail, self_heal=True, attempt_context=message)
                state.healed = True
                step_result = agent_result.step_result(step, "self-heal", f"recording failed: {message}",
                                                       message=message, tool=tool)
                if agent_result.success and step.recordable and options.save_recording:
                    # The healed recording replaces the broken slot (zero calls: the slot is removed).
                    state.saves.append((step.index, classifier, agent_result.recording or None))
        elif self.replay_only:
            why = _agent_reason(step, found is None)
            step_result = StepResult(step.index, step.kind, step.text, "replay", False,
                                     f"no recording to replay ({why}); a proving replay runs without the model")
        else:
            agent_result = self.handoff.solve(session, step, trail, self_heal=False)
            step_result = agent_result.step_result(step, "ai", _agent_reason(step, found is None))
            if agent_result.success and found is None and step.recordable and options.save_recording \
                    and step.kind != "tools" and agent_result.recording:
                state.saves.append((step.index, "-".join(classifiers), agent_result.recording))
            if agent_result.outcome is not None and not agent_result.success:
                step_result.actor = step.actor
                step_result.duration_ms = int((time.perf_counter() - t0) * 1000)
                self._step_done(lifecycle, step, step_result, result, first_entry)
                message = agent_result.message or "the agent could not complete the step"
                over_budget = agent_result.outcome is SessionOutcome.ERROR and self.handoff.over_budget
                raise StepFailed(message + (not_run(trail, step) if over_budget else ""),
                                 agent_result.exit_code, agent_result.outcome,
                                 _budget.FAILURE_KIND if over_budget else None)
        if not step_result.success and use_recording:
            step_result.recorded = calls
        step_result.actor = step.actor
        state.modes.add(step_result.mode)
        step_result.duration_ms = int((time.perf_counter() - t0) * 1000)
        self._step_done(lifecycle, step, step_result, result, first_entry)
        if not step_result.success:
            outcome = SessionOutcome.FAILED_WITH_SELF_HEAL if state.healed else SessionOutcome.FAILED
            raise StepFailed(_step_failure(step, step_result), ExitCode.TRAIL_FAILED, outcome, "ToolFailure")

    def _step_done(self, lifecycle: SessionLifecycle, step: "TrailStep", step_result: StepResult,
                   result: TrailResult, first_entry: int) -> None:
        session = lifecycle.session
        step_result.actor, step_result.block = step.actor, step.block
        if not step_result.success:
            self._failure_context(session, step, step_result)
        lifecycle.step_finished(step, step_result.success)
        shots = [e for e in session.log.entries[first_entry:] if e.get("screenshot")]
        if shots:
            step_result.screenshot = shots[-1]["screenshot"]
        complete = {"stepIndex": step.index, "kind": step.kind, "description": step.text,
                    "successful": step_result.success, "mode": step_result.mode, "message": step_result.message}
        session.log.write("ObjectiveCompleteLog", complete | ({"actor": step.actor} if step.actor else {}))
        session.log.flush()  # a step boundary: a run killed from here on keeps this step's events
        step_result.number = step.number
        with self._lock:  # the actors of one trail finish steps on their own threads
            result.steps.append(step_result)
            result.llm_call_count += step_result.llm_call_count
            result.llm_cost_usd += step_result.llm_cost_usd
            result.llm_tokens += step_result.llm_tokens
        self.progress.step_finished(step_result)

    def _failure_context(self, session: Session, step: "TrailStep", step_result: StepResult) -> None:
        """What the failure prompt tells beside the error: where the step is written and the screen as the
        failure left it (redacted), read once, only for a failed step."""
        where = step.location
        if where.file is not None:
            step_result.location = f"{where.file}:{where.line}" if where.line is not None else str(where.file)
        from ..agent.model_calls import capture_screen

        try:
            text, _ = capture_screen(session.driver, vision=False)
        except Exception as exc:  # noqa: BLE001 - the screen is evidence, never a second failure
            text = f"(could not read the screen: {type(exc).__name__}: {exc})"
        step_result.screen = self.redactor(text)

    def _replay(self, session: Session, step: "TrailStep", classifier: str, calls: list[ToolCall],
                trail: "Trail", state: StepRunState | None = None
                ) -> tuple[bool, str | None, str | None, list[ToolCall]]:
        """Run the recording; (passed, failure message, failing tool, the calls that ran: the failing one
        last). Nothing per call beyond the dispatch: the calls that ran are the recording's first ones."""
        ctx = session.context(step_index=step.index, replaying=True)
        for i, call in enumerate(calls):
            if state is not None and state.stopped:
                raise Stopped()  # another actor failed: this one stops at its next tool-call boundary
            self.progress.tool_started(step.number, call.name)
            try:
                outcome = session.dispatcher.call(call, ctx)
            except BadInputError as exc:
                raise self._located(step, classifier, i, trail, exc) from None
            except InfrastructureError as exc:
                # A device lost or a plugin's bug mid-step: say which step, which call and where it is
                # written, as a failed call does (the exit code stays 2).
                if exc.location is None:
                    where = self._located(step, classifier, i, trail, BadInputError("")).location
                    label = "verify" if step.kind == "verify" else "step"
                    exc.message = f"{label} {step.number} {_quote(step.text)}: tool '{call.name}' ({where}): {exc.message}"
                raise
            if not outcome.success:
                where = self._located(step, classifier, i, trail, BadInputError("")).location
                args = _short_args(self.redactor(call.args))
                return False, f"tool '{call.name}' ({where}) {args} failed: {outcome.message}", call.name, \
                    calls[: i + 1]
        return True, None, None, calls


def _agent_reason(step: "TrailStep", unrecorded: bool) -> str:
    """Why a step went to the model though nothing failed (a failed recording says ``recording failed``)."""
    if not step.recordable:
        return "recordable: false"
    if unrecorded:
        return "no recording for this device"
    return "recordings not used (--no-use-recorded-steps)"


def _not_run(trail: "Trail", lifecycle: SessionLifecycle, result: TrailResult, exc: BaseException) -> None:
    """The steps an error or an interruption kept from finishing, in the result too: the one it stopped
    (``failed``, unless it had its result already) and those after it (``skipped``)."""
    done = {s.index for s in result.steps}
    current = lifecycle.current_step
    last = max([*done, current.index if current is not None else -1])
    for step in trail.steps:
        if step.index in done:
            continue
        if current is not None and step.index == current.index:
            message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
            entry = StepResult(step.index, step.kind, step.text, "error", False, message)
        elif step.index > last:
            entry = StepResult(step.index, step.kind, step.text, "skipped", False)
        else:
            continue
        entry.number = step.number
        entry.actor, entry.block = step.actor, step.block
        result.steps.append(entry)


def _quote(text: str | None) -> str:
    if not text:
        return "no text"
    text = " ".join(text.split())
    return f'"{text[:80]}…"' if len(text) > 80 else f'"{text}"'


def step_name(step: StepInfo) -> str:
    """A step as messages name it: ``step 2 "Open the cart"``, ``verify 3 "…"``, ``trailhead "…"``."""
    label = {"verify": "verify", "trailhead": "trailhead", "tools": "tools"}.get(step.kind, "step")
    number = "" if step.kind == "trailhead" else f" {step.number}"
    return f"{label}{number} {_quote(step.text)}"


def _step_failure(step: "TrailStep", step_result: StepResult) -> str:
    return f"{step_name(step)}: {step_result.message or 'failed'}"


def _short_args(args: dict[str, Any], limit: int = 300) -> str:
    import json

    text = json.dumps(args, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _execution_mode(modes: set[str]) -> str:
    if "self-heal" in modes:
        return "SELF_HEAL"
    if "ai" in modes and modes & {"replay", "noop"}:
        return "RECORDING_WITH_AI"
    if "ai" in modes:
        return "AI_ONLY"
    return "RECORDING_ONLY"
