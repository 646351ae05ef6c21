"""The state behind ``trailblaze mcp``: the connected device, the calls recorded on it, trail writing.

Nothing here knows MCP; the server module maps it onto the protocol (and tests drive it directly).
Everything that touches the device runs on one dedicated thread: Playwright's sync API, like most
device SDKs, must be used from the thread that started it, while the MCP server lives on an asyncio
loop. ``Workbench.submit`` is the only way in.

Recording is the agent's: a batch of calls (one MCP tool call, the ``tools`` list of a ``step``, or a
step the agent solved) is turned into recorded calls by ``recording_from_executed`` over the slice of
``session.executed`` it produced — refs become stable selectors, non-recordable tools drop out — so a
trail written here replays exactly like one the agent wrote during ``trailblaze run``.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import io
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..errors import BadInputError, TrailblazeError
from ..memory import Redactor
from ..plugins import PluginHost, get_host
from ..runner.lifecycle import SessionFactory
from ..listings.screens import screen_header
from ..session import SessionOutcome
from ..tools.base import ToolCall
from ..trail.model import Trail, TrailConfig, TrailStep, number_steps
from .bench_state import McpSettings, StepKind, _Connected
from .devices import DeviceBench
from .tool_offer import SESSION_TOOLS
from .trail_recording import RecordedStep, TrailRecording

T = TypeVar("T")

PLATFORM_ACTIONS = {"WEB": "web", "ANDROID": "android", "IOS": "ios", "HOST": "host"}
CLOSE_TIMEOUT_S = 120.0
"""How long closing waits for a call still running on the device (a long agent step, a ``wait``)."""


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


class Workbench(DeviceBench, TrailRecording):
    """One ``trailblaze mcp`` process's devices and recording. See the module docstring."""

    def __init__(self, settings: McpSettings | None = None, *, host: PluginHost | None = None) -> None:
        self.settings = settings or McpSettings()
        self.host = host or get_host()
        self._base_options = self.settings.run_options()
        self.factory = SessionFactory(self._base_options, host=self.host)
        self.redactor = Redactor(self.settings.secrets.values())
        """What every result, resource and log line passes through: ``--secret`` values, then each device
        session's own secrets as it opens (the run's one redaction point, as ``trailblaze run`` has)."""
        root = self.settings.workspace.resolve() if self.settings.workspace else None
        self.ws = self.factory.workspace_for(root)
        if self.ws.error is not None:
            raise self.ws.error
        self.connected: _Connected | None = None
        self.steps: list[RecordedStep] = []
        self.trail_name: str | None = None
        self.last_snapshot: str | None = None
        self.tool_descriptors: list[dict[str, Any]] = []
        """The offered device tools as of the last device-thread operation; read by ``tools/list`` without
        waiting for a long call on the device to finish."""
        self._registry_fingerprint: tuple[int, ...] = ()
        self._next_index = 0
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="trailblaze-device")
        self._closed = False
        self._lock = threading.Lock()

    # -- threading --------------------------------------------------------------------------------
    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> "concurrent.futures.Future[T]":
        """Run ``fn`` on the device thread."""
        return self._executor.submit(fn, *args, **kwargs)

    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> list[str]:
        """End the device session (hooks told, driver stopped, logs flushed) and the device thread.

        Waits for a call still running on the device first: stopping a browser under a running tool
        would leave its half-done state in the logs instead of a clean end."""
        with self._lock:
            if self._closed:
                return []
            self._closed = True
        future = self._executor.submit(self.disconnect, SessionOutcome.CANCELLED)
        try:
            problems = future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            problems = [f"a call was still running on the device after {timeout:g} s; the device was not stopped"]
        self._executor.shutdown(wait=False, cancel_futures=True)
        return problems

    # -- acting -----------------------------------------------------------------------------------
    def snapshot(self, detail: frozenset[str] = frozenset(), screenshot: bool = False) -> tuple[str, bytes | None]:
        """The compact screen text with refs (device thread), as ``trailblaze snapshot`` prints it."""
        c = self._require()
        unsupported = sorted(detail - set(c.driver.snapshot_details))
        if unsupported:
            raise BadInputError(f"driver '{c.driver.key}' has no {', '.join(unsupported)} snapshot detail",
                                hint=f"it offers: {', '.join(c.driver.snapshot_details) or 'none'}")
        text = screen_header(c.driver, c.session.device) + "\n" + c.driver.snapshot(detail=detail)
        text = str(c.session.memory.redact(text))
        self.last_snapshot = text
        png = c.driver.screenshot() if screenshot else None
        return text, png

    def call_tool(self, name: str, args: Mapping[str, Any] | None, *, step_text: str | None = None) -> Outcome:
        """One direct tool call (device thread), recorded under ``step_text`` (default: what it did)."""
        definition = self._offered(name)
        kind: StepKind = "verify" if definition.is_verification else "step"
        return self._run_calls([ToolCall(name, dict(args or {}))], step_text, kind)

    def run_tools(self, text: str, kind: StepKind, items: list[Any]) -> Outcome:
        """A ``step``/``verify`` given as a list of tool calls (``[{name: {args}}]``): no model involved."""
        from ..tools.serialization import ToolCallFormatError

        c = self._require()
        calls: list[ToolCall] = []
        for i, item in enumerate(items):
            try:
                call = c.session.codec.decode_yaml_item(item)
            except ToolCallFormatError as exc:
                raise BadInputError(f"tools[{i}]: {exc}") from None
            definition = self._offered(call.name)
            if kind == "verify" and not definition.is_verification:
                raise BadInputError(f"tools[{i}]: '{call.name}' is not a verification tool; a verify step only checks",
                                    hint="use 'step' for actions")
            calls.append(call)
        if not calls:
            raise BadInputError("'tools' is empty: give at least one {toolName: {args}}")
        return self._run_calls(calls, _require_text(text), kind)

    def solve(self, text: str, kind: StepKind) -> Outcome:
        """A natural-language step solved by the agent with the configured model (device thread)."""
        from ..agent import LlmNotConfiguredError, solve_step

        c = self._require()
        text = _require_text(text)
        steps = self._steps_with(kind, text)
        step = steps[-1]
        trail = Trail(path=Path("<trailblaze mcp>"), format="unified",
                      config=TrailConfig(title=self.trail_name, target=c.session.target), steps=steps)
        c.lifecycle.step_started(step)
        ok = False
        try:
            result = solve_step(c.session, step, trail=trail, options=self.factory.options)
            ok = result.success
        except LlmNotConfiguredError:
            raise BadInputError("no model is configured for natural-language steps",
                                hint="start `trailblaze mcp --llm provider/model` (or set llm: in trailblaze.yaml), "
                                     "or pass 'tools' to run the step's tool calls directly") from None
        finally:
            c.lifecycle.step_finished(step, ok)
        memory = c.session.memory
        recorded = self._tokenized(list(result.recording)) if result.success else []
        recorded_step = self._record(kind, text, recorded) if result.success else None
        message = str(memory.redact(result.message or ("done" if result.success else "failed")))
        outcome = Outcome(result.success, message, recorded, recorded_step,
                          {"llmCalls": result.llm_call_count, "calls": [memory.redact(x.to_json()) for x in result.calls]})
        outcome.tools_changed = self.refresh_tools()
        return outcome

    def _steps_with(self, kind: StepKind, text: str | None) -> list[TrailStep]:
        """The steps recorded so far and a new one after them, numbered as the saved trail will number
        them; the new step's ``index`` is the session's step counter (the event logs' ``stepIndex``,
        unique per step even for calls that record nothing)."""
        steps = number_steps([*(TrailStep(kind=s.kind, text=s.text) for s in self.steps),
                              TrailStep(kind=kind, text=text)])
        steps[-1].index, self._next_index = self._next_index, self._next_index + 1
        return steps

    def _run_calls(self, calls: list[ToolCall], text: str | None, kind: StepKind) -> Outcome:
        c = self._require()
        session, memory = c.session, c.session.memory
        current = self._steps_with(kind, text)[-1]
        ctx = session.context(step_index=current.index)
        first = len(session.executed)
        messages: list[str] = []
        ok = True
        error: TrailblazeError | None = None
        from ..agent.secret_guard import misplaced_secret

        offered = {t.name: t for t in self.offered_tools()}
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

        recorded = self._tokenized(recording_from_executed(session.executed[first:]))
        step = None
        if recorded:
            step_text = text or self._auto_text(messages, calls)
            step = self._record(kind, str(memory.redact(step_text)), recorded)
        if error is not None:
            detail = f"{error.message}" + (f" ({error.hint})" if error.hint else "")
            messages.append(f"error: {detail}")
        outcome = Outcome(ok, str(memory.redact("\n".join(messages))), recorded, step)
        outcome.tools_changed = self.refresh_tools()
        return outcome

    def replay_setup(self) -> int:
        """Replay the setup trails (``settings.setup``, else the workspace's ``defaults.setup``) on the
        connected device (device thread): the start state, not part of what is saved. Returns how many
        steps ran."""
        from ..runner.setup import replay_setups, setup_trails

        return replay_setups(setup_trails(self.settings.setup, self.ws.config), self._require().session)

    def run_trail(self, file: str, *, progress_stream: io.StringIO | None = None) -> dict[str, Any]:
        """``trailblaze run FILE`` in this process, on a fresh device of its own. Call it from its own
        thread, not the device thread: a second browser cannot share the first one's thread."""
        path = self.trail_path(file)
        if not path.is_file():
            raise BadInputError(f"file not found: {path}")
        from ..runner.progress import Progress
        from ..runner.run import Runner

        out = progress_stream or io.StringIO()
        options = dataclasses.replace(self._base_options, save_recording=True)
        runner = Runner(options, host=self.host, progress=Progress(stream=out, live=False))
        result = runner.run([str(path)])
        clean = result.redact  # that run's redactor, which watched its sessions' secrets too
        return {"exitCode": int(result.exit_code), "passed": int(result.exit_code) == 0,
                "output": clean(out.getvalue()),
                "summary": str(result.summary_path) if result.summary_path else None,
                "report": str(result.report_path) if result.report_path else None,
                "trails": [clean({"title": t.title, "outcome": t.outcome.value, "message": t.message,
                                  "logDir": str(t.log_dir) if t.log_dir else None}) for t in result.trails]}


def _require_text(text: str | None) -> str:
    if not text or not text.strip():
        raise BadInputError("a step needs natural-language text (the 'objective' or 'assertion')")
    return " ".join(text.split())

__all__ = ["McpSettings", "Outcome", "PLATFORM_ACTIONS", "RecordedStep", "SESSION_TOOLS", "Workbench"]
