"""The tool servers of one session: start them, register their tools, route calls, reload, stop.

Start-up runs every server concurrently on the session's event loop (spawn or connect, ``initialize``
bounded by the handshake timeout, ``tools/list``, the optional ``trailblaze://registry`` resource); the
registration pass then runs in declaration order so collisions are reported deterministically. A
server that fails to start fails the session (exit 2) with its exit code and stderr tail, after every
other server of the session has been stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from trailblaze.errors import BadInputError, InfrastructureError
from trailblaze.tools.base import ToolCall, ToolResult, ToolSource

from . import callbacks, reaper
from .config import ServerSpec
from .definitions import STATE_KEY, McpToolDefinition, sanitize_schema
from .envelope import (
    CONTEXT_ARG,
    INVOCATION_META_KEY,
    META_KEY,
    MetaTemplate,
    memory_changes,
    target_envelope,
)
from .loop import LoopThread
from .meta import (
    REGISTRY_URI,
    ServerRegistry,
    ToolMeta,
    filter_reason,
    merge,
    parse_registry,
    parse_tool_meta,
)
from .process import ServerProcess, tail_text
from .results import delegates_of, to_tool_result
from .runtimes import missing_module, missing_module_hint
from .spawn import launch_for
from .wire import CallOutcome, ConnectionLost, ListedTool, ProtocolError, RequestTimeout

if TYPE_CHECKING:
    from trailblaze.context import ToolContext
    from trailblaze.session import Session

    from .process import Launch
    from .sdk import Connection

CAPABILITIES = {"callbacks": True, "sampling": False}


class ServerStartError(InfrastructureError):
    """A tool server could not be started, connected or initialized (exit 2)."""


class ServerCrashed(InfrastructureError):
    """A tool server died (or broke the protocol) in the middle of a session (exit 2)."""


class ServerTimeout(InfrastructureError):
    """A tool server did not answer a call in time (exit 2): the server, not the app under test, failed."""


@dataclass
class RunningServer:
    spec: ServerSpec
    launch: Launch | None = None
    process: ServerProcess | None = None
    conn: Connection | None = None
    tools: list[ListedTool] = field(default_factory=list)
    registry: ServerRegistry | None = None
    registered: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    protocol_reported: bool = False
    """Whether a message already quoted the server's stdout garbage (else the session end reports it)."""

    @property
    def label(self) -> str:
        what = self.launch.describe() if self.launch is not None else (self.spec.url or "")
        return f"MCP server '{self.spec.name}' ({what})" if what else f"MCP server '{self.spec.name}'"

    def tail(self) -> str:
        return tail_text(self.process.stderr_tail) if self.process is not None else ""


