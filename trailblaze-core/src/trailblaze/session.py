"""A session: one trail on one device, with its registry, memory, logs and dispatcher.

The dispatcher is the single path every tool call takes, whether it comes from a recording, a model,
a YAML tool's expansion or an MCP server calling back: interpolate memory → find the definition →
validate → execute (or expand and recurse) → log. Keeping one path is what makes replay and AI runs
behave the same.
"""

from __future__ import annotations

import dataclasses
import enum
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .context import ToolContext
from .contract.calls import ToolCall, ToolResult
from .contract.device import DeviceInfo, SessionDriver
from .errors import (BadInputError, DriverError, ToolArgumentError, ToolExpansionError, ToolFailure,
                     ToolNotAvailableError, TrailblazeError, UnknownToolError)
from .logs import SessionLog
from .memory import Memory, escape_literal
from .reuse import ActorShare
from .tools.base import ToolDefinition
from .tools.codec import CodecHooks, ToolCodec
from .tools.registry import ToolRegistry
from .untrusted import valid_data, valid_text

if TYPE_CHECKING:
    from .config import WorkspaceConfig
    from .targets import TargetInfo

MAX_DELEGATION_DEPTH = 16
_TARGET_KEY = "trailblaze.target_info"


class SessionOutcome(str, enum.Enum):
    """How a session ended (upstream ``SessionStatus.Ended.*``)."""

    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    SUCCEEDED_WITH_SELF_HEAL = "SucceededWithSelfHeal"
    FAILED_WITH_SELF_HEAL = "FailedWithSelfHeal"
    CANCELLED = "Cancelled"
    TIMEOUT_REACHED = "TimeoutReached"
    MAX_CALLS_LIMIT_REACHED = "MaxCallsLimitReached"
    ERROR = "Error"
    SKIPPED = "Skipped"

    @property
    def passed(self) -> bool:
        return self in _PASSED


_PASSED = frozenset({SessionOutcome.SUCCEEDED, SessionOutcome.SUCCEEDED_WITH_SELF_HEAL})


@dataclass
class ExecutedCall:
    """One call that ran at some depth; recordings are generated from these."""

    authored: ToolCall
    resolved: ToolCall
    depth: int
    is_recordable: bool
    delegating: bool
    is_verification: bool
    success: bool
    error: str | None = None
    step_index: int | None = None
    recorded: ToolCall | None = None
    """What a recording keeps for this call when it differs from ``authored`` (``ToolResult.recorded_args``
    merged over the authored arguments); recording generators take ``recorded or authored``."""

    @property
    def recordable_form(self) -> ToolCall:
        return self.recorded if self.recorded is not None else self.authored


class RunSettings(Protocol):
    """What a session and the agent read of the run's options (``trailblaze.runner.RunOptions`` is one).
    A protocol, so this module sits below the runner; the secrets it carries are not part of it."""

    @property
    def host_tools(self) -> bool: ...

    @property
    def llm(self) -> str | None: ...

    @property
    def max_llm_calls(self) -> int | None: ...

    @property
    def use_recorded_steps(self) -> bool | None: ...


_OPTION_FIELDS = {"run": "run", "listing": "listing", "agent_mode": "agent_mode", "_tracebacks": "tracebacks"}


