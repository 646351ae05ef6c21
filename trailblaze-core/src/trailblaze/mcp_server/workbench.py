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
import contextlib
import dataclasses
import io
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from ..driver import Driver
from ..errors import BadInputError, TrailblazeError, UnknownToolError
from ..host_settings import path_outside, refused_settings
from ..memory import Redactor
from ..plugins import PluginHost, get_host
from ..recorder import RecordedStepDraft
from ..runner.lifecycle import SessionFactory, SessionLifecycle
from ..runner.options import RunOptions
from ..screens import choose_driver, screen_header
from ..session import Session, SessionOutcome
from ..tools.base import ToolCall, ToolDefinition
from ..trail.model import Trail, TrailConfig, TrailStep, number_steps

T = TypeVar("T")
StepKind = Literal["step", "verify"]

SESSION_TOOLS = ("device", "snapshot", "step", "verify", "trail", "toolbox")
"""The server's own tools; a toolbox tool with one of these names is not offered directly."""

PLATFORM_ACTIONS = {"WEB": "web", "ANDROID": "android", "IOS": "ios", "HOST": "host"}
CLOSE_TIMEOUT_S = 120.0
"""How long closing waits for a call still running on the device (a long agent step, a ``wait``)."""


@dataclass
class McpSettings:
    """What ``trailblaze mcp`` was started with (the CLI flags map onto it 1:1)."""

    workspace: Path | None = None
    target: str | None = None
    allow_host_tools: bool = False
    secrets: dict[str, str] = field(default_factory=dict)
    memory: dict[str, str] = field(default_factory=dict)
    driver_options: dict[str, Any] = field(default_factory=dict)
    headed: bool = False
    llm: str | None = None
    max_llm_calls: int | None = None
    output_dir: Path | None = None
    logging: bool = True
    setup: list[str] = field(default_factory=list)
    """Setup trails replayed by ``replay_setup`` (``session start``/``record --setup``)."""

    def run_options(self) -> RunOptions:
        return RunOptions(driver_options=dict(self.driver_options), memory=dict(self.memory),
                          secrets=dict(self.secrets), output_dir=self.output_dir, llm=self.llm,
                          max_llm_calls=self.max_llm_calls, headed=self.headed, logging=self.logging,
                          report=False, save_recording=False, test_name="mcp",
                          host_tools=self.allow_host_tools)


@dataclass
class RecordedStep:
    """One step of the trail being recorded: consecutive calls under the same text and kind."""

    kind: StepKind
    text: str
    classifier: str
    calls: list[ToolCall] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "classifier": self.classifier,
                "recording": [c.to_json() for c in self.calls]}


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


@dataclass
class _Connected:
    lifecycle: SessionLifecycle
    close: contextlib.ExitStack

    @property
    def session(self) -> Session:
        return self.lifecycle.session

    @property
    def driver(self) -> Driver:
        driver = self.lifecycle.session.driver
        assert driver is not None
        return driver


