"""A workspace as sessions see it: ``trailblaze.yaml`` loaded, every plugin's tools registered and
checked once, and the codec its trails are read and written with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..checks import CheckReport
from ..config import WorkspaceConfig, load_workspace
from ..errors import TrailblazeError
from ..plugins import PluginHost
from ..tools.codec import ToolCodec
from ..tools.registry import ToolRegistry


@dataclass
class ToolWorkspace:
    """A workspace with its tools registered and checked once; sessions get a copy of the registry."""

    config: WorkspaceConfig
    registry: ToolRegistry
    check: CheckReport
    codec: ToolCodec
    """Reads and writes this workspace's tool calls through the host's plugins (trails, save-back)."""
    error: TrailblazeError | None = None
    """Set when the workspace could not be loaded; every session in it fails with this error."""
    reported: bool = False


def load_tool_workspace(root: Path | None, host: PluginHost) -> ToolWorkspace:
    """Load ``trailblaze.yaml``, register every plugin's tools and run the tool checks.

    A broken workspace is returned with ``error`` set rather than raised, so a run can report it once
    per trail instead of failing every other workspace's trails."""
    registry = ToolRegistry()
    check = CheckReport()
    try:
        config = load_workspace(root, host)
        host.register_tools(registry, config)
        host.check_tools(registry, check, config)
        return ToolWorkspace(config, registry, check, host.codec(registry))
    except TrailblazeError as exc:
        return ToolWorkspace(WorkspaceConfig(root=root or Path.cwd()), registry, check, host.codec(registry),
                             exc)