@dataclass
class SessionOptions:
    """How a session was opened, typed. ``extra`` holds what a caller of ``SessionFactory.open(extra=...)``
    passes for plugins (by their own key).

    Up to contract 1.1 this was a ``dict``; reading it as one (``get``, ``[...]``, ``setdefault``, ``in``,
    ``update``) still works for one minor version, with a ``DeprecationWarning`` naming the attribute."""

    run: RunSettings | None = field(default=None, repr=False)
    """The run's options (``trailblaze.runner.RunOptions``); None for a session built by hand."""
    listing: bool = False
    """A listing session (``trailblaze tools``, ``schema``): never started on a device; plugins whose
    tools exist per session register them without their usual preconditions."""
    agent_mode: str = "host"
    """``host`` (the agent runs here) or ``ondevice``: which MCP server tools are offered."""
    tracebacks: list[BaseException] = field(default_factory=list, repr=False)
    """The exceptions behind this session's one-line errors (a tool's own bug): printed with ``--debug``."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def host_tools(self) -> bool:
        """Whether host-only tools (``requires_host``) may run: the run's ``host_tools``, else yes."""
        return self.run.host_tools if self.run is not None else True

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], *, run: RunSettings | None = None) -> SessionOptions:
        """Known keys (``run``, ``listing``, ``agent_mode``, ``_tracebacks``) to fields, the rest to ``extra``."""
        options = cls(run=run)
        for key, value in values.items():
            if key in _OPTION_FIELDS:
                setattr(options, _OPTION_FIELDS[key], list(value) if key == "_tracebacks" else value)
            else:
                options.extra[key] = value
        return options

    # -- the dict it used to be (deprecated) ----------------------------------------------------------
    def _deprecated(self, key: str) -> str | None:
        name = _OPTION_FIELDS.get(key)
        use = f"session.options.{name}" if name else f"session.options.extra[{key!r}]"
        warnings.warn(f"session.options is no longer a dict: use {use} instead of session.options[{key!r}]",
                      DeprecationWarning, stacklevel=3)
        return name

    def get(self, key: str, default: Any = None) -> Any:
        name = self._deprecated(key)
        return getattr(self, name) if name else self.extra.get(key, default)

    def __getitem__(self, key: str) -> Any:
        name = self._deprecated(key)
        return getattr(self, name) if name else self.extra[key]

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        name = self._deprecated(key)
        return (getattr(self, name) is not None) if name else key in self.extra

    def setdefault(self, key: str, default: Any = None) -> Any:
        name = self._deprecated(key)
        return getattr(self, name) if name else self.extra.setdefault(key, default)

    def __setitem__(self, key: str, value: Any) -> None:
        name = self._deprecated(key)
        if name:
            setattr(self, name, value)
        else:
            self.extra[key] = value

    def update(self, values: Mapping[str, Any]) -> None:
        for key, value in values.items():
            name = self._deprecated(key)
            if name:
                setattr(self, name, value)
            else:
                self.extra[key] = value


class SessionHost(CodecHooks, Protocol):
    """The hooks a session and what runs inside it call, as the plugin host (``trailblaze.plugins``,
    which implements this) offers them. A protocol, so the session sits below the host in the import
    graph: the host knows sessions, a session knows only this face of the host."""

    def execute_tool(self, call: ToolCall, definition: ToolDefinition, prepared: Any,
                     context: ToolContext) -> ToolResult | list[ToolCall]: ...

    def target_info(self, target: str, config: WorkspaceConfig) -> TargetInfo | None: ...

    def filter_tools(self, session: Session, tools: list[ToolDefinition]) -> list[ToolDefinition]: ...

    def session_started(self, session: Session, *, started: list[str] | None = None) -> None: ...

    def session_finished(self, session: Session, outcome: SessionOutcome, *,
                         only: Sequence[str] | None = None) -> list[str]: ...


@dataclass
class Session:
    id: str
    host: SessionHost
    workspace: "WorkspaceConfig"
    registry: ToolRegistry
    memory: Memory
    log: SessionLog
    log_dir: Path
    driver: SessionDriver[Session] | None = None
    """Held through the driver protocol (every ``trailblaze.driver.Driver`` is one), so this module sits
    below ``trailblaze.driver``, whose hooks take a ``Session``."""
    device: DeviceInfo = field(default_factory=lambda: DeviceInfo(platform="host", driver="host"))
    target: str | None = None
    trail: Any = None
    title: str | None = None
    resources: dict[str, Any] = field(default_factory=dict)
    """Per-session state plugins keep (tool server processes, HTTP endpoints...), keyed by plugin."""
    executed: list[ExecutedCall] = field(default_factory=list)
    actor: str | None = None
    """The actor this session is, in a trail with actors (``config.actors``); None otherwise."""
    actor_share: ActorShare | None = None
    """The trail's ``ActorShare`` when this session is one actor of a trail with actors, else None."""
    options: SessionOptions = field(default_factory=SessionOptions)
    """How this session was opened (``SessionOptions``); a plain mapping given here is converted."""
    dispatcher: "Dispatcher" = field(init=False)
    codec: ToolCodec = field(init=False)
    """Decodes, encodes and describes this session's tool calls through the host's plugins."""

    def __post_init__(self) -> None:
        if not isinstance(self.options, SessionOptions):  # ``Session(options={...})`` as up to contract 1.1
            self.options = SessionOptions.from_mapping(self.options)
        self.dispatcher = Dispatcher(self)
        self.codec = ToolCodec(self.host, self.registry)

    def context(self, *, step_index: int | None = None, replaying: bool = False) -> ToolContext:
        return ToolContext(self, step_index=step_index, replaying=replaying)

    @property
    def target_info(self) -> "TargetInfo | None":
        """This session's target (``target``, else the workspace's ``defaults.target``) as the plugins
        describe it (``trailblaze_target_info``); asked once per session."""
        if _TARGET_KEY not in self.resources:
            target = self.target or self.workspace.defaults.target
            self.resources[_TARGET_KEY] = self.host.target_info(target, self.workspace) if target else None
        found: TargetInfo | None = self.resources[_TARGET_KEY]
        return found