class Workbench:
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

    # -- devices ----------------------------------------------------------------------------------
    def drivers(self) -> list[dict[str, Any]]:
        return [{"key": cls.key, "platform": cls.platform, "aliases": list(cls.aliases),
                 "description": cls.description} for cls in self.factory.drivers]

    def devices_document(self) -> dict[str, Any]:
        return {"drivers": self.drivers(), "connected": self.device_info()}

    def device_info(self) -> dict[str, Any] | None:
        c = self.connected
        if c is None:
            return None
        return {"driver": c.driver.key, "platform": c.session.device.platform,
                "classifier": self.classifier(), "device": c.session.device.model_dump(mode="json"),
                "sessionId": c.session.id, "logDir": str(c.session.log_dir),
                "screen": _safe(c.driver.describe_screen)}

    def classifier(self) -> str:
        c = self._require()
        return "-".join(c.session.device.classifiers) or c.driver.key

    def connect(self, *, platform: str | None = None, driver: str | None = None, device_id: str | None = None,
                options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Start a device (device thread) through the one session lifecycle, exactly as ``trailblaze run``
        starts one. A connected device is ended first: one device at a time."""
        self.disconnect(SessionOutcome.SUCCEEDED)
        factory, ws = self.factory, self.ws
        spec = device_id or platform
        if device_id and platform and "/" not in device_id:
            spec = f"{platform}/{device_id}"
        device = factory.parse_device(spec) if spec else None
        if driver:
            cls = factory.drivers.resolve(driver)
        else:
            picked = factory.pick_driver(ws.config, device, fallback=None)
            if picked is None:
                picked = choose_driver(factory.drivers, None)
            cls = picked
        self._check_device_options(cls, options or {})
        driver_options = {**self.settings.driver_options, **dict(options or {})}
        factory.options = dataclasses.replace(self._base_options, driver_options=driver_options)
        stack = contextlib.ExitStack()
        lifecycle = stack.enter_context(factory.open(workspace=ws, driver=cls, device=device,
                                                     target=self.settings.target, extra={"mcp": True}))
        self.redactor.watch(lifecycle.session.memory)
        self.connected = _Connected(lifecycle, stack)
        self.last_snapshot = None
        self.refresh_tools(force=True)
        info = self.device_info()
        assert info is not None
        return info

    def _check_device_options(self, cls: type[Driver], options: Mapping[str, Any]) -> None:
        """A client's ``device`` options may not name a program, a command line, a remote endpoint or a
        path outside the workspace (the settings each driver marks, see ``trailblaze.host_settings``)
        unless the user started the server with ``--allow-host-tools``: page content can steer an agent."""
        if self.settings.allow_host_tools:
            return
        refused = refused_settings(cls.config_model, options, self.ws.config.root)
        if refused:
            raise BadInputError(f"device option{'s' if len(refused) > 1 else ''} {', '.join(refused)} of "
                                f"driver '{cls.key}' not allowed from an MCP client: nothing was started",
                                hint="the user can set it in trails/config/trailblaze.yaml or with "
                                     "`trailblaze mcp -o`, or start `trailblaze mcp --allow-host-tools`")

    def disconnect(self, outcome: SessionOutcome = SessionOutcome.SUCCEEDED) -> list[str]:
        """End the device session, if any (device thread): driver finished, plugins told, driver
        stopped, logs flushed. Unsaved recorded steps stay."""
        connected, self.connected = self.connected, None
        if connected is None:
            return []
        self.tool_descriptors = []
        self._registry_fingerprint = ()
        connected.lifecycle.outcome = outcome
        connected.close.close()
        self.redactor.unwatch(connected.lifecycle.session.memory)
        return list(connected.lifecycle.problems)

    def _require(self) -> _Connected:
        if self.connected is None:
            raise BadInputError("no device is connected",
                                hint="call the 'device' tool first, e.g. {\"action\": \"WEB\"} or {\"action\": \"ANDROID\"}")
        return self.connected

    # -- tools ------------------------------------------------------------------------------------
    def offered_tools(self) -> list[ToolDefinition]:
        """The connected session's toolbox as the agent sees it (driver-filtered, narrowed by plugins,
        hidden tools left out), minus host-only tools unless the server was started with them allowed."""
        c = self.connected
        if c is None:
            return []
        from ..toolbox import session_tools

        tools = session_tools(c.session, for_llm=True)
        if self.settings.allow_host_tools:
            names = {t.name for t in tools}
            tools += [t for t in session_tools(c.session) if t.requires_host and t.name not in names]
        else:
            tools = [t for t in tools if not t.requires_host]
        return [t for t in tools if t.name not in SESSION_TOOLS]

    def descriptors(self) -> list[dict[str, Any]]:
        """MCP ``Tool`` shapes of ``offered_tools``, through the descriptor hook like the agent's
        (device thread; ``tool_descriptors`` is the copy any thread may read)."""
        c = self.connected
        if c is None:
            return []
        return [c.session.codec.describe(t).mcp() for t in self.offered_tools()]

    def refresh_tools(self, *, force: bool = False) -> bool:
        """Recompute ``tool_descriptors`` (device thread) after anything that can change the toolbox: a
        device connected or ended (``force``), or a call that changed the session's registry
        (``reloadTools`` of a tool server; checked by the identity of its definitions, so an ordinary
        call costs no descriptor work). Returns whether the list changed: clients must be told."""
        registry = self.connected.session.registry if self.connected is not None else None
        fingerprint = tuple(id(t) for t in registry) if registry is not None else ()
        if not force and fingerprint == self._registry_fingerprint:
            return False
        self._registry_fingerprint = fingerprint
        fresh = self.descriptors()
        changed = fresh != self.tool_descriptors
        self.tool_descriptors = fresh
        return changed

    def toolbox(self, search: str | None = None, include_hidden: bool = False) -> list[dict[str, Any]]:
        """``trailblaze tools`` for the connected driver (or every driver when none is connected)."""
        from ..toolbox import list_toolbox

        driver = self.connected.driver.key if self.connected is not None else None
        entries = list_toolbox(driver=driver, target=self.settings.target, search=search,
                               include_hidden=include_hidden, workspace=self.ws.config.root)
        if not self.settings.allow_host_tools:
            entries = [e for e in entries if not e["requiresHost"]]
        return [{k: e[k] for k in ("name", "description", "source", "surfaceToLlm", "isRecordable",
                                   "isVerification", "requiresHost", "drivers", "platforms", "toolsets")}
                for e in entries]

    def registry_document(self) -> dict[str, Any]:
        """``trailblaze://registry``: the shape tool servers publish (Decision 029), for this workspace's
        registry (the connected session's, with its per-session tools, when a device is connected)."""
        from .._version import __version__

        registry = self.connected.session.registry if self.connected is not None else self.ws.registry
        tools: dict[str, Any] = {}
        groups: dict[str, dict[str, Any]] = {}
        for t in sorted(registry, key=lambda d: d.name):
            if t.requires_host and not self.settings.allow_host_tools:
                continue
            tools[t.name] = {
                "platforms": sorted(t.platforms) if t.platforms is not None else [],
                "drivers": sorted(t.drivers) if t.drivers is not None else [],
                "groups": list(t.toolsets), "exposedToLlm": t.surface_to_llm, "isRecordable": t.is_recordable,
                "isDelegating": t.delegating, "isVerification": t.is_verification, "requiresHost": t.requires_host,
                "source": str(t.source), "sourceInfo": t.source.to_json(),
            }
            for g in t.toolsets:
                groups.setdefault(g, {"description": "", "tools": 0})["tools"] += 1
        return {"tools": tools, "groups": groups, "serverInfo": {"name": "trailblaze", "version": __version__}}

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

    def _offered(self, name: str) -> ToolDefinition:
        c = self._require()
        for t in self.offered_tools():
            if t.name == name:
                return t
        definition = c.session.registry.get(name)
        if definition is not None and definition.requires_host and not self.settings.allow_host_tools:
            raise UnknownToolError(f"tool '{name}' runs programs on this machine and is not offered over MCP",
                                   hint="start `trailblaze mcp --allow-host-tools` to allow host-only tools")
        if definition is not None:
            raise UnknownToolError(f"tool '{name}' is not offered on driver '{c.driver.key}'",
                                   hint="the 'toolbox' tool lists what is")
        from ..session import suggest_tool_name

        raise UnknownToolError(f"unknown tool '{name}'", hint=suggest_tool_name(name, c.session.registry))

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

    def _tokenized(self, calls: list[ToolCall]) -> list[ToolCall]:
        """Recorded calls with every literal secret value written as its ``{{key}}`` token, so a trail
        never holds a secret even when the client typed one in."""
        c = self._require()
        memory = c.session.memory
        values = memory.snapshot(include_sensitive=True)
        secrets = sorted(((values[k], k) for k in memory.sensitive_keys if values.get(k)),
                         key=lambda kv: len(kv[0]), reverse=True)
        if not secrets:
            return calls
        return [ToolCall(call.name, _tokenize(call.args, secrets)) for call in calls]

    def _auto_text(self, messages: list[str], calls: list[ToolCall]) -> str:
        """A step text for a direct tool call nobody named: what the tool said it did, with remembered
        values (a server's address, an email) written as their tokens so the text reads the same on
        every run."""
        line = next((m.strip().splitlines()[0] for m in messages if m.strip()), calls[0].name)[:200]
        values = self._require().session.memory.snapshot(include_sensitive=True)
        known = sorted(((v, k) for k, v in values.items() if len(v) >= 4), key=lambda kv: len(kv[0]), reverse=True)
        return str(_tokenize(line, known))

    def _record(self, kind: StepKind, text: str, calls: list[ToolCall]) -> RecordedStep:
        classifier = self.classifier()
        last = self.steps[-1] if self.steps else None
        if last is not None and (last.kind, last.text, last.classifier) == (kind, text, classifier):
            last.calls.extend(calls)
            return last
        step = RecordedStep(kind, text, classifier, list(calls))
        self.steps.append(step)
        return step

    def replay_setup(self) -> int:
        """Replay the setup trails (``settings.setup``, else the workspace's ``defaults.setup``) on the
        connected device (device thread): the start state, not part of what is saved. Returns how many
        steps ran."""
        from ..runner.setup import replay_setups, setup_trails

        return replay_setups(setup_trails(self.settings.setup, self.ws.config), self._require().session)

    def add_recorded(self, drafts: list[RecordedStepDraft]) -> None:
        """Steps recorded elsewhere (a person's actions, ``trailblaze record``) into the pending trail, with
        literal secret values written as their tokens, as the agent's are."""
        for draft in drafts:
            if draft.calls:
                self._record(draft.kind, draft.text, self._tokenized(draft.calls))

    # -- trails -----------------------------------------------------------------------------------
    def start_trail(self, name: str | None) -> str:
        dropped = len(self.steps)
        self.steps = []
        self.trail_name = name
        return f"recording a new trail{f' {name!r}' if name else ''}" + \
            (f" (dropped {dropped} unsaved step{'s' if dropped != 1 else ''})" if dropped else "")

    def end_trail(self) -> str:
        dropped = len(self.steps)
        self.steps = []
        self.trail_name = None
        return f"recording ended; {dropped} unsaved step{'s' if dropped != 1 else ''} dropped"

    def trail_path(self, file: str | None) -> Path:
        """The client's trail file, inside the workspace root (``../``, ``~`` and absolute paths that leave
        it are refused: a client may read and write only the workspace's trails)."""
        root = self.ws.config.root
        if file:
            outside = path_outside(file, root)
            if outside is not None:
                raise BadInputError(f"'{file}' is {outside}: a client's trail files stay in the workspace",
                                    hint="a path relative to the workspace root: trails/my-flow.trail.yaml")
            path = Path(file)
            path = path if path.is_absolute() else root / path
        else:
            slug = re.sub(r"[^A-Za-z0-9_-]+", "-", (self.trail_name or "recorded").strip()).strip("-").lower()
            base = root / "trails" if (root / "trails").is_dir() else root
            path = base / f"{slug or 'recorded'}.trail.yaml"
        from ..runner.discovery import is_trail_file

        if not is_trail_file(path):
            raise BadInputError(f"'{path.name}' is not a trail file name", hint="use NAME.trail.yaml or trail.yaml")
        return path.resolve()

    def save_trail(self, file: str | None) -> dict[str, Any]:
        """Append the recorded steps to ``file`` (created, with a config naming the driver, when missing)
        through the same writer ``trailblaze step --save`` uses: comments and other steps stay."""
        from ..trail.saveback import NewStep, append_steps

        path = self.trail_path(file)
        if not self.steps:
            raise BadInputError("nothing has been recorded yet", hint="act on the device first (a tool call or 'step')")
        path.parent.mkdir(parents=True, exist_ok=True)
        created = not path.exists() or not path.read_text(encoding="utf-8").strip()
        # One write for every step: a full disk saves none of them (the recording is kept for a retry).
        added = append_steps(path, [NewStep(s.text, s.kind, s.classifier, s.calls or None) for s in self.steps],
                             codec=self.host.codec(), header=self._header_yaml())
        first = added[0].index if added else None
        saved = len(self.steps)
        self.steps = []
        return {"file": str(path), "created": created, "steps": saved, "firstStepIndex": first}

    def _header_yaml(self) -> str:
        from ruamel.yaml import YAML

        config: dict[str, Any] = {}
        if self.trail_name:
            config["title"] = self.trail_name
        target = self.settings.target or self.ws.config.defaults.target
        if target:
            config["target"] = target
        classifiers = {s.classifier for s in self.steps}
        c = self.connected
        if c is not None and self.classifier() in classifiers:
            config["devices"] = {c.session.device.classifiers[0] if c.session.device.classifiers else c.driver.key:
                                 c.driver.key}
        yaml = YAML(typ="safe", pure=True)
        yaml.default_flow_style = False
        yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
        buf = io.StringIO()
        buf.write("# Recorded with `trailblaze mcp` or `trailblaze session`; replay it with `trailblaze run`.\n")
        if config:
            yaml.dump({"config": config}, buf)
        return buf.getvalue()

    def list_trails(self) -> list[dict[str, Any]]:
        from ..runner.discovery import expand

        root = self.ws.config.root
        base = root / "trails" if (root / "trails").is_dir() else root
        try:
            files = expand([str(base)])
        except BadInputError:
            return []
        return [{"file": str(p.relative_to(root)) if p.is_relative_to(root) else str(p), "path": str(p.resolve())}
                for p in files]

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




def _tokenize(value: Any, secrets: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for secret, key in secrets:
            value = value.replace(secret, "{{" + key + "}}")
        return value
    if isinstance(value, dict):
        return {k: _tokenize(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_tokenize(v, secrets) for v in value]
    return value


def _safe(fn: Callable[[], str | None]) -> str | None:
    try:
        return fn()
    except Exception:  # noqa: BLE001 - a description is optional
        return None


__all__ = ["McpSettings", "Outcome", "PLATFORM_ACTIONS", "RecordedStep", "SESSION_TOOLS", "Workbench"]
