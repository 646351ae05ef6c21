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

__all__ = [
    "ToolContext",
]