class SessionServers:
    """Per-session state, stored in ``session.resources["mcp_subprocess"]``."""

    def __init__(self, session: Session, specs: list[ServerSpec]) -> None:
        self.session = session
        self.specs = specs
        self.servers: dict[str, RunningServer] = {}
        self.loop: LoopThread | None = None
        self.base_url: str | None = None
        self._hub = callbacks.hub()
        self._closed = False
        self._template: MetaTemplate | None = None

    # -- start --------------------------------------------------------------------------------
    def start(self) -> None:
        reaper.install()  # on this (the runner's) thread: signal handlers can only be set on the main thread
        try:
            self.base_url = self._hub.acquire()
            self.loop = LoopThread(f"trailblaze-mcp-{self.session.id}")
            # Spawned on the loop's own thread: a server's parent-death signal follows the thread that forked it.
            results = self.loop.run(self._start_all(), on_loop_thread=True)
            failures = [r for r in results if isinstance(r, BaseException)]
            if failures:
                first = failures[0]
                if isinstance(first, Exception):
                    raise first
                raise ServerStartError(str(first))
            self._register_all()
        except BaseException:
            with contextlib.suppress(ServerCrashed):  # the start failure is the news, not a late garbage line
                self.close()
            raise

    async def _start_all(self) -> list[Any]:
        return await asyncio.gather(*(self._start_one(spec) for spec in self.specs), return_exceptions=True)

    async def _start_one(self, spec: ServerSpec) -> RunningServer:
        from .sdk import Connection

        rs = RunningServer(spec)
        self.servers[spec.name] = rs
        timeout = spec.handshake_seconds()
        if spec.transport == "http":
            assert spec.url is not None
            try:
                rs.conn = await Connection.open_http(spec.url, headers=dict(spec.headers), timeout=timeout)
            except RequestTimeout:
                raise ServerStartError(f"{rs.label} did not answer initialize within {timeout:g}s") from None
            except (ConnectionLost, ProtocolError) as exc:
                raise ServerStartError(f"cannot connect to {rs.label}: {exc}",
                                       hint=f"is it running? declared in {spec.source}") from None
        else:
            device = self.session.device
            rs.launch = launch_for(spec, device=device, session_id=self.session.id, base_url=self.base_url)
            stderr_file = None
            if self.session.log.enabled:
                stderr_file = self.session.log_dir / f"mcp_{_safe(spec.name)}_stderr.log"
            rs.process = ServerProcess(spec.name, rs.launch, stderr_file=stderr_file)
            try:
                await rs.process.start()
            except OSError as exc:
                raise ServerStartError(f"cannot start {rs.label}: {exc.strerror or exc}",
                                       hint=f"check 'command' in {spec.source}") from None
            try:
                rs.conn = await Connection.open_stdio(rs.process, timeout=timeout)
            except RequestTimeout:
                await rs.process.stderr_settled(0.2)
                raise ServerStartError(
                    f"{rs.label} did not answer initialize within {timeout:g}s (raise handshakeTimeoutSeconds or "
                    f"TRAILBLAZE_MCP_SUBPROCESS_HANDSHAKE_TIMEOUT_MS if it is just slow); {rs.tail()}") from None
            except (ConnectionLost, ProtocolError) as exc:
                raise ServerStartError(await self._death_message(rs, "during initialize", exc)) from None
        try:
            rs.tools = await rs.conn.list_tools(timeout=timeout)
            if rs.conn.hello.has_resources:
                try:
                    rs.registry = parse_registry(await rs.conn.read_json_resource(REGISTRY_URI, timeout=timeout))
                except ProtocolError:
                    rs.registry = None  # optional resource: most servers do not offer it
        except RequestTimeout as exc:
            raise ServerStartError(f"{rs.label}: {exc}; {rs.tail()}") from None
        except (ConnectionLost, ProtocolError) as exc:
            raise ServerStartError(await self._death_message(rs, "during tools/list", exc)) from None
        return rs

    async def _death_message(self, rs: RunningServer, during: str, exc: BaseException) -> str:
        proc = rs.process
        if proc is None:
            return f"lost the connection to {rs.label} during {during}: {exc}"
        if proc.protocol_error is None:  # garbage needs no exit to explain it; a death does
            await proc.wait_exit(2.0)
        await proc.stderr_settled(1.0 if proc.protocol_error is None else 0.2)
        if proc.protocol_error is not None:
            return self._garbage_message(rs, during)
        if proc.returncode is not None:
            missing = missing_module(proc.stderr_tail)
            why = f" ({missing_module_hint(missing)})" if missing else ""
            return f"{rs.label} exited with code {proc.returncode} {during}{why}; {rs.tail()}"
        if isinstance(exc, ProtocolError):
            return f"{rs.label} failed {during.removeprefix('during ')}: {exc}; {rs.tail()}"
        return f"{rs.label} closed the connection {during}: {exc}; {rs.tail()}"

    def _garbage_message(self, rs: RunningServer, during: str) -> str:
        assert rs.process is not None
        rs.protocol_reported = True
        return (f"{rs.label} wrote something that is not JSON-RPC to stdout {during}: "
                f"{rs.process.protocol_error!r} (stdout is the MCP channel: log to stderr); {rs.tail()}")

    # -- registration -------------------------------------------------------------------------
    def _register_all(self) -> None:
        registry = self.session.registry
        for spec in self.specs:
            rs = self.servers[spec.name]
            listed = {t.name for t in rs.tools}
            missing = [n for n in spec.declared if n not in listed]
            if missing:
                raise BadInputError(f"{rs.label} does not serve tool(s) {', '.join(missing)} that "
                                    f"{spec.source} declares (it lists: {', '.join(sorted(listed)) or 'none'})")
            for tool in rs.tools:
                if tool.name in spec.declared:
                    self._adopt_declared(rs, tool)
                    continue
                definition = self._definition(rs, tool)
                if definition is None:
                    continue
                registry.add(definition)
                rs.registered.append(tool.name)
            self.session.log.write("McpServerStartedLog", {
                "server": spec.name, "transport": spec.transport,
                "command": list(rs.launch.argv) if rs.launch else None, "url": spec.url,
                "runtime": rs.launch.runtime if rs.launch else None,
                "pid": rs.process.pid if rs.process else None,
                "serverInfo": {"name": rs.conn.hello.name, "version": rs.conn.hello.version} if rs.conn else None,
                "tools": [t.name for t in rs.tools], "registered": rs.registered, "skipped": rs.skipped,
            })

    def _adopt_declared(self, rs: RunningServer, tool: ListedTool) -> None:
        """A tool a ``script:`` file declared: already registered; take the server's schema if it gave none."""
        existing = self.session.registry.get(tool.name)
        if isinstance(existing, McpToolDefinition) and existing.input_schema is None and tool.input_schema:
            self.session.registry.replace(replace(existing, input_schema=sanitize_schema(tool.input_schema)))
        rs.registered.append(tool.name)

    def _meta_for(self, rs: RunningServer, tool: ListedTool) -> ToolMeta:
        reg = rs.registry.tools.get(tool.name) if rs.registry is not None else None
        return merge(parse_tool_meta(tool.meta), reg)

    def _definition(self, rs: RunningServer, tool: ListedTool) -> McpToolDefinition | None:
        meta = self._meta_for(rs, tool)
        device = self.session.device
        any_device = device.driver == "any"
        reason = filter_reason(meta, driver=None if any_device else device.driver,
                               platform=None if any_device else device.platform,
                               host_agent=self.session.options.get("agent_mode", "host") != "ondevice")
        if reason is not None:
            rs.skipped[tool.name] = reason
            return None
        toolsets = tuple(dict.fromkeys(([meta.toolset] if meta.toolset else []) + list(meta.groups)))
        extra_meta = dict(tool.meta)
        if rs.registry is not None:
            for group in meta.groups:
                info = rs.registry.groups.get(group)
                if info is not None:
                    extra_meta.setdefault("trailblaze/groups", {})[group] = {
                        "description": info.description, "defaultEnabled": info.default_enabled}
        spec = rs.spec
        return McpToolDefinition(
            name=tool.name, description=tool.description,
            source=ToolSource(file=spec.script if spec.script is not None else spec.source.file,
                              line=None if spec.script is not None else spec.source.line, server=spec.name),
            surface_to_llm=meta.surface, is_recordable=meta.recordable, requires_host=meta.host_only,
            delegating=bool(meta.is_delegating),
            platforms=frozenset(p.lower() for p in meta.supported_platforms) or None,
            drivers=frozenset(meta.supported_drivers) or None,
            trailmap=spec.trailmap, toolsets=toolsets, meta=extra_meta,
            server=spec.name, input_schema=sanitize_schema(tool.input_schema))

    # -- calls --------------------------------------------------------------------------------
    def call(self, definition: McpToolDefinition, args: dict[str, Any], ctx: ToolContext) -> ToolResult | list[ToolCall]:
        rs = self.servers.get(definition.server)
        if rs is None or rs.conn is None or self.loop is None or self._closed:
            raise InfrastructureError(f"tool '{definition.name}': MCP server '{definition.server}' is not running "
                                      "in this session")
        proc = rs.process
        if proc is not None and proc.protocol_error is not None:  # garbage while idle: the channel is broken
            raise ServerCrashed(self._garbage_message(rs, f"before tools/call '{definition.name}'"))
        if proc is not None and proc.returncode is not None:
            raise ServerCrashed(self.loop.run(self._death_message(rs, f"during tools/call '{definition.name}'",
                                                                     ConnectionLost("exited"))))
        session = self.session
        inv = self._hub.open(ctx, definition.name, rs.spec.name, rs.spec.allow_host_callbacks)
        try:
            template = self._template
            if template is None:
                template = self._template = MetaTemplate(
                    session_id=session.id, device=session.device, base_url=self.base_url,
                    target=target_envelope(session.target), capabilities=CAPABILITIES)
            memory = session.memory.snapshot()  # one copy serves both envelopes (serializing never mutates)
            meta = {META_KEY: template.meta(invocation_id=inv.id, memory=memory, callback_token=inv.token),
                    INVOCATION_META_KEY: inv.id}
            wire_args = {**args, CONTEXT_ARG: template.legacy(memory)}
            future = self.loop.submit(rs.conn.call_tool(definition.name, wire_args, meta=meta,
                                                        timeout=rs.spec.call_seconds()))
            try:
                callbacks.run_callbacks_until(inv, future)  # on this thread, which owns the driver
                outcome = future.result()
            except ConnectionLost as exc:
                if proc is None:
                    raise ServerCrashed(f"lost the connection to {rs.label} during tools/call "
                                        f"'{definition.name}': {exc}") from None
                raise ServerCrashed(self.loop.run(self._death_message(rs, f"during tools/call '{definition.name}'", exc))) from None
            except RequestTimeout:
                raise ServerTimeout(f"{rs.label} did not answer tools/call '{definition.name}' within "
                                    f"{rs.spec.call_seconds():g}s (callTimeoutSeconds); {rs.tail()}") from None
            except ProtocolError as exc:
                code = f" (JSON-RPC {exc.code})" if exc.code is not None else ""
                return ToolResult(False, f"{rs.label} rejected tools/call '{definition.name}': {exc}{code}")
            except BaseException:
                future.cancel()  # interrupted (Ctrl-C): the call must not keep running
                raise
        finally:
            self._hub.close(inv)
        return self._map(definition, outcome)

    def _map(self, definition: McpToolDefinition, outcome: CallOutcome) -> ToolResult | list[ToolCall]:
        delegates = delegates_of(outcome, tool=definition.name)
        if delegates is not None:
            self._apply_memory(outcome)
            return delegates
        result = to_tool_result(outcome)
        if result.success:
            self._apply_memory(outcome)
        return result

    def _apply_memory(self, outcome: CallOutcome) -> None:
        delta, deletions = memory_changes(outcome.meta)
        if delta or deletions:
            self.session.memory.apply_delta(delta, deletions)

    # -- reload -------------------------------------------------------------------------------
    def reload(self) -> dict[str, Any]:
        """Re-read every server's tool list; register new tools, drop vanished ones (added/removed/total)."""
        if self.loop is None or self._closed:
            raise InfrastructureError("MCP servers of this session are not running")
        registry = self.session.registry
        added: list[str] = []
        removed: list[str] = []
        for name, rs in self.servers.items():
            if rs.conn is None:
                continue
            timeout = rs.spec.handshake_seconds()
            try:
                rs.tools = self.loop.run(rs.conn.list_tools(timeout=timeout))
                if rs.conn.hello.has_resources:
                    try:
                        rs.registry = parse_registry(self.loop.run(rs.conn.read_json_resource(REGISTRY_URI, timeout=timeout)))
                    except ProtocolError:
                        rs.registry = None
            except (ConnectionLost, RequestTimeout, ProtocolError) as exc:
                raise ServerCrashed(f"{rs.label} failed tools/list during reloadTools: {exc}; {rs.tail()}") from None
            listed = {t.name: t for t in rs.tools}
            for old in list(rs.registered):
                if old not in listed and old not in rs.spec.declared:
                    registry.remove(old)
                    rs.registered.remove(old)
                    removed.append(old)
            rs.skipped = {}
            for tool in rs.tools:
                if tool.name in rs.spec.declared:
                    continue
                definition = self._definition(rs, tool)
                current = registry.get(tool.name)
                if tool.name in rs.registered:
                    if definition is None:
                        registry.remove(tool.name)
                        rs.registered.remove(tool.name)
                        removed.append(tool.name)
                    elif isinstance(current, McpToolDefinition) and current.server == name:
                        registry.replace(definition)
                    continue
                if definition is None:
                    continue
                registry.add(definition)
                rs.registered.append(tool.name)
                added.append(tool.name)
        result = {"added": sorted(added), "removed": sorted(removed), "total": len(registry)}
        self.session.log.write("McpToolsReloadedLog", result)
        return result

    # -- stop ---------------------------------------------------------------------------------
    def close(self) -> None:
        """Stop every server (stdin → 5 s → SIGTERM → 2 s → SIGKILL), the loop, the callback hub. Idempotent."""
        if self._closed:
            return
        self._closed = True
        garbage: list[str] = []
        try:
            if self.loop is not None and self.loop.alive:
                stops = self.loop.run(self._stop_all())
                for rs, how in zip(list(self.servers.values()), stops):
                    if rs.process is None:
                        continue
                    self.session.log.write("McpServerStoppedLog", {
                        "server": rs.spec.name, "pid": rs.process.pid, "stop": str(how),
                        "exitCode": rs.process.returncode, "stderrTail": list(rs.process.stderr_tail),
                        "protocolError": rs.process.protocol_error})
                    if rs.process.protocol_error is not None and not rs.protocol_reported:
                        # Garbage after the last answer broke no call, but it is a bug the author must hear of.
                        garbage.append(self._garbage_message(rs, "after its last answer"))
        except BaseException:
            for rs in self.servers.values():
                if rs.process is not None:
                    rs.process.kill_now()
            raise
        finally:
            if self.loop is not None:
                self.loop.stop()
            if self.base_url is not None:
                self._hub.release()
                self.base_url = None
        if garbage:
            raise ServerCrashed("; ".join(garbage))

    async def _stop_all(self) -> list[Any]:
        return await asyncio.gather(*(self._stop_one(rs) for rs in list(self.servers.values())),
                                    return_exceptions=True)

    async def _stop_one(self, rs: RunningServer) -> str:
        if rs.conn is not None:
            await rs.conn.close()
        how = "connected (not stopped)" if rs.process is None else await rs.process.stop(
            stdin_grace=_env_seconds("TRAILBLAZE_MCP_STDIN_GRACE_MS", 5.0),
            term_grace=_env_seconds("TRAILBLAZE_MCP_TERM_GRACE_MS", 2.0))
        if rs.conn is not None:
            await rs.conn.finish_side_tasks()
        return how


def _env_seconds(name: str, default: float) -> float:
    raw = os.environ.get(name)
    try:
        return int(raw) / 1000 if raw else default
    except ValueError:
        return default


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80]


def state_of(session: Session) -> SessionServers | None:
    state = session.resources.get(STATE_KEY)
    return state if isinstance(state, SessionServers) else None
