"""``script:`` declarations, handed to the plugin that runs scripts as MCP tool servers.

This package parses and validates the declaration (name, description, parameters, flags, where the
script is) and asks the ``trailblaze_script_tools`` hook for definitions. It never runs a script: that
is ``trailblaze-mcp-subprocess``'s job, and without it the file fails with a hint to install it. The
contract is written down in ``SCRIPT_HANDOFF.md`` next to this package's ``pyproject.toml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from trailblaze import ParameterSchema, ToolDefinition, ToolSource

from .problems import Problem

if TYPE_CHECKING:
    from trailblaze import PluginHost, WorkspaceConfig

MCP_DISTRIBUTION = "trailblaze-mcp-subprocess"
INSTALL_HINT = f"pip install {MCP_DISTRIBUTION}"


@dataclass(frozen=True)
class ScriptedToolDecl:
    """One tool a script declares (what the model is told before the server ever starts)."""

    name: str
    description: str
    input_schema: dict[str, Any] | None
    parameters: ParameterSchema | None
    surface_to_llm: bool = True
    is_recordable: bool = True
    requires_host: bool = False
    is_verification: bool = False
    is_read_only: bool = False
    is_core: bool = False
    platforms: frozenset[str] | None = None
    drivers: frozenset[str] | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    line: int | None = None


@dataclass(frozen=True)
class ScriptToolSpec:
    """Everything a script runtime needs to define (and later serve) the tools of one declaration."""

    kind: Literal["tool", "descriptor", "server", "module"]
    """``module``: a bare typed ``.ts`` tool (``ts_tools.py``): an author module exporting its tools by
    name."""
    file: Path
    line: int | None
    script: Path
    runtime: str | None
    tools: tuple[ScriptedToolDecl, ...]
    trailmap: str | None
    source: ToolSource
    options: Mapping[str, Any] = field(default_factory=dict)


def script_definitions(spec: ScriptToolSpec, host: PluginHost, config: WorkspaceConfig,
                       *, path: tuple[Any, ...] = ("script",)) -> list[ToolDefinition]:
    """Ask the script runtime plugin for definitions; a clear install hint when there is none."""
    definitions = host.script_tools(spec, config)
    if definitions is None:
        raise Problem(f"'{spec.script.name}' is a script tool: script tools run as MCP tool servers, which "
                      f"need the {MCP_DISTRIBUTION} plugin", path, hint=INSTALL_HINT)
    declared = {t.name for t in spec.tools}
    for definition in definitions:
        if not isinstance(definition, ToolDefinition):
            raise Problem(f"the script runtime returned {definition!r}, not a tool definition", path)
        if declared and definition.name not in declared:
            raise Problem(f"the script runtime defined tool '{definition.name}', which this file does not "
                          f"declare ({', '.join(sorted(declared))})", path)
    return list(definitions)
