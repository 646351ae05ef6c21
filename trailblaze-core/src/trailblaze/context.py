"""What a tool sees while it runs: the session, its device, memory and a way to call other tools."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .driver import DeviceInfo, Driver
    from .memory import Memory
    from .session import Session
    from .tools.base import ToolCall, ToolResult
    from .tools.registry import ToolRegistry


@dataclass
class ToolContext:
    """Passed to every tool invocation. Cheap to create; one per top-level call (children share it)."""

    session: "Session"
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
    def driver(self) -> "Driver | None":
        return self.session.driver

    @property
    def device(self) -> "DeviceInfo":
        return self.session.device

    @property
    def memory(self) -> "Memory":
        return self.session.memory

    @property
    def registry(self) -> "ToolRegistry":
        return self.session.registry

    @property
    def artifacts_dir(self) -> Path:
        return self.session.log_dir

    def call_tool(self, name: str, args: dict[str, Any] | None = None) -> "ToolResult":
        """Run another tool through the same dispatch (validation, memory, logging) and return its result.

        Used by scripted tools calling back, and by tools that compose others. Failures come back as a
        ``ToolResult`` with ``success=False`` rather than raising, so callers can decide.
        """
        from .tools.base import ToolCall

        return self.session.dispatcher.call(ToolCall(name, args or {}), self, top_level=False)

    def run(self, call: "ToolCall") -> "ToolResult":
        return self.session.dispatcher.call(call, self, top_level=False)

    def retry(self, call: "ToolCall") -> "ToolResult":
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
    "ToolContext",
]
