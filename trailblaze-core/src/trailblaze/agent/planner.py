"""The planner: the agent explores an app towards a goal and writes down the steps a test of it needs.

``trailblaze plan`` runs it. It is the step agent's loop turned around: instead of carrying out a step
it is given, the model looks at the screen, moves around with the tools it is offered, and *records*
what a test should do through two planning tools of its own — ``plan_step {kind, text, why}`` and
``plan_done {summary}`` — so what comes back is structured, never parsed from prose. Every model call
goes through the session's one model path (``model_calls``: retries, pricing, redaction).

Read-only by default: the model is offered only the tools whose metadata says they change no data of
the app (``ToolDefinition.is_read_only``: snapshot, scroll, navigate, back, wait) and the verifications;
``allow_actions`` offers the session's whole toolbox, as ``trailblaze run``'s agent has it. Bounded by
model calls (``max_steps``) and by cost (``max_cost_usd``); a bound reached ends the exploration with
what was planned so far (``PlanReport.stopped``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..errors import BadInputError, ToolFailure
from ..llm.types import LlmMessage, LlmRequest, LlmResponse, LlmToolCall
from ..tools.base import ToolCall
from . import prompts
from .detectors import StaleRefDetector
from .model_calls import AgentState, capture_screen, complete_with_retries, redacted_request
from .secret_guard import misplaced_secret

if TYPE_CHECKING:
    from ..session import Session
    from ..tools.base import ToolDefinition

PLAN_STEP = "plan_step"
PLAN_DONE = "plan_done"
DEFAULT_MAX_STEPS = 30
MAX_SNAPSHOT_CHARS = 60_000
MAX_RESULT_CHARS = 2_000

PlanKind = Literal["step", "verify"]

PLANNER_PROMPT = """\
You are Trailblaze's test planner. You explore an app to write a test plan for a goal: the steps a \
person would take and the checks that prove the goal was reached.
Each turn shows the current screen as text, one element per line led by its ref (e.g. [e12]).
- Explore with the tools you are offered; use refs from the latest screen only.
- Record each test step with plan_step, in the order a test runs them: kind "step" for an action \
("Open the cart", "Sign in with the remembered email and password"), kind "verify" for a check of what \
the screen shows ("The cart lists one item"). Write what to do, never refs or coordinates; give why.
- When the plan reaches the goal, call plan_done with a one-paragraph summary of what you explored."""

READ_ONLY_PROMPT = """\
You may only look and move around: you cannot click buttons, type or change anything. Plan the actions \
a test should take from what you see; they are carried out later, when the test runs."""

PLAN_STEP_TOOL: dict[str, Any] = {
    "name": PLAN_STEP,
    "description": "Add the next step of the test plan.",
    "parameters": {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["step", "verify"],
                     "description": "step: an action; verify: a check of what the screen shows."},
            "text": {"type": "string", "description": "The step in plain words, as a test author writes it."},
            "why": {"type": "string", "description": "One sentence: why the test needs this step."},
        },
        "required": ["kind", "text"],
    },
}

PLAN_DONE_TOOL: dict[str, Any] = {
    "name": PLAN_DONE,
    "description": "Finish: the plan reaches the goal.",
    "parameters": {
        "type": "object",
        "properties": {"summary": {"type": "string", "description": "What you explored and what the plan covers."}},
        "required": ["summary"],
    },
}


@dataclass(frozen=True)
class PlanBounds:
    """How far the planner may go: model calls, and money (None: no cap)."""

    max_steps: int = DEFAULT_MAX_STEPS
    max_cost_usd: float | None = None


@dataclass
class PlanItem:
    kind: PlanKind
    text: str
    why: str = ""


@dataclass
class PlanReport:
    """What the planner found; ``plan_files`` turns it into the draft trail and the Markdown plan."""

    goal: str
    read_only: bool
    items: list[PlanItem] = field(default_factory=list)
    explored: list[str] = field(default_factory=list)
    """One line per tool call the model made on the device (name, arguments, result)."""
    offered: list[str] = field(default_factory=list)
    summary: str = ""
    stopped: str | None = None
    """Why exploring ended before ``plan_done`` (a bound), or None when the model finished."""
    llm_calls: int = 0
    cost_usd: float | None = None
    """None when the model has no prices."""
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def finished(self) -> bool:
        return self.stopped is None


def normalized_goal(goal: str) -> str:
    """The goal on one line; an empty one is bad input (checked before a device starts, too)."""
    text = " ".join(goal.split())
    if not text:
        raise BadInputError("the goal is empty", hint='say what to test: --goal "buy one item and see it in the cart"')
    return text


def planner_tools(session: Session, *, allow_actions: bool) -> list[ToolDefinition]:
    """The device tools the planner's model is offered: the step agent's set (``session_tools`` for the
    LLM), narrowed, unless ``allow_actions``, to tools whose metadata says they change nothing
    (``is_read_only``) and the verifications (an assertion changes nothing either)."""
    from ..session import session_tools

    tools = session_tools(session, for_llm=True)
    if allow_actions:
        return tools
    return [t for t in tools if t.is_read_only or t.is_verification]


class Planner:
    """One exploration towards one goal on one session's device."""

    def __init__(self, session: Session, state: AgentState, goal: str, *, bounds: PlanBounds | None = None,
                 allow_actions: bool = False, progress: Callable[[str], None] | None = None) -> None:
        bounds = bounds if bounds is not None else PlanBounds()
        if bounds.max_steps < 1:
            raise BadInputError(f"--max-steps must be at least 1, got {bounds.max_steps}")
        if bounds.max_cost_usd is not None and state.model.cost(1_000_000, 0) is None:
            raise BadInputError(f"--max-cost needs the price of model {state.model.ref}",
                                hint="set its cost in the llm: settings of trailblaze.yaml (docs/agent.md), or "
                                     "drop --max-cost and bound the plan with --max-steps")
        self.session = session
        self.state = state
        self.goal = normalized_goal(goal)
        self.bounds = bounds
        self.progress = progress or (lambda _line: None)
        self.tools = {t.name: t for t in planner_tools(session, allow_actions=allow_actions)}
        provider = state.model.provider_cls.type
        self.specs = [_spec(session, t, provider) for t in self.tools.values()] + [PLAN_STEP_TOOL, PLAN_DONE_TOOL]
        self.report = PlanReport(goal=self.goal, read_only=not allow_actions, offered=[s["name"] for s in self.specs])
        self.stale = StaleRefDetector()
        self.hints: list[str] = []
        self._cost = 0.0
        self._priced = state.model.cost(1, 1) is not None

    def run(self) -> PlanReport:
        history: list[LlmMessage] = []
        report = self.report
        while True:
            stop = self._bound_reached()
            if stop is not None:
                report.stopped = stop
                break
            snapshot, truncated = self._screen()
            self.stale.new_screen(snapshot)
            response = self._ask(history, snapshot, truncated)
            history.append(LlmMessage("assistant", response.text, list(response.tool_calls)))
            if not response.tool_calls:
                self.hints.append("Your last answer called no tool. Every answer must call a tool; call plan_done "
                                  "when the plan reaches the goal.")
                continue
            finished = False
            for tc in response.tool_calls:
                message, is_error, finished = self._run_call(tc)
                history.append(LlmMessage("tool", _clip(self.session.memory.redact(message)), tool_call_id=tc.id,
                                          tool_name=tc.name, is_error=is_error))
                if finished:
                    break
            if finished:
                break
        report.cost_usd = round(self._cost, 6) if self._priced else None
        return report

    # -- bounds, screen, request --------------------------------------------------------------------
    def _bound_reached(self) -> str | None:
        if self.report.llm_calls >= self.bounds.max_steps:
            return f"reached --max-steps {self.bounds.max_steps} before the model called {PLAN_DONE}"
        cap = self.bounds.max_cost_usd
        if cap is not None and self._cost >= cap:
            return f"spent ${self._cost:.4f} of --max-cost ${cap:.4f} before the model called {PLAN_DONE}"
        return None

    def _screen(self) -> tuple[str, bool]:
        text, _image = capture_screen(self.session.driver, vision=False)
        limit = min(MAX_SNAPSHOT_CHARS, self.state.model.context_length * 2)
        return text[:limit], len(text) > limit

    def _ask(self, history: list[LlmMessage], snapshot: str, truncated: bool) -> LlmResponse:
        session = self.session
        parts = [PLANNER_PROMPT]
        platform_text = prompts.PLATFORM_PROMPTS.get(session.device.platform)
        if platform_text:
            parts.append(platform_text)
        if self.report.read_only:
            parts.append(READ_ONLY_PROMPT)
        info = session.target_info
        if info is not None and info.system_prompt:
            parts.append(info.system_prompt.strip())
        screen = prompts.screen_text(snapshot=snapshot, hints=self.hints, platform=session.device.platform,
                                     truncated=truncated)
        self.hints = []
        model = self.state.model
        request = LlmRequest(model=model.model.id, system="\n\n".join(parts),
                             messages=[LlmMessage("user", self._objective()), *history, LlmMessage("user", screen)],
                             tools=self.specs, temperature=model.model.temperature,
                             max_output_tokens=min(model.max_output_tokens, 8192))
        response, _duration, cost = complete_with_retries(self.state, redacted_request(request, session.memory),
                                                          hint="trailblaze plan")
        self.report.llm_calls += 1
        self._cost += cost or 0.0
        self.report.input_tokens += response.usage.input_tokens
        self.report.output_tokens += response.usage.output_tokens
        return response

    def _objective(self) -> str:
        lines = [f"Goal: {self.goal}",
                 f"Model call {self.report.llm_calls + 1} of at most {self.bounds.max_steps}."]
        if self.report.items:
            lines.append("The plan so far:")
            lines.extend(f"{i}. {item.kind}: {item.text}" for i, item in enumerate(self.report.items, 1))
        else:
            lines.append("The plan has no steps yet.")
        memory = self.session.memory
        keys = sorted(memory.snapshot()) + sorted(k for k in memory.sensitive_keys if k in memory)
        if keys:
            lines.append("Values a test can use as {{name}}: " + ", ".join(keys))
        return "\n".join(lines)

    # -- the model's calls --------------------------------------------------------------------------
    def _run_call(self, tc: LlmToolCall) -> tuple[str, bool, bool]:
        """Run one call; returns (result text for the model, is_error, the plan is finished)."""
        if tc.arguments is None:
            return f"invalid call to '{tc.name}': {tc.parse_error}", True, False
        if tc.name == PLAN_STEP:
            return self._plan_step(tc.arguments)
        if tc.name == PLAN_DONE:
            return self._plan_done(tc.arguments)
        if tc.name not in self.tools:
            why = " (read-only: it may change the app; this plan may only look and move around)" \
                if self.report.read_only and tc.name in self.session.registry else ""
            available = ", ".join([*sorted(self.tools), PLAN_STEP, PLAN_DONE])
            return f"unknown tool '{tc.name}'{why}; available tools: {available}", True, False
        message, is_error = self._device_call(tc.name, tc.arguments)
        line = f"{tc.name} {_args_text(self.session.memory.redact(tc.arguments))} → {_clip(message, 160)}"
        self.report.explored.append(line)
        self.progress(f"  [{self.report.llm_calls}/{self.bounds.max_steps}] {line}")
        return message, is_error, False

    def _device_call(self, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        stale = self.stale.check(args)
        if stale is not None:
            return stale, True
        misplaced = misplaced_secret(self.tools[name], args, self.session.memory, self.tools)
        if misplaced is not None:
            return misplaced, True
        try:
            result = self.session.dispatcher.call(ToolCall(name, args), self.session.context())
        except BadInputError as exc:  # bad arguments, unknown ref: the model's mistake, told to it
            return f"error: {exc.message}" + (f" ({exc.hint})" if exc.hint else ""), True
        except ToolFailure as exc:
            return f"failed: {exc.message}", True
        text = result.message or ("ok" if result.success else "failed")
        return (text if result.success else f"failed: {text}"), not result.success

    def _plan_step(self, args: dict[str, Any]) -> tuple[str, bool, bool]:
        kind = str(args.get("kind") or "step").strip().lower()
        text = " ".join(str(args.get("text") or "").split())
        if kind not in ("step", "verify"):
            return f"invalid kind {kind!r}: use step or verify", True, False
        if not text:
            return "the step has no text: say what the test does", True, False
        memory = self.session.memory
        item = PlanItem("verify" if kind == "verify" else "step", memory.redact(text),
                        memory.redact(" ".join(str(args.get("why") or "").split())))
        self.report.items.append(item)
        self.progress(f"  + {item.kind}: {item.text}")
        return f"added as step {len(self.report.items)}", False, False

    def _plan_done(self, args: dict[str, Any]) -> tuple[str, bool, bool]:
        if not self.report.items:
            return "the plan has no steps: add them with plan_step first", True, False
        self.report.summary = self.session.memory.redact(" ".join(str(args.get("summary") or "").split()))
        return "plan finished", False, True


def _spec(session: Session, tool: ToolDefinition, provider: str | None) -> dict[str, Any]:
    d = session.codec.describe(tool, provider)
    return {"name": d.name, "description": d.description, "parameters": d.llm_input_schema}


def _args_text(args: Any) -> str:
    if not isinstance(args, dict) or not args:
        return "{}"
    return "{" + ", ".join(f"{k}: {_clip(str(v), 60)}" for k, v in args.items()) + "}"


def _clip(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["DEFAULT_MAX_STEPS", "PLAN_DONE", "PLAN_STEP", "PlanBounds", "PlanItem", "PlanReport", "Planner",
           "normalized_goal", "planner_tools"]
