"""The agent loop: solve one natural-language step by letting a model call tools.

Per model call (upstream §9, ``TrailblazeRunner``): capture the screen (snapshot text with refs, plus a
screenshot for vision models) → build a *fresh* request (system prompt, the step, earlier steps,
remembered values, this step's calls and results so far, the screen) → redact every secret value from
it → send it (retrying provider errors with backoff) → run the tool calls it returns through the same
dispatcher replay uses → repeat until ``objectiveStatus`` COMPLETED/FAILED, a failed assertion, a
stuck loop, or the per-step call cap. Invalid calls (unknown tool, bad arguments, stale refs) are
answered to the model as tool errors; the run goes on. The model's state, the retrying call, the
screen capture and the redaction are ``model_calls.py``; the secret-parameter rule is ``secret_guard.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import BadInputError, ExitCode, InfrastructureError
from ..llm.budget import budget_of
from ..llm.types import LlmImage, LlmMessage, LlmRequest, LlmResponse, LlmToolCall
from ..session import SessionOutcome
from ..tools.base import ToolCall
from . import prompts
from .detectors import STUCK_ABORT_AT, STUCK_HINT_AT, StaleRefDetector, StuckLoopDetector
from .model_calls import AgentState, agent_state, capture_screen, complete_with_retries, redacted_request
from .recording import recording_from_executed
from .screen_view import FULL_SNAPSHOT_SPEC, FULL_SNAPSHOT_TOOL, ScreenView
from .secret_guard import misplaced_secret
from .tool_offer import FETCH_TOOL, ToolOffer

if TYPE_CHECKING:
    from ..llm.registry import LlmProviderRegistry
    from ..session import Session
    from ..tools.base import ToolDefinition
    from ..trail.model import Trail, TrailStep

MAX_SNAPSHOT_CHARS = 60_000
MAX_RESULT_CHARS = 2_000


class LlmNotConfiguredError(BadInputError):
    """A step needs the agent and no model is configured (exit 3)."""


@dataclass
class StepSolveResult:
    """What ``solve_step`` returns to the runner."""

    success: bool
    message: str | None
    outcome: SessionOutcome | None
    """None on success; ``Failed`` or ``MaxCallsLimitReached`` otherwise."""
    exit_code: ExitCode
    calls: list[ToolCall] = field(default_factory=list)
    """The top-level calls that ran for this step (as authored by the model)."""
    recording: list[ToolCall] = field(default_factory=list)
    """The recording generated from what ran (§8); empty = write no recording."""
    llm_call_count: int = 0
    llm_cost_usd: float = 0.0
    attempts: int = 0
    llm_tokens: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    """Input tokens served from the provider's prompt cache (counted in ``input_tokens`` too)."""


def solve_step(session: "Session", step: "TrailStep", *, trail: "Trail | None" = None, options: Any = None,
               self_heal: bool = False, attempt_context: str | None = None,
               providers: "LlmProviderRegistry | None" = None) -> StepSolveResult:
    """Solve ``step`` with the configured model on ``session``'s device.

    :param trail: the trail the step belongs to (earlier steps and ``context`` go into the prompt).
    :param options: the run options (``llm``, ``max_llm_calls``, ``use_recorded_steps``); defaults to
        ``session.options.run``.
    :param self_heal: the step's recording just failed and the agent takes over (logged as such).
    :param attempt_context: what went wrong before (e.g. the failed recorded call), told to the model.
    :param providers: the LLM provider types (the runner's host's); defaults to those the session's
        opener kept (``llm.registry.PROVIDERS_KEY``).
    :raises LlmNotConfiguredError: no model is configured (exit 3).
    :raises InfrastructureError: the provider kept failing (exit 2).
    """
    options = options if options is not None else session.options.run
    if getattr(options, "use_recorded_steps", None) is True and not self_heal:
        raise BadInputError(f"step {step.number} has no recording for this device and --use-recorded-steps "
                            "forbids the agent")
    state = agent_state(session, options, providers=providers)
    if state is None:
        raise LlmNotConfiguredError(needs_llm_message(session, step))
    trail = trail if trail is not None else session.trail
    return StepAgent(session, state, step, trail, self_heal=self_heal, attempt_context=attempt_context).run()