def session_of(ctx: ToolContext) -> Session:
    """The whole session behind a tool's context, for plugin code that needs more than ``ToolSession``
    shows (the host, the registry's definitions): every context the core makes holds a ``Session``."""
    session = ctx.session
    if not isinstance(session, Session):
        raise TypeError(f"this tool context holds a {type(session).__name__}, not a trailblaze Session")
    return session


def find_tool(session: Session, name: str) -> ToolDefinition:
    """The definition a call of ``name`` runs in ``session``: the one check of a call's tool, shared by
    the dispatcher and the runner's prevalidation of a trail's recordings (so both fail alike).

    :raises UnknownToolError: no source registered ``name``.
    :raises ToolNotAvailableError: registered, but not for this session's driver or platform, or a
        host-only tool where host tools are refused."""
    definition = session.registry.get(name)
    if definition is None:
        raise UnknownToolError(f"unknown tool '{name}'", hint=suggest_tool_name(name, session.registry))
    if definition.requires_host and not session.options.host_tools:
        raise ToolNotAvailableError(f"tool '{name}' runs programs on this machine and is not allowed here",
                                    hint="start `trailblaze mcp --allow-host-tools` to allow host-only tools")
    device = session.device
    if not definition.supports(driver=device.driver, platform=device.platform):
        raise ToolNotAvailableError(f"tool '{name}' does not run on driver '{device.driver}' "
                                    f"(it is for {_where(definition)})")
    return definition


def prepare_call(definition: ToolDefinition, args: dict[str, Any]) -> Any:
    """``args`` checked against ``definition``'s parameters (what the tool's ``execute`` is given).

    :raises ToolArgumentError: they do not fit (pydantic's or the schema's message)."""
    try:
        return definition.prepare(args)
    except ValueError as exc:
        raise ToolArgumentError(str(exc)) from None


