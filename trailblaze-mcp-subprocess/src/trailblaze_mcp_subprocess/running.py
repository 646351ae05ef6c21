"""One tool server of a session while it runs: started (spawned or connected, initialized, its tools
listed), its death or broken protocol told in one message with exit code and stderr tail, and stopped.

``servers.SessionServers`` starts and stops all of a session's servers through these; the errors here
are what a session sees when a server fails (all exit 2).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from trailblaze import InfrastructureError

from .config import ServerSpec
from .meta import REGISTRY_URI, ServerRegistry, parse_registry
from .process import ServerProcess, tail_text
from .runtimes import missing_module, missing_module_hint
from .spawn import launch_for
from .wire import ConnectionLost, ListedTool, ProtocolError, RequestTimeout

if TYPE_CHECKING:
    from trailblaze import Session

    from .process import Launch
    from .sdk import Connection


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

    async def start(self, session: Session, base_url: str | None) -> None:
        """Spawn or connect, initialize within the handshake timeout, list the tools (and the optional
        ``trailblaze://registry`` resource); a failure is a ``ServerStartError`` naming why."""
        from .sdk import Connection

        spec = self.spec
        timeout = spec.handshake_seconds()
        if spec.transport == "http":
            assert spec.url is not None
            try:
                self.conn = await Connection.open_http(spec.url, headers=dict(spec.headers), timeout=timeout)
            except RequestTimeout:
                raise ServerStartError(f"{self.label} did not answer initialize within {timeout:g}s") from None
            except (ConnectionLost, ProtocolError) as exc:
                raise ServerStartError(f"cannot connect to {self.label}: {exc}",
                                       hint=f"is it running? declared in {spec.source}") from None
        else:
            device = session.device
            self.launch = launch_for(spec, device=device, session_id=session.id, base_url=base_url)
            stderr_file = None
            if session.log.enabled:
                stderr_file = session.log_dir / f"mcp_{_safe(spec.name)}_stderr.log"
            self.process = ServerProcess(spec.name, self.launch, stderr_file=stderr_file)
            try:
                await self.process.start()
            except OSError as exc:
                raise ServerStartError(f"cannot start {self.label}: {exc.strerror or exc}",
                                       hint=f"check 'command' in {spec.source}") from None
            try:
                self.conn = await Connection.open_stdio(self.process, timeout=timeout)
            except RequestTimeout:
                await self.process.stderr_settled(0.2)
                raise ServerStartError(
                    f"{self.label} did not answer initialize within {timeout:g}s (raise handshakeTimeoutSeconds or "
                    f"TRAILBLAZE_MCP_SUBPROCESS_HANDSHAKE_TIMEOUT_MS if it is just slow); {self.tail()}") from None
            except (ConnectionLost, ProtocolError) as exc:
                raise ServerStartError(await self.death_message("during initialize", exc)) from None
        try:
            self.tools = await self.conn.list_tools(timeout=timeout)
            if self.conn.hello.has_resources:
                try:
                    self.registry = parse_registry(await self.conn.read_json_resource(REGISTRY_URI, timeout=timeout))
                except ProtocolError:
                    self.registry = None  # optional resource: most servers do not offer it
        except RequestTimeout as exc:
            raise ServerStartError(f"{self.label}: {exc}; {self.tail()}") from None
        except (ConnectionLost, ProtocolError) as exc:
            raise ServerStartError(await self.death_message("during tools/list", exc)) from None

    async def death_message(self, during: str, exc: BaseException) -> str:
        proc = self.process
        if proc is None:
            return f"lost the connection to {self.label} during {during}: {exc}"
        if proc.protocol_error is None:  # garbage needs no exit to explain it; a death does
            await proc.wait_exit(2.0)
        await proc.stderr_settled(1.0 if proc.protocol_error is None else 0.2)
        if proc.protocol_error is not None:
            return self.garbage_message(during)
        if proc.returncode is not None:
            missing = missing_module(proc.stderr_tail)
            why = f" ({missing_module_hint(missing)})" if missing else ""
            return f"{self.label} exited with code {proc.returncode} {during}{why}; {self.tail()}"
        if isinstance(exc, ProtocolError):
            return f"{self.label} failed {during.removeprefix('during ')}: {exc}; {self.tail()}"
        return f"{self.label} closed the connection {during}: {exc}; {self.tail()}"

    def garbage_message(self, during: str) -> str:
        assert self.process is not None
        self.protocol_reported = True
        return (f"{self.label} wrote something that is not JSON-RPC to stdout {during}: "
                f"{self.process.protocol_error!r} (stdout is the MCP channel: log to stderr); {self.tail()}")

    async def stop(self) -> str:
        """Close the connection and stop the process (stdin → 5 s → SIGTERM → 2 s → SIGKILL)."""
        if self.conn is not None:
            await self.conn.close()
        how = "connected (not stopped)" if self.process is None else await self.process.stop(
            stdin_grace=_env_seconds("TRAILBLAZE_MCP_STDIN_GRACE_MS", 5.0),
            term_grace=_env_seconds("TRAILBLAZE_MCP_TERM_GRACE_MS", 2.0))
        if self.conn is not None:
            await self.conn.finish_side_tasks()
        return how


def _env_seconds(name: str, default: float) -> float:
    raw = os.environ.get(name)
    try:
        return int(raw) / 1000 if raw else default
    except ValueError:
        return default


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80]

