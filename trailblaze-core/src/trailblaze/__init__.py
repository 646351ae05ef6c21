"""Trailblaze for Python: AI-driven UI testing with recorded, replayable trails.

The public API for plugin authors lives here: ``hookimpl`` to implement hooks, ``Tool`` and
``DelegatingTool`` to write class-backed tools, ``Driver`` to add a device kind, ``CONTRACT_VERSION``
to know which hooks exist. Attributes are resolved lazily so ``import trailblaze`` stays cheap for the
CLI; ``__all__`` is a literal list and the same names are imported under ``TYPE_CHECKING``, so type
checkers (``mypy --strict``) see every export without the imports running.

The documented submodules are public too, each through its ``__all__``: ``trailblaze.tools`` (and
``.base``, ``.codec``, ``.descriptors``, ``.params``, ``.registry``, ``.serialization``),
``trailblaze.selectors``,
``trailblaze.driver``, ``trailblaze.session``, ``trailblaze.context``, ``trailblaze.memory``,
``trailblaze.errors``, ``trailblaze.config``, ``trailblaze.checks``, ``trailblaze.targets``,
``trailblaze.plugins``, ``trailblaze.yamlio``, ``trailblaze.testing``, ``trailblaze.testing_llm``,
``trailblaze.runner``, ``trailblaze.runner.lifecycle``, ``trailblaze.reuse`` (resources a driver shares
between the sessions of a run), ``trailblaze.children`` (child processes that die with the runner),
``trailblaze.schemas`` (editor JSON Schemas), ``trailblaze.yamlstream`` (the bounded YAML reader),
``trailblaze.waypoints`` (waypoint files and matching), ``trailblaze.waypoint_files`` (finding them
without importing the models), ``trailblaze.recorder`` (what a driver's
``record_actions`` returns), ``trailblaze.files`` (writing a file atomically), ``trailblaze.untrusted``
(outside text made valid, terminal-safe and fit for an output file), ``trailblaze.host_settings``
(driver settings that reach the host) and ``trailblaze.pytest_plugin`` (see docs/writing-a-plugin.md,
docs/pytest.md). Anything
else, and any name outside a module's ``__all__``, is internal and may change; a test keeps the
in-repo plugins and examples on this surface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__
from ._moved import install as _install_moved
from .contract.markers import hookimpl

_install_moved()  # the module paths that moved into layer packages still import, deprecated

_LAZY = {
    "CONTRACT_VERSION": "trailblaze.hookspecs",
    "Tool": "trailblaze.tools.base",
    "DelegatingTool": "trailblaze.tools.base",
    "ToolCall": "trailblaze.tools.base",
    "OtherTool": "trailblaze.tools.base",
    "ToolResult": "trailblaze.tools.base",
    "ToolDefinition": "trailblaze.tools.base",
    "ToolSource": "trailblaze.tools.base",
    "ToolRegistry": "trailblaze.tools.registry",
    "ParameterSchema": "trailblaze.tools.params",
    "ParameterDefinition": "trailblaze.tools.params",
    "ParamType": "trailblaze.tools.params",
    "ToolDescriptor": "trailblaze.tools.descriptors",
    "Driver": "trailblaze.driver",
    "DriverConfig": "trailblaze.driver",
    "DriverRegistry": "trailblaze.driver",
    "DeviceInfo": "trailblaze.driver",
    "ToolContext": "trailblaze.context",
    "SessionOutcome": "trailblaze.session",
    "WorkspaceConfig": "trailblaze.config",
    "TargetInfo": "trailblaze.targets",
    "CheckReport": "trailblaze.checks",
    "TrailblazeError": "trailblaze.errors",
    "BadInputError": "trailblaze.errors",
    "InfrastructureError": "trailblaze.errors",
    "DriverError": "trailblaze.errors",
    "ToolFailure": "trailblaze.errors",
    "ConfigError": "trailblaze.errors",
    "ExitCode": "trailblaze.errors",
}

__all__ = [
    "CONTRACT_VERSION",
    "__version__",
    "hookimpl",
    "BadInputError",
    "CheckReport",
    "ConfigError",
    "DelegatingTool",
    "DeviceInfo",
    "Driver",
    "DriverConfig",
    "DriverError",
    "DriverRegistry",
    "ExitCode",
    "InfrastructureError",
    "OtherTool",
    "ParamType",
    "ParameterDefinition",
    "ParameterSchema",
    "SessionOutcome",
    "TargetInfo",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolDefinition",
    "ToolDescriptor",
    "ToolFailure",
    "ToolRegistry",
    "ToolResult",
    "ToolSource",
    "TrailblazeError",
    "WorkspaceConfig",
]

if TYPE_CHECKING:
    from .checks import CheckReport
    from .config import WorkspaceConfig
    from .context import ToolContext
    from .driver import DeviceInfo, Driver, DriverConfig, DriverRegistry
    from .hookspecs import CONTRACT_VERSION
    from .errors import (BadInputError, ConfigError, DriverError, ExitCode, InfrastructureError, ToolFailure,
                         TrailblazeError)
    from .session import SessionOutcome
    from .targets import TargetInfo
    from .tools.base import DelegatingTool, OtherTool, Tool, ToolCall, ToolDefinition, ToolResult, ToolSource
    from .tools.descriptors import ToolDescriptor
    from .tools.params import ParameterDefinition, ParameterSchema, ParamType
    from .tools.registry import ToolRegistry


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'trailblaze' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value
