"""What a plugin may ask of the other plugins while it registers: the narrow face of the plugin host.

``trailblaze_register_tools`` hands this to a plugin instead of the whole ``PluginHost``, so the contract
(``hookspecs.py``) names an interface below the host rather than the host that loads the contract: the
two sit on different floors and the plugin machinery stays free to change behind the protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .tools.base import ToolSource

if TYPE_CHECKING:
    from .config import WorkspaceConfig
    from .tools.base import ToolCall, ToolDefinition
    from .tools.registry import ToolRegistry


@dataclass
class PluginInfo:
    """One loaded (or failed) plugin as ``trailblaze plugins`` lists it."""

    name: str
    distribution: str | None
    version: str | None
    builtin: bool
    status: str = "ok"
    hooks: list[str] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    """What loads but is likely a mistake (a ``trailblaze_*`` function without ``@hookimpl``)."""
    shared_name: bool = False
    """Another installed distribution declares the same entry-point name."""

    @property
    def switch(self) -> str:
        """The ``TRAILBLAZE_DISABLE_PLUGINS`` value that turns off this plugin and no other: its
        entry-point name, or ``name@distribution`` where two distributions declare the same name."""
        return f"{self.name}@{self.distribution}" if self.shared_name and self.distribution else self.name

    def fail(self, status: str, error: str) -> None:
        """Mark the plugin as failed; the first failure stays the one ``trailblaze plugins`` shows."""
        if self.error is None:
            self.status, self.error = status, error

    @property
    def source(self) -> ToolSource:
        return ToolSource(plugin=self.name, distribution=self.distribution, version=self.version)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "distribution": self.distribution, "version": self.version,
                "builtin": self.builtin, "status": self.status, "hooks": self.hooks, "warnings": self.warnings}


class PluginQueries(Protocol):
    """The questions ``trailblaze_register_tools`` may put to the other plugins; ``PluginHost`` answers.

    A plugin that reads tool files asks for packaged trailmap directories and ``script:`` tool factories,
    decodes a tool reference through every plugin's decoder, and keys its cache on the plugin set.
    """

    def plugins(self, *, include_builtins: bool = False) -> list[PluginInfo]: ...

    def trailmap_dirs(self) -> list[tuple[ToolSource, Path]]: ...

    def script_tools(self, spec: Any, config: WorkspaceConfig) -> list[ToolDefinition] | None: ...

    def decode_tool(self, name: str, args: dict[str, Any], registry: ToolRegistry | None) -> ToolCall: ...


__all__ = ["PluginInfo", "PluginQueries"]
