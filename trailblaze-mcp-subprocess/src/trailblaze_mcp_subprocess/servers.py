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
from typing import TYPE_CHECKING, Any

from trailblaze import InfrastructureError, ToolCall, ToolResult

from . import callbacks, reaper
from .config import ServerSpec
from .definitions import STATE_KEY, McpToolDefinition
from .envelope import (
    CONTEXT_ARG,
    INVOCATION_META_KEY,
    META_KEY,
    MetaTemplate,
    memory_changes,
    target_envelope,
)
from .loop import LoopThread
from .meta import REGISTRY_URI, parse_registry
from .registration import register_all, update_registered
from .results import delegates_of, to_tool_result
from .running import RunningServer, ServerCrashed, ServerStartError, ServerTimeout
from .wire import CallOutcome, ConnectionLost, ProtocolError, RequestTimeout, ResultRefused

if TYPE_CHECKING:
    from trailblaze import Session, ToolContext

__all__ = ["CAPABILITIES", "RunningServer", "ServerCrashed", "ServerStartError", "ServerTimeout", "SessionServers",
           "state_of"]

CAPABILITIES = {"callbacks": True, "sampling": False}


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
            register_all(self.session, self.specs, self.servers)
        except BaseException:
            with contextlib.suppress(ServerCrashed):  # the start failure is the news, not a late garbage line
                self.close()
            raise

    async def _start_all(self) -> list[Any]:
        return await asyncio.gather(*(self._start_one(spec) for spec in self.specs), return_exceptions=True)

    async def _start_one(self, spec: ServerSpec) -> RunningServer:
        rs = RunningServer(spec)
        self.servers[spec.name] = rs  # before it starts: ``close`` stops a half-started server too
        await rs.start(self.session, self.base_url)
        return rs

    # -- calls --------------------------------------------------------------------------------
    def call(self, definition: McpToolDefinition, args: dict[str, Any], ctx: ToolContext) -> ToolResult | list[ToolCall]:
        rs = self.servers.get(definition.server)
        if rs is None or rs.conn is None or self.loop is None or self._closed:
            raise InfrastructureError(f"tool '{definition.name}': MCP server '{definition.server}' is not running "
                                      "in this session")
        proc = rs.process
        if proc is not None and proc.protocol_error is not None:  # garbage while idle: the channel is broken
            raise ServerCrashed(rs.garbage_message(f"before tools/call '{definition.name}'"))
        if proc is not None and proc.returncode is not None:
            raise ServerCrashed(self.loop.run(rs.death_message(f"during tools/call '{definition.name}'",
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
            try:
                outcome = callbacks.call_with_callbacks(self.loop, inv, rs.conn.call_tool(
                    definition.name, wire_args, meta=meta, timeout=rs.spec.call_seconds()))
            except ConnectionLost as exc:
                if proc is None:
                    raise ServerCrashed(f"lost the connection to {rs.label} during tools/call "
                                        f"'{definition.name}': {exc}") from None
                raise ServerCrashed(self.loop.run(rs.death_message(f"during tools/call '{definition.name}'", exc))) from None
            except RequestTimeout:
                raise ServerTimeout(f"{rs.label} did not answer tools/call '{definition.name}' within "
                                    f"{rs.spec.call_seconds():g}s (callTimeoutSeconds); {rs.tail()}") from None
            except ProtocolError as exc:
                code = f" (JSON-RPC {exc.code})" if exc.code is not None else ""
                return ToolResult(False, f"{rs.label} rejected tools/call '{definition.name}': {exc}{code}")
            except ResultRefused as exc:
                return ToolResult(False, f"{rs.label} answered tools/call '{definition.name}' with a result that "
                                         f"does not fit the tool's outputSchema: {exc}")
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
            added_here, removed_here = update_registered(self.session, rs, name)
            added += added_here
            removed += removed_here
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
                        garbage.append(rs.garbage_message("after its last answer"))
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
        return await asyncio.gather(*(rs.stop() for rs in list(self.servers.values())),
                                    return_exceptions=True)


def state_of(session: Session) -> SessionServers | None:
    state = session.resources.get(STATE_KEY)
    return state if isinstance(state, SessionServers) else None
