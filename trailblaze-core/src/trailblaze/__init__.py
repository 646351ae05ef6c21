"""Trailblaze for Python: AI-driven UI testing with recorded, replayable trails.

``trailblaze`` itself is the public API: the names in ``__all__`` below are what a plugin imports from
the core (``from trailblaze import Tool, ToolResult, hookimpl``). They include every core name the
in-repo plugins, the example plugins and the ``trailblaze plugin new`` template use; a test keeps those
on this list. Two submodules are public as well, each through its ``__all__``: ``trailblaze.testing``
(the kit a plugin's tests are written with) and ``trailblaze.pytest_plugin`` (docs/pytest.md). Every
other submodule is internal and may change between minor versions.

The 33 submodules that contract 1.1 declared public (``trailblaze.tools.base``, ``trailblaze.errors``,
...) keep their names importable for one more minor version: a name that moves or goes from one of them
warns with a ``DeprecationWarning`` naming its replacement (a test imports every name of that surface,
``trailblaze-core/tests/data/public_surface_1_1.json``). docs/hooks.md ("Contract version and
deprecation policy") lists the deprecations.

Attributes are resolved lazily (``_LAZY``: ``module`` or ``module:attribute``) so ``import trailblaze``
stays cheap for the CLI; ``__all__`` is a literal list and the same names are imported under
``TYPE_CHECKING``, so type checkers (``mypy --strict``) see every export without the imports running.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._version import __version__
from ._moved import install as _install_moved
from .contract.markers import hookimpl

_install_moved()  # the module paths that moved into layer packages still import, deprecated

_LAZY = {
    "CONTRACT_VERSION": "trailblaze.hookspecs",
    "PluginQueries": "trailblaze.plugin_info",
    "PluginHost": "trailblaze.plugins",
    "ANNOTATION_KEYS": "trailblaze.tools.base",
    "ClassToolDefinition": "trailblaze.tools.base",
    "DelegatingTool": "trailblaze.tools.base",
    "OtherTool": "trailblaze.tools.base",
    "Tool": "trailblaze.tools.base",
    "ToolCall": "trailblaze.tools.base",
    "ToolDefinition": "trailblaze.tools.base",
    "ToolResult": "trailblaze.tools.base",
    "ToolSource": "trailblaze.tools.base",
    "ToolRegistry": "trailblaze.tools.registry",
    "TOOL_NAME_PATTERN": "trailblaze.tools.registry:WIRE_NAME",
    "CONSTRAINT_KEYS": "trailblaze.tools.params",
    "ParamType": "trailblaze.tools.params",
    "ParameterDefinition": "trailblaze.tools.params",
    "ParameterSchema": "trailblaze.tools.params",
    "constraints_from_json": "trailblaze.tools.params",
    "format_validation_error": "trailblaze.tools.params",
    "ToolDescriptor": "trailblaze.tools.descriptors",
    "default_descriptor": "trailblaze.tools.descriptors",
    "CORE_CODEC": "trailblaze.tools.codec",
    "RESERVED_TOOL_NAMES": "trailblaze.tools.serialization:RESERVED_NAMES",
    "ToolCallFormatError": "trailblaze.tools.serialization",
    "upstream_class_decoder": "trailblaze.tools.serialization",
    "CallCodec": "trailblaze.context",
    "ToolContext": "trailblaze.context",
    "Session": "trailblaze.session",
    "SessionLog": "trailblaze.logs",
    "SessionOutcome": "trailblaze.session",
    "session_of": "trailblaze.session",
    "suggest_tool_name": "trailblaze.session",
    "Memory": "trailblaze.memory",
    "escape_literal": "trailblaze.memory",
    "has_tokens": "trailblaze.memory",
    "secret_forms": "trailblaze.memory",
    "DeviceInfo": "trailblaze.driver",
    "Driver": "trailblaze.driver",
    "DriverConfig": "trailblaze.driver",
    "DriverRegistry": "trailblaze.driver",
    "StepInfo": "trailblaze.driver",
    "AndroidAccessibilityMatch": "trailblaze.selectors",
    "AndroidMaestroMatch": "trailblaze.selectors",
    "DriverMatch": "trailblaze.selectors",
    "IosAxeMatch": "trailblaze.selectors",
    "IosMaestroMatch": "trailblaze.selectors",
    "NodeSelector": "trailblaze.selectors",
    "SELECTOR_MAX_DEPTH": "trailblaze.selectors:MAX_DEPTH",
    "WebMatch": "trailblaze.selectors",
    "parse_selector": "trailblaze.selectors",
    "RecordOptions": "trailblaze.recorder",
    "RecordedStepDraft": "trailblaze.recorder",
    "HostKind": "trailblaze.host_settings",
    "GRID_ENDPOINT_PREFIX": "trailblaze.runner.endpoints:GRID_PREFIX",
    "host_setting": "trailblaze.host_settings",
    "current_scope": "trailblaze.reuse",
    "ActorShare": "trailblaze.reuse",
    "die_with_parent": "trailblaze.children",
    "WorkspaceConfig": "trailblaze.config",
    "load_workspace": "trailblaze.config",
    "PlatformTarget": "trailblaze.targets",
    "TargetInfo": "trailblaze.targets",
    "CheckReport": "trailblaze.checks",
    "TOOL_CALL_REF": "trailblaze.schemas",
    "model_schema": "trailblaze.schemas",
    "discover_waypoint_files": "trailblaze.waypoints.files:discover",
    "load_workspace_waypoints": "trailblaze.waypoints",
    "load_yaml": "trailblaze.yamlio:load_fast",
    "load_yaml_roundtrip": "trailblaze.yamlio:load_roundtrip",
    "locate_in_yaml": "trailblaze.yamlio:locate_in_text",
    "plain_data": "trailblaze.yamlio:plain",
    "read_yaml_text": "trailblaze.yamlio:read_text",
    "YamlLimits": "trailblaze.yamlstream:Limits",
    "BundleContext": "trailblaze.results.output_request",
    "OutputRequest": "trailblaze.results.output_request",
    "OutputOption": "trailblaze.results.output_request",
    "RunResult": "trailblaze.results.model",
    "OutputWriteError": "trailblaze.files",
    "check_writable_dir": "trailblaze.files",
    "write_atomic": "trailblaze.files",
    "write_new": "trailblaze.files",
    "decode_output": "trailblaze.untrusted",
    "valid_data": "trailblaze.untrusted",
    "valid_text": "trailblaze.untrusted",
    "truncated": "trailblaze.untrusted",
    "MAX_OUTPUT_CHARS": "trailblaze.untrusted",
    "BadInputError": "trailblaze.errors",
    "ConfigError": "trailblaze.errors",
    "DriverError": "trailblaze.errors",
    "ExitCode": "trailblaze.errors",
    "InfrastructureError": "trailblaze.errors",
    "SourceLocation": "trailblaze.errors",
    "ToolArgumentError": "trailblaze.errors",
    "ToolExpansionError": "trailblaze.errors",
    "ToolFailure": "trailblaze.errors",
    "TrailblazeError": "trailblaze.errors",
}

__all__ = [
    "CONTRACT_VERSION", "__version__", "hookimpl", "ActorShare", "AndroidAccessibilityMatch", "AndroidMaestroMatch",
    "ANNOTATION_KEYS", "BadInputError", "BundleContext", "CallCodec", "CheckReport", "ClassToolDefinition",
    "ConfigError", "CONSTRAINT_KEYS", "constraints_from_json", "CORE_CODEC", "current_scope", "decode_output",
    "default_descriptor", "DelegatingTool", "DeviceInfo", "die_with_parent", "discover_waypoint_files",
    "Driver", "DriverConfig", "DriverError", "DriverMatch", "DriverRegistry", "escape_literal", "ExitCode",
    "format_validation_error", "has_tokens", "host_setting", "HostKind", "InfrastructureError", "IosAxeMatch",
    "IosMaestroMatch", "load_workspace", "load_workspace_waypoints", "load_yaml", "load_yaml_roundtrip",
    "locate_in_yaml", "Memory", "model_schema", "NodeSelector", "OtherTool", "OutputOption", "OutputRequest",
    "OutputWriteError", "ParameterDefinition", "ParameterSchema", "ParamType", "parse_selector", "plain_data",
    "PlatformTarget", "PluginHost", "PluginQueries", "read_yaml_text", "RecordedStepDraft", "RecordOptions",
    "RESERVED_TOOL_NAMES", "RunResult", "secret_forms", "SELECTOR_MAX_DEPTH", "Session", "SessionLog", "session_of",
    "SessionOutcome", "SourceLocation", "StepInfo", "suggest_tool_name", "TargetInfo", "Tool",
    "TOOL_CALL_REF", "TOOL_NAME_PATTERN", "ToolArgumentError", "ToolCall", "ToolCallFormatError",
    "ToolContext", "ToolDefinition", "ToolDescriptor", "ToolExpansionError", "ToolFailure", "ToolRegistry",
    "ToolResult", "ToolSource", "TrailblazeError", "upstream_class_decoder", "valid_data", "valid_text",
    "WebMatch", "WorkspaceConfig", "write_atomic", "write_new", "YamlLimits", "check_writable_dir",
    "truncated", "MAX_OUTPUT_CHARS", "GRID_ENDPOINT_PREFIX",
]

if TYPE_CHECKING:
    from .checks import CheckReport
    from .children import die_with_parent
    from .config import WorkspaceConfig, load_workspace
    from .context import CallCodec, ToolContext
    from .driver import DeviceInfo, Driver, DriverConfig, DriverRegistry, StepInfo
    from .errors import (BadInputError, ConfigError, DriverError, ExitCode, InfrastructureError,
                         SourceLocation, ToolArgumentError, ToolExpansionError, ToolFailure, TrailblazeError)
    from .files import OutputWriteError, check_writable_dir, write_atomic, write_new
    from .hookspecs import CONTRACT_VERSION
    from .host_settings import HostKind, host_setting
    from .memory import Memory, escape_literal, has_tokens, secret_forms
    from .results.output_request import BundleContext, OutputOption, OutputRequest
    from .plugin_info import PluginQueries
    from .plugins import PluginHost
    from .recorder import RecordOptions, RecordedStepDraft
    from .reuse import ActorShare, current_scope
    from .runner.endpoints import GRID_PREFIX as GRID_ENDPOINT_PREFIX
    from .results.model import RunResult
    from .schemas import TOOL_CALL_REF, model_schema
    from .selectors import (MAX_DEPTH as SELECTOR_MAX_DEPTH, AndroidAccessibilityMatch, AndroidMaestroMatch,
                            DriverMatch, IosAxeMatch, IosMaestroMatch, NodeSelector, WebMatch, parse_selector)
    from .logs import SessionLog
    from .session import Session, SessionOutcome, session_of, suggest_tool_name
    from .targets import PlatformTarget, TargetInfo
    from .tools.base import (ANNOTATION_KEYS, ClassToolDefinition, DelegatingTool, OtherTool, Tool, ToolCall,
                             ToolDefinition, ToolResult, ToolSource)
    from .tools.codec import CORE_CODEC
    from .tools.descriptors import ToolDescriptor, default_descriptor
    from .tools.params import (CONSTRAINT_KEYS, ParamType, ParameterDefinition, ParameterSchema,
                               constraints_from_json, format_validation_error)
    from .tools.registry import WIRE_NAME as TOOL_NAME_PATTERN, ToolRegistry
    from .tools.serialization import (RESERVED_NAMES as RESERVED_TOOL_NAMES, ToolCallFormatError,
                                      upstream_class_decoder)
    from .untrusted import MAX_OUTPUT_CHARS, decode_output, truncated, valid_data, valid_text
    from .waypoints.files import discover as discover_waypoint_files
    from .waypoints import load_workspace_waypoints
    from .yamlio import (load_fast as load_yaml, load_roundtrip as load_yaml_roundtrip,
                         locate_in_text as locate_in_yaml, plain as plain_data, read_text as read_yaml_text)
    from .yamlstream import Limits as YamlLimits


if not TYPE_CHECKING:  # hidden from type checkers, so a name outside __all__ is an error there, not Any
    from ._lazy import lazy_attributes

    __getattr__ = lazy_attributes(__name__, _LAZY)
