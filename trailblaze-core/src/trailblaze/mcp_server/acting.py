"""Acting on the workbench's device: direct tool calls, a step given as tool calls, and a step the agent
solves, each run as a step of the session (plugins told) and recorded on the pending trail.

A batch of calls (one MCP tool call, the ``tools`` list of a ``step``, or a step the agent solved) is
turned into recorded calls by ``recording_from_executed`` over the slice of ``session.executed`` it
produced — refs become stable selectors, non-recordable tools drop out — so a trail written here replays
exactly like one the agent wrote during ``trailblaze run``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BadInputError, TrailblazeError
from ..tools.base import ToolCall
from ..trail.model import Trail, TrailConfig
from .bench_state import RecordedStep, StepKind
from .devices import Devices
from .tool_offer import ToolOffer
from .trail_recording import TrailRecording, auto_text, tokenized

__all__ = ["DeviceActions", "Outcome"]


@dataclass
class Outcome:
    """What one session tool call did, already redacted."""

    success: bool
    message: str
    recorded: list[ToolCall] = field(default_factory=list)
    step: RecordedStep | None = None
    data: Any = None
    tools_changed: bool = False
    """The call changed the offered tools (a tool server reloaded its tools): clients must be told."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"success": self.success, "message": self.message,
                               "recorded": [c.to_json() for c in self.recorded]}
        if self.step is not None:
            out["step"] = {"kind": self.step.kind, "text": self.step.text}
        if self.data is not None:
            out["data"] = self.data
        return out


class DeviceActions:
    """Runs calls and agent steps on the connected device (device thread) and records what they did."""

    def __init__(self, devices: Devices, offer: ToolOffer, recording: TrailRecording) -> None:
        self.devices = devices
        self.offer = offer
        self.recording = recording

    def call_tool(self, name: str, args: Mapping[str, Any] | None, *, step_text: str | None = None) -> Outcome:
        """One direct tool call, recorded under ``step_text`` (default: what it did)."""
        definition = self.offer.offered(self.devices.require().session, name)
        kind: StepKind = "verify" if definition.is_verification else "step"
        return self._run_calls([ToolCall(name, dict(args or {}))], step_text, kind)

    def run_tools(self, text: str, kind: StepKind, items: list[Any]) -> Outcome:
        """A ``step``/``verify`` given as a list of tool calls (``[{name: {args}}]``): no model involved."""
        from ..tools.serialization import ToolCallFormatError

        session = self.devices.require().session
        calls: list[ToolCall] = []
        for i, item in enumerate(items):
            try:
                call = session.codec.decode_yaml_item(item)
            except ToolCallFormatError as exc:
                raise BadInputError(f"tools[{i}]: {exc}") from None
            definition = self.offer.offered(session, call.name)
            if kind == "verify" and not definition.is_verification:
                raise BadInputError(f"tools[{i}]: '{call.name}' is not a verification tool; a verify step only checks",
                                    hint="use 'step' for actions")
            calls.append(call)
        if not calls:
            raise BadInputError("'tools' is empty: give at least one {toolName: {args}}")
        return self._run_calls(calls, require_text(text), kind)

    def solve(self, text: str, kind: StepKind) -> Outcome:
        """A natural-language step solved by the agent with the configured model."""
        from ..agent import LlmNotConfiguredError, solve_step

        c = self.devices.require()
        text = require_text(text)
        steps = self.recording.with_new_step(kind, text)
        step = steps[-1]
        trail = Trail(path=Path("<trailblaze mcp>"), format="unified",
                      config=TrailConfig(title=self.recording.name, target=c.session.target), steps=steps)
        c.lifecycle.step_started(step)
        ok = False
        try:
            result = solve_step(c.session, step, trail=trail, options=c.options)
            ok = result.success
        except LlmNotConfiguredError:
            raise BadInputError("no model is configured for natural-language steps",
                                hint="start `trailblaze mcp --llm provider/model` (or set llm: in trailblaze.yaml), "
                                     "or pass 'tools' to run the step's tool calls directly") from None
        finally:
            c.lifecycle.step_finished(step, ok)
        memory = c.session.memory
        recorded = tokenized(list(result.recording), memory) if result.success else []
        recorded_step = self.recording.record(kind, text, c.classifier, recorded) if result.success else None
        message = str(memory.redact(result.message or ("done" if result.success else "failed")))
        outcome = Outcome(result.success, message, recorded, recorded_step,
                          {"llmCalls": result.llm_call_count, "calls": [memory.redact(x.to_json()) for x in result.calls]})
        outcome.tools_changed = self.offer.refresh(c.session)
        return outcome

    def _run_calls(self, calls: list[ToolCall], text: str | None, kind: StepKind) -> Outcome:
        c = self.devices.require()
        session, memory = c.session, c.session.memory
        current = self.recording.with_new_step(kind, text)[-1]
        ctx = session.context(step_index=current.index)
        first = len(session.executed)
        messages: list[str] = []
        ok = True
        error: TrailblazeError | None = None
        from ..agent.secret_guard import misplaced_secret

        offered = {t.name: t for t in self.offer.offered_tools(session)}
        c.lifecycle.step_started(current)
        try:
            for call in calls:
                # The rule that guards the agent guards a client: a {{secret}} only in a sensitive parameter.
                definition = session.registry.get(call.name)
                refusal = None if definition is None else misplaced_secret(definition, call.args, memory,
                                                                           offered)
                if refusal is not None:
                    error, ok = BadInputError(refusal), False
                    break
                try:
                    result = session.dispatcher.call(call, ctx)
                except BadInputError as exc:  # unknown tool, bad arguments: the caller's mistake, told as such
                    error, ok = exc, False
                    break
                messages.append(result.message or ("ok" if result.success else f"{call.name} failed"))
                if not result.success:
                    ok = False
                    break
        except BaseException:
            ok = False
            raise
        finally:
            c.lifecycle.step_finished(current, ok)
        from ..agent.recording import recording_from_executed

        recorded = tokenized(recording_from_executed(session.executed[first:]), memory)
        step = None
        if recorded:
            step_text = text or auto_text(messages, calls, memory)
            step = self.recording.record(kind, str(memory.redact(step_text)), c.classifier, recorded)
        if error is not None:
            detail = f"{error.message}" + (f" ({error.hint})" if error.hint else "")
            messages.append(f"error: {detail}")
        outcome = Outcome(ok, str(memory.redact("\n".join(messages))), recorded, step)
        outcome.tools_changed = self.offer.refresh(session)
        return outcome


def require_text(text: str | None) -> str:
    if not text or not text.strip():
        raise BadInputError("a step needs natural-language text (the 'objective' or 'assertion')")
    return " ".join(text.split())