def needs_llm_message(session: "Session", step: "TrailStep") -> str:
    where = f"{step.location}: " if step.location and step.location.file else ""
    classifier = "-".join(session.device.classifiers) or session.device.driver
    what = "is marked recordable: false" if not step.recordable else f"has no recording for '{classifier}'"
    text = " ".join((step.text or "").split())
    return (f"{where}step {step.number} (\"{text[:80]}\") {what} and needs an LLM to run; configure one with "
            "--llm provider/model, TRAILBLAZE_DEFAULT_MODEL, or llm.defaults.model in trails/config/trailblaze.yaml "
            "(see docs/agent.md)")


def offered_tools(session: "Session", *, verify: bool) -> list["ToolDefinition"]:
    """The tools the model may call: the session's toolbox for its driver, ``surface_to_llm`` only,
    narrowed by plugins (toolsets); on ``verify:`` steps only verification tools."""
    from ..session import session_tools

    return session_tools(session, for_llm=True, verification_only=verify)


def tool_specs(session: "Session", tools: list["ToolDefinition"], provider: str | None = None) -> list[dict[str, Any]]:
    """Neutral descriptors (name, description, JSON Schema) of ``tools`` plus ``objectiveStatus``, as
    the plugins describe them for the model ``provider`` type (``trailblaze_tool_descriptor``)."""
    specs = []
    for t in tools:
        d = session.codec.describe(t, provider)
        specs.append({"name": d.name, "description": d.description, "parameters": d.llm_input_schema})
    specs.append(dict(prompts.OBJECTIVE_STATUS_TOOL))
    return specs


@dataclass
class _Stop:
    success: bool
    message: str
    outcome: SessionOutcome | None = None
    retry: bool = True