class Dispatcher:
    """Runs tool calls for one session. See the module docstring for the path a call takes."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._trace_seq = 0

    def call(self, call: ToolCall, ctx: ToolContext, *, top_level: bool = True) -> ToolResult:
        """Run ``call``; tool failures come back as ``success=False``. Bad input and infrastructure
        errors raise (``BadInputError``/``InfrastructureError``) so the run can end with the right code."""
        session = self.session
        definition = find_tool(session, call.name)
        resolved_args = session.memory.interpolate(call.args) if call.args else {}
        resolved = ToolCall(call.name, resolved_args)
        prepared = prepare_call(definition, resolved_args)
        start = time.perf_counter()
        error: str | None = None
        result: ToolResult
        outcome: Any
        lost: str | None = None
        try:
            outcome = session.host.execute_tool(resolved, definition, prepared, ctx)
        except ToolFailure as exc:
            outcome = ToolResult(False, exc.message)
            lost = self._lost(exc)
        except TrailblazeError as exc:
            # The run ends here (a device gone, a plugin's bug): the call that ended it is still logged.
            self._log(call, resolved_args, definition, ctx, start, top_level, ToolResult(False, str(exc)),
                      delegated=False, recordable=False, error=str(exc))
            raise
        except Exception as exc:  # noqa: BLE001 - a tool's own bug fails the step, not the run
            outcome = ToolResult(False, f"tool '{call.name}' raised {type(exc).__name__}: {exc}")
            session.options.tracebacks.append(exc)  # the runner prints them with --debug
            lost = self._lost(exc)
        if isinstance(outcome, list):
            result = self._delegate(call, outcome, ctx)
            delegated = True
        else:
            result = outcome if isinstance(outcome, ToolResult) else ToolResult(True, str(outcome))
            delegated = False
        result = _valid_result(result)
        if not result.success:
            error = result.message or f"tool '{call.name}' failed"
            if lost is None and not delegated:
                lost = self._lost(None)
        recordable = definition.is_recordable and not (delegated and definition.records_delegates)
        executed = ExecutedCall(call, resolved, ctx.depth, recordable, delegated,
                                definition.is_verification, result.success, error, ctx.step_index)
        if result.recorded_args:
            # What a tool read from the page (a selector's text) is literal: its braces are escaped.
            executed.recorded = ToolCall(call.name, {**call.args, **escape_literal(result.recorded_args)})
        session.executed.append(executed)
        self._log(call, resolved_args, definition, ctx, start, top_level, result, delegated=delegated,
                  recordable=recordable, error=error, recorded=executed.recorded)
        if lost is not None:
            # The device or browser itself is gone: no tool can succeed any more (exit 2, not 1).
            raise DriverError(lost)
        return result

    def _log(self, call: ToolCall, resolved_args: dict[str, Any], definition: Any, ctx: ToolContext,
             start: float, top_level: bool, result: ToolResult, *, delegated: bool, recordable: bool,
             error: str | None, recorded: ToolCall | None = None) -> None:
        session = self.session
        duration_ms = int((time.perf_counter() - start) * 1000)
        self._trace_seq += 1
        payload: dict[str, Any] = {
            "toolName": call.name,
            "trailblazeTool": {"toolName": call.name, "raw": resolved_args},
            "successful": result.success,
            "traceId": f"{session.id}-{self._trace_seq}",
            "durationMs": duration_ms,
            "isRecordable": recordable,
            "isTopLevelToolCall": top_level and ctx.depth == 0,
            "isVerification": definition.is_verification,
            "dispatchedHostSide": True,
            "depth": ctx.depth,
            "stepIndex": ctx.step_index,
        }
        if resolved_args != call.args:
            payload["rawTrailblazeTool"] = {"toolName": call.name, "raw": call.args}
        if error:
            payload["exceptionMessage"] = error
        if result.message and result.success:
            payload["resultMessage"] = result.message
        if result.data is not None:
            payload["resultData"] = result.data
        if recorded is not None:
            payload["recordedTrailblazeTool"] = recorded.to_json()
        session.log.write("DelegatingTrailblazeToolLog" if delegated else "TrailblazeToolLog", payload)

    def _lost(self, error: BaseException | None) -> str | None:
        driver = self.session.driver
        if driver is None:
            return None
        try:
            return driver.lost(error)
        except Exception:  # noqa: BLE001 - a driver's health check never replaces the tool's own failure
            return None

    def _delegate(self, parent: ToolCall, children: list[ToolCall], ctx: ToolContext) -> ToolResult:
        chain = (*ctx.chain, parent.name)
        if ctx.depth + 1 > MAX_DELEGATION_DEPTH:
            raise ToolExpansionError(f"tool expansion too deep (>{MAX_DELEGATION_DEPTH}): {' -> '.join(chain)}")
        last = ToolResult(True)
        for child in children:
            if not isinstance(child, ToolCall):
                raise ToolExpansionError(f"tool '{parent.name}' expanded into {child!r}, not a tool call")
            if child.name in chain:
                raise ToolExpansionError(f"tool expansion cycle: {' -> '.join((*chain, child.name))}")
            child_ctx = ToolContext(ctx.session, depth=ctx.depth + 1, chain=chain, step_index=ctx.step_index,
                                    invocation_id=ctx.invocation_id, replaying=ctx.replaying,
                                    extras=ctx.extras)
            try:
                last = self.call(child, child_ctx, top_level=False)
            except BadInputError as exc:
                exc.message = f"in expansion of '{parent.name}': {exc.message}"
                raise
            if not last.success:
                return ToolResult(False, last.message, last.data)
        return ToolResult(True, last.message, last.data)


def _valid_result(result: ToolResult) -> ToolResult:
    """A tool's message and data quote pages, devices and servers: valid Unicode from here on."""
    message = valid_text(result.message) if result.message else result.message
    data = valid_data(result.data) if result.data is not None else None
    if message is result.message and data is result.data:
        return result
    return dataclasses.replace(result, message=message, data=data)


def _where(definition: Any) -> str:
    parts = []
    if definition.drivers is not None:
        parts.append("drivers " + ", ".join(sorted(definition.drivers)))
    if definition.platforms is not None:
        parts.append("platforms " + ", ".join(sorted(definition.platforms)))
    return "; ".join(parts) or "every driver"


def suggest_tool_name(name: str, registry: ToolRegistry) -> str:
    import difflib

    close = difflib.get_close_matches(name, registry.names(), n=3, cutoff=0.6)
    if close:
        return "did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
    return "run `trailblaze tools` to list the tools of this workspace and driver"


def session_tools(session: Session, *, for_llm: bool = False,
                  verification_only: bool = False) -> list[ToolDefinition]:
    """The tools this session offers: supported by its driver, narrowed by plugins (toolsets). The agent's
    model, the MCP server's client and ``trailblaze tools`` all ask this, so it stands with the session."""
    device = session.device
    any_device = device.driver == "any"
    tools = session.registry.for_device(driver=None if any_device else device.driver,
                                        platform=None if any_device else device.platform)
    if for_llm:
        tools = [t for t in tools if t.surface_to_llm]
    if verification_only:
        tools = [t for t in tools if t.is_verification]
    return session.host.filter_tools(session, tools)


__all__ = [
    "Dispatcher", "ExecutedCall", "RunSettings", "Session", "SessionHost", "SessionOptions", "SessionOutcome",
    "find_tool", "prepare_call", "session_of", "session_tools", "suggest_tool_name",
]
