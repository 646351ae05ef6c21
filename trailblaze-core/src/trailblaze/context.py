"""What a tool sees while it runs: its session, the device, memory and a way to call other tools.

``ToolContext`` sits below the tool model (``Tool.execute`` takes one) and below the session (which
makes them), so it names the session only through the protocols here: ``ToolSession`` is what a tool
sees of its session, ``ToolNames``, ``CallCodec`` and ``CallDispatcher`` are what it sees of the
session's registry, codec and dispatcher. The concrete ``trailblaze.session.Session`` implements them;
a plugin that needs the whole session (its host, the registry's definitions) gets it with
``trailblaze.session.session_of(ctx)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .contract.calls import ToolCall, ToolResult
from .contract.device import DeviceDriver, DeviceInfo

if TYPE_CHECKING:
    from .config import WorkspaceConfig
    from .logs import SessionLog
    from .memory import Memory
    from .targets import TargetInfo


class ToolNames(Protocol):
    """The session's tool registry as a tool sees it: which names it holds."""

    def names(self) -> list[str]: ...

    def __contains__(self, name: object) -> bool: ...

    def __len__(self) -> int: ...


class CallCodec(Protocol):
    """The session's codec as a tool sees it: reading calls the way recordings are read (a YAML tool's
    expansion, a server's callback), through the same plugin decoders."""

    def decode(self, name: str, args: dict[str, Any]) -> ToolCall: ...

    def decode_yaml_item(self, item: Any) -> ToolCall: ...

    def decode_json(self, obj: Mapping[str, Any]) -> ToolCall: ...

    def encode_yaml(self, call: ToolCall) -> dict[str, Any]: ...


class CallDispatcher(Protocol):
    """The one path every tool call takes (``trailblaze.session.Dispatcher``)."""

    def call(self, call: ToolCall, ctx: ToolContext, *, top_level: bool = True) -> ToolResult: ...


class ToolSessionOptions(Protocol):
    """What a tool sees of how its session was opened (``trailblaze.session.SessionOptions`` is one);
    the run's options, with its secrets, are not part of it."""

    @property
    def listing(self) -> bool: ...

    @property
    def agent_mode(self) -> str: ...

    @property
    def extra(self) -> dict[str, Any]: ...


class ToolSession(Protocol):
    """A session as a tool sees it (``ToolContext.session``). Read-only here: the runner owns it."""

    @property
    def id(self) -> str: ...

    @property
    def workspace(self) -> WorkspaceConfig: ...

    @property
    def registry(self) -> ToolNames: ...

    @property
    def memory(self) -> Memory: ...

    @property
    def log(self) -> SessionLog: ...

    @property
    def log_dir(self) -> Path: ...

    @property
    def driver(self) -> DeviceDriver | None: ...

    @property
    def device(self) -> DeviceInfo: ...

    @property
    def target(self) -> str | None: ...

    @property
    def target_info(self) -> TargetInfo | None: ...

    @property
    def trail(self) -> Any: ...

    @property
    def title(self) -> str | None: ...

    @property
    def resources(self) -> dict[str, Any]: ...

    @property
    def options(self) -> ToolSessionOptions: ...

    @property
    def dispatcher(self) -> CallDispatcher: ...

    @property
    def codec(self) -> CallCodec: ...


@dataclass
class ToolContext:
    """Passed to every tool invocation. Cheap to create; one per top-level call (children share it)."""

    session: ToolSession
    depth: int = 0
    chain: tuple[str, ...] = ()
    step_index: int | None = None
    invocation_id: str | None = None
    replaying: bool = False
    """True while the runner replays a recording. A bare element id (``e4``) in a recording was numbered by
    whoever recorded it (upstream's compact element list), not by this session's last snapshot, so
    drivers resolve it by the recording's rule."""
    extras: dict[str, Any] = field(default_factory=dict)
    attempt: int = 1
    """1 for a call as written; ``n`` for the ``n``-th run of it through ``retry``."""

    @property
    def driver(self) -> DeviceDriver | None:
        return self.session.driver

    @property
    def device(self) -> DeviceInfo:
        return self.session.device

    @property
    def memory(self) -> Memory:
        return self.session.memory

    @property
    def registry(self) -> ToolNames:
        return self.session.registry

    @property
    def artifacts_dir(self) -> Path:
        return self.session.log_dir

    def call_tool(self, name: str, args: dict[str, Any] | None = None) -> ToolResult:
        """Run another tool through the same dispatch (validation, memory, logging) and return its result.

        Used by scripted tools calling back, and by tools that compose others. Failures come back as a
        ``ToolResult`` with ``success=False`` rather than raising, so callers can decide.
        """
        return self.session.dispatcher.call(ToolCall(name, args or {}), self, top_level=False)

    def run(self, call: ToolCall) -> ToolResult:
        return self.session.dispatcher.call(call, self, top_level=False)

    def retry(self, call: ToolCall) -> ToolResult:
        """Run ``call`` once more, the whole way: memory, argument checks, every execute wrapper (the
        calling one included) and the owning plugin, with its own entry in the session log.

        For an execute wrapper that decides the owner's answer was a flake: ``return context.retry(call)``
        after ``yield``. The new run's context has ``attempt`` one higher (stop on it, or the wrapper
        retries forever) and sits one level below the call it repeats, so a recording keeps the call
        as written once, not once per attempt."""
        again = ToolContext(self.session, depth=self.depth + 1, chain=self.chain, step_index=self.step_index,
                            invocation_id=self.invocation_id, extras=self.extras, attempt=self.attempt + 1)
        return self.session.dispatcher.call(call, again, top_level=False)


__all__ = [
    "CallCodec", "CallDispatcher", "ToolContext", "ToolNames", "ToolSession", "ToolSessionOptions",
]