class StepAgent:
    """Runs the loop for one step. One instance per ``solve_step`` call."""

    def __init__(self, session: "Session", state: AgentState, step: "TrailStep", trail: "Trail | None", *,
                 self_heal: bool = False, attempt_context: str | None = None) -> None:
        self.session = session
        self.state = state
        self.step = step
        self.trail = trail
        self.self_heal = self_heal
        self.attempt_context = attempt_context
        self.verify = step.kind == "verify"
        self.tools = offered_tools(session, verify=self.verify)
        self.offer = ToolOffer(session, self.tools, state.model.provider_cls.type, trail=trail)
        self.offered = {t.name: t for t in self.tools}
        self.view = ScreenView()
        self.kept_screens: list[LlmMessage] = []
        """The big screens kept in this attempt's conversation (``screen_view``), by identity."""
        self.llm_calls = 0
        self.cost = 0.0
        self.tokens = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.cached_tokens = 0
        self.stale = StaleRefDetector()
        self.stuck = StuckLoopDetector()
        self.hints: list[str] = []
        self.assertions_passed = 0
        self.logged_descriptors = False

    # -- the step ---------------------------------------------------------------------------------
    def run(self) -> StepSolveResult:
        session, step = self.session, self.step
        first = len(session.executed)
        if self.self_heal:
            session.log.write("SelfHealInvokedLog", {"stepIndex": step.index, "description": step.text,
                                                     "reason": self.attempt_context})
        attempts = (step.max_retries or 0) + 1
        previous = self.attempt_context
        stop = _Stop(False, "the agent made no attempt")
        attempt = 0
        for attempt in range(1, attempts + 1):
            stop = self._attempt(attempt, previous)
            if stop.success or not stop.retry or attempt == attempts:
                break
            previous = stop.message
        ran = session.executed[first:]
        calls = [e.authored for e in ran if e.depth == 0]
        failed_code = ExitCode.INFRASTRUCTURE if stop.outcome is SessionOutcome.ERROR else ExitCode.TRAIL_FAILED
        result = StepSolveResult(
            success=stop.success, message=stop.message, outcome=None if stop.success else (stop.outcome or SessionOutcome.FAILED),
            exit_code=ExitCode.SUCCESS if stop.success else failed_code, calls=calls,
            recording=recording_from_executed(ran) if stop.success else [], llm_call_count=self.llm_calls,
            llm_cost_usd=self.cost, attempts=attempt, llm_tokens=self.tokens, input_tokens=self.input_tokens,
            output_tokens=self.output_tokens, cached_tokens=self.cached_tokens)
        session.log.write("TrailblazeAgentTaskStatusChangeLog", {
            "stepIndex": step.index, "status": "Succeeded" if stop.success else (result.outcome or SessionOutcome.FAILED).value,
            "message": stop.message, "attempts": attempt, "llmCallCount": self.llm_calls, "llmCostUsd": round(self.cost, 6),
            "selfHeal": self.self_heal, "recording": [c.to_json() for c in result.recording]})
        return result

    @property
    def specs(self) -> list[dict[str, Any]]:
        """The descriptors sent in full (the tool offer's; grows when the model fetches one)."""
        return self.offer.specs

    def _attempt(self, attempt: int, previous_failure: str | None) -> _Stop:
        history: list[LlmMessage] = []
        self.view = ScreenView()
        self.kept_screens = []
        while True:
            if self.llm_calls >= self.state.max_llm_calls:
                return _Stop(False, f"reached the limit of {self.state.max_llm_calls} LLM calls for this step "
                                    "(--max-llm-calls)", SessionOutcome.MAX_CALLS_LIMIT_REACHED, retry=False)
            budget = budget_of(self.session.resources)
            if budget is not None and budget.exhausted:
                return _Stop(False, f"stopped before LLM call {self.llm_calls + 1} of this step: {budget.reason()}",
                             SessionOutcome.ERROR, retry=False)
            snapshot, truncated, image = self._capture()
            self.stale.new_screen(snapshot)
            request = self._request(history, snapshot, truncated, image, previous_failure)
            self.hints = []
            response = self._call_model(request, attempt, image)
            history.append(LlmMessage("assistant", response.text, list(response.tool_calls)))
            if not response.tool_calls:
                self.hints.append("Your last answer called no tool. Every answer must call a tool; call "
                                  "objectiveStatus when the step is done or impossible.")
                continue
            for tc in response.tool_calls:
                message, is_error, stop = self._run_call(tc)
                limit = MAX_SNAPSHOT_CHARS if tc.name == FULL_SNAPSHOT_TOOL else MAX_RESULT_CHARS
                history.append(LlmMessage("tool", _clip(self.session.memory.redact(message), limit),
                                          tool_call_id=tc.id, tool_name=tc.name, is_error=is_error))
                if stop is not None:
                    return stop

    # -- screen and request -----------------------------------------------------------------------
    def _capture(self) -> tuple[str, bool, LlmImage | None]:
        text, image = capture_screen(self.session.driver, vision=self.state.model.vision)
        limit = min(MAX_SNAPSHOT_CHARS, self.state.model.context_length * 2)
        truncated = len(text) > limit
        if truncated:
            text = text[:limit]
        return text, truncated, image

    def _request(self, history: list[LlmMessage], snapshot: str, truncated: bool, image: LlmImage | None,
                 previous_failure: str | None) -> LlmRequest:
        """The request for this look. The static part (system text, tools) comes first and is the same for
        every request of the trail; a big screen stays in ``history`` so the next look can be a diff."""
        session, step, trail = self.session, self.step, self.trail
        steps = list(trail.steps) if trail is not None else [step]
        earlier = [(f"[{s.actor}] " if s.actor else "") + s.text.strip()
                   for s in steps if s.index < step.index and s.text]
        numbered = [s for s in steps if s.kind != "trailhead"]
        memory = session.memory
        secret_keys = sorted(k for k in memory.sensitive_keys if k in memory)
        objective = prompts.objective_text(
            step_text=step.text or "", verify=self.verify, number=step.number, total=len(numbered), earlier=earlier,
            memory=memory.snapshot(), secret_keys=secret_keys, previous_failure=previous_failure,
            heal=self.self_heal, actor=step.actor)
        hints = list(self.hints)
        turn = self.view.look(snapshot)
        screen = prompts.screen_text(snapshot=turn.text, hints=hints, platform=session.device.platform,
                                     truncated=truncated, diff=turn.diff)
        context = trail.config.context if trail is not None else None
        system = prompts.system_prompt(platform=session.device.platform, verify=False,
                                       target_prompts=_target_prompts(session), context=context,
                                       tools_text=self.offer.system_text())
        if turn.reset:
            history[:] = [m for m in history if not any(m is kept for kept in self.kept_screens)]
            self.kept_screens = []
        screen_message = LlmMessage("user", screen, images=[image] if image is not None else [])
        if turn.kept:
            self.offer.add(FULL_SNAPSHOT_SPEC)
            self.kept_screens.append(LlmMessage("user", screen))
            history.append(self.kept_screens[-1])
            messages = [LlmMessage("user", objective), *history[:-1], screen_message]
        else:
            messages = [LlmMessage("user", objective), *history, screen_message]
        model = self.state.model
        request = LlmRequest(model=model.model.id, system=system, messages=messages, tools=list(self.specs),
                             temperature=model.model.temperature, max_output_tokens=min(model.max_output_tokens, 8192))
        return redacted_request(request, memory)

    # -- the provider -----------------------------------------------------------------------------
    def _call_model(self, request: LlmRequest, attempt: int, image: LlmImage | None) -> LlmResponse:
        screenshot = None
        if image is not None:
            n = self.state.llm_call_count + 1
            screenshot = self.session.log.write_file(f"llm_{self.step.number:03d}_{n:03d}.png", image.data).name

        def failed(message: str, duration_ms: int, retry: int) -> None:
            self._log_request(request, None, attempt, duration_ms, screenshot, error=message, retry=retry)

        response, duration, cost = complete_with_retries(self.state, request, hint=f"step {self.step.number}",
                                                         on_failure=failed)
        self.llm_calls += 1
        self.cost += cost or 0.0
        usage = response.usage
        self.tokens += usage.input_tokens + usage.output_tokens  # the run's budget is charged by complete_with_retries
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cached_tokens += usage.cached_input_tokens
        self._log_request(request, response, attempt, duration, screenshot, cost=cost)
        return response

    def _log_request(self, request: LlmRequest, response: LlmResponse | None, attempt: int, duration_ms: int,
                     screenshot: str | None, *, cost: float | None = None, error: str | None = None,
                     retry: int = 0) -> None:
        payload: dict[str, Any] = {
            "stepIndex": self.step.index, "attempt": attempt, "instructions": self.step.text,
            "llmModel": {"provider": self.state.model.provider_id, "modelId": self.state.model.model.id,
                         "type": self.state.model.provider_cls.type},
            "systemPrompt": request.system,
            "messages": [m.to_json() for m in request.messages],
            "toolOptions": [*(t["name"] for t in request.tools), *self.offer.deferred],
            "durationMs": duration_ms,
        }
        if not self.logged_descriptors:
            payload["toolDescriptors"] = request.tools
            self.logged_descriptors = True
        if screenshot:
            payload["screenshot"] = screenshot
        if response is not None:
            payload["response"] = {"text": response.text, "finishReason": response.finish_reason,
                                   "toolCalls": [c.to_json() for c in response.tool_calls]}
            payload["actions"] = [{"name": c.name, "args": c.arguments} for c in response.tool_calls]
            payload["usage"] = response.usage.to_json()
            payload["costUsd"] = None if cost is None else round(cost, 8)
        if error is not None:
            payload["error"] = error
            payload["retry"] = retry
        self.session.log.write("TrailblazeLlmRequestLog", payload)

    # -- running what the model asked for ---------------------------------------------------------
    def _run_call(self, tc: LlmToolCall) -> tuple[str, bool, _Stop | None]:
        """Run one model tool call; returns (result text for the model, is_error, stop or None).

        Every call but an accepted ``objectiveStatus`` counts for stuck-loop detection, invalid ones
        included: a model repeating the same unknown tool is as stuck as one tapping a dead button."""
        message, is_error, stop = self._execute_call(tc)
        if stop is not None or (tc.name == prompts.OBJECTIVE_STATUS and not is_error):
            return message, is_error, stop
        times = self.stuck.record(tc.name, tc.arguments if tc.arguments is not None else {"raw": tc.raw_arguments},
                                  f"{is_error}:{message}")
        if times >= STUCK_ABORT_AT:
            return message, is_error, _Stop(False, f"stuck: called {tc.name} {times} times with the same arguments "
                                                   f"and the same result ({_clip(message, 160)})", retry=False)
        if times >= STUCK_HINT_AT:
            self.hints.append(StuckLoopDetector.hint(tc.name, times))
        return message, is_error, stop

    def _execute_call(self, tc: LlmToolCall) -> tuple[str, bool, _Stop | None]:
        if tc.arguments is None:
            return f"invalid call to '{tc.name}': {tc.parse_error}", True, None
        if tc.name == prompts.OBJECTIVE_STATUS:
            return self._objective_status(tc.arguments)
        if tc.name == FETCH_TOOL:
            message, is_error = self.offer.fetch(tc.arguments)
            return message, is_error, None
        if tc.name == FULL_SNAPSHOT_TOOL:
            text, truncated, _ = self._capture()
            self.stale.new_screen(text)
            return ("Current screen" + (" (truncated)" if truncated else "") + ":\n" + text), False, None
        if tc.name not in self.offered:
            available = ", ".join([*sorted(self.offered), prompts.OBJECTIVE_STATUS])
            why = " (verify steps may only use verification tools)" if self.verify and tc.name in self.session.registry else ""
            return f"unknown tool '{tc.name}'{why}; available tools: {available}", True, None
        stale = self.stale.check(tc.arguments)
        if stale is not None:
            return stale, True, None
        misplaced = misplaced_secret(self.offered[tc.name], tc.arguments, self.session.memory, self.offered)
        if misplaced is not None:
            return misplaced, True, None
        from ..errors import ToolFailure

        ctx = self.session.context(step_index=self.step.index)
        try:
            result = self.session.dispatcher.call(ToolCall(tc.name, tc.arguments), ctx)
        except BadInputError as exc:  # unknown tool, bad arguments, bad expansion: the model's mistake
            return f"error: {exc.message}" + (f" ({exc.hint})" if exc.hint else ""), True, None
        except ToolFailure as exc:
            result_text, ok = exc.message, False
        else:
            result_text, ok = (result.message or ("ok" if result.success else "failed")), result.success
        definition = self.offered[tc.name]
        if definition.is_verification:
            if not ok:
                return result_text, True, _Stop(False, f"assertion failed: {tc.name}: {result_text}")
            self.assertions_passed += 1
            if self.verify:
                return result_text, False, _Stop(True, f"verified: {tc.name}: {result_text}")
        return (result_text if ok else f"failed: {result_text}"), not ok, None

    def _objective_status(self, args: dict[str, Any]) -> tuple[str, bool, _Stop | None]:
        status = str(args.get("status", "")).strip().upper()
        explanation = str(args.get("explanation") or args.get("description") or "").strip()
        self.session.log.write("ObjectiveStatusLog", {"stepIndex": self.step.index, "status": status,
                                                      "explanation": explanation})
        if status == "COMPLETED":
            has_assertions = any(t.is_verification for t in self.tools)
            if self.verify and has_assertions and self.assertions_passed == 0:
                return ("not accepted: a verify step is completed by a passing verification tool call; check the "
                        "statement with one of them"), True, None
            return "step completed", False, _Stop(True, explanation or "completed")
        if status == "FAILED":
            return "step failed", False, _Stop(False, f"the agent gave up: {explanation or 'no reason given'}")
        if status == "IN_PROGRESS":
            return "noted; continue", False, None
        return f"invalid status {status!r}: use COMPLETED, FAILED or IN_PROGRESS", True, None


# -- helpers --------------------------------------------------------------------------------------
def _target_prompts(session: "Session") -> list[str]:
    """The target's own system prompt (``session.target_info``, from ``trailblaze_target_info``)."""
    info = session.target_info
    return [info.system_prompt] if info is not None and info.system_prompt else []


def _clip(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
