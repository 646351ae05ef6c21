"""The ``trailblaze`` plugin: hook implementations only; the work is in the modules they call.

Registered through the entry point ``mcp_subprocess = "trailblaze_mcp_subprocess.plugin"``. Importing
this module is cheap: the ``mcp`` SDK is imported only when a session actually has tool servers, and
``config`` (the ``mcpServers`` models, which pull in ruamel.yaml) only by the hooks that read a workspace,
so a command that loads every plugin without using this one (``merge-reports``, ``--help``) never pays for it.
Nor for ``definitions`` and ``runtimes``: the hooks asked on every tool call whether a definition is an MCP
tool look it up in ``sys.modules`` (none can exist before ``definitions`` is imported; ``_mcp_tool``).

* ``trailblaze_config_sections`` claims ``mcpServers`` (validated in ``trailblaze_register_tools``, where
  every error can name its entry's line).
* ``trailblaze_script_tools`` answers ``script:`` declarations from ``trailblaze-yaml-tools``.
* ``trailblaze_tool_descriptor`` / ``trailblaze_execute_tool`` answer for tools of kind ``mcp``: the
  server's advertised schema, and the call to the running server.
* ``trailblaze_session_started`` spawns/connects the servers and registers their tools;
  ``trailblaze_session_finished`` stops them. ``trailblaze tools`` runs both hooks on a listing
  session, so listing spawns, lists and tears down.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from pydantic import ValidationError
from trailblaze import BadInputError, format_validation_error, hookimpl

if TYPE_CHECKING:
    from trailblaze import (CheckReport, Session, SessionOutcome, ToolCall, ToolContext, ToolDefinition,
                            ToolDescriptor, ToolRegistry, ToolResult, WorkspaceConfig)

    from .config import ServerSpec
    from .definitions import McpToolDefinition

SUPPORTED_RUNTIMES = (None, "subprocess")
_DEFINITIONS = f"{__package__}.definitions"


def _mcp_tool(definition: ToolDefinition) -> McpToolDefinition | None:
    """``definition`` if it is an MCP tool: a dictionary lookup, not an import, on every tool call."""
    module = sys.modules.get(_DEFINITIONS)
    if module is not None and isinstance(definition, module.McpToolDefinition):
        return cast("McpToolDefinition", definition)
    return None


@hookimpl
def trailblaze_config_sections() -> dict[str, type[Any]]:
    # imported here: loading the plugin for merge-reports/--help must not pay for ruamel
    from .config import SECTION

    # A list section: the core only checks that someone claims it; we validate it with locations.
    return {SECTION: list}


@hookimpl
def trailblaze_json_schemas() -> dict[str, dict[str, Any]]:
    """``mcpServers`` for editors, from the model each entry is validated with (a list, or a map by name)."""
    from trailblaze import model_schema

    from .config import SECTION, McpServerEntry  # imported here, as in trailblaze_config_sections

    entry = model_schema(McpServerEntry)
    return {f"workspace.{SECTION}": {"anyOf": [{"type": "array", "items": entry},
                                               {"type": "object", "additionalProperties": entry}, {"type": "null"}]}}


@hookimpl
def trailblaze_register_tools(registry: ToolRegistry, config: WorkspaceConfig) -> None:
    """Validate ``mcpServers`` now (``trailblaze check`` and every run see bad entries, exit 3). The
    servers' tools are registered per session, once the servers run."""
    from .config import load_config_servers  # imported here: loading the plugin must not pay for ruamel

    load_config_servers(config)


@hookimpl
def trailblaze_script_tools(spec: Any, config: WorkspaceConfig) -> list[ToolDefinition] | None:
    """A ``script:`` declaration (see ``trailblaze-yaml-tools/SCRIPT_HANDOFF.md``): one server per script."""
    # imported here: loading the plugin for merge-reports/--help must not pay for ruamel
    from .config import McpServerEntry, ServerSpec, check_script, servers_of
    from .definitions import McpToolDefinition

    in_process_module = spec.runtime == "inProcess" and is_author_module(spec)  # served the same way
    if spec.runtime not in SUPPORTED_RUNTIMES and not in_process_module:
        raise BadInputError(f"'{spec.script.name}': runtime '{spec.runtime}' is not supported here; scripts run "
                            "as MCP tool server subprocesses (runtime: subprocess)")
    check_script(spec.script)
    options = dict(spec.options or {})
    extra = {k: options[k] for k in ("name", "args", "env", "workingDir", "handshakeTimeoutSeconds",
                                      "callTimeoutSeconds", "allowHostCallbacks") if k in options}
    try:
        entry = McpServerEntry.model_validate({**extra, "script": str(spec.script)})
    except ValidationError as exc:
        raise BadInputError(format_validation_error(exc, owner=f"script '{spec.script.name}'")
                            .replace("argument", "setting")) from None
    table = servers_of(config)
    name = entry.name or _free_name(table.specs, spec.script, config, owner=_owner(spec))
    module_tools = None
    if is_author_module(spec):
        module_tools = json.dumps([{"name": t.name, "description": t.description,
                                    "inputSchema": t.input_schema or {"type": "object"}} for t in spec.tools])
    server = ServerSpec(
        name=name, transport="stdio", script=spec.script, args=tuple(entry.args),
        cwd=(spec.file.parent / entry.working_dir).resolve() if entry.working_dir else spec.script.parent,
        env=tuple(entry.env.items()), handshake_timeout=entry.handshake_timeout_seconds,
        call_timeout=entry.call_timeout_seconds, trailmap=spec.trailmap,
        allow_host_callbacks=frozenset(entry.allow_host_callbacks), declared=tuple(t.name for t in spec.tools),
        module_tools=module_tools,
        source=replace(spec.source, server=name, line=spec.source.line or spec.line))
    server = table.add(server)
    out: list[ToolDefinition] = []
    for decl in spec.tools:
        meta = dict(decl.meta)
        toolset = meta.get("trailblaze/toolset")
        out.append(McpToolDefinition(
            name=decl.name, description=decl.description,
            source=replace(spec.source, server=server.name, line=decl.line or spec.line),
            surface_to_llm=decl.surface_to_llm, is_recordable=decl.is_recordable, requires_host=decl.requires_host,
            is_verification=decl.is_verification, is_read_only=decl.is_read_only, is_core=decl.is_core,
            platforms=decl.platforms, drivers=decl.drivers,
            trailmap=spec.trailmap, toolsets=(toolset,) if isinstance(toolset, str) and toolset else (),
            meta=meta, server=server.name, input_schema=decl.input_schema))
    return out


def is_author_module(spec: Any) -> bool:
    """A typed ``.ts`` tool, or an upstream descriptor's ``.ts``/``.js`` script: upstream imports such a
    script into a generated wrapper (``InlineScriptToolServerSynthesizer.kt``) and calls its exports; it is
    not an MCP server of its own."""
    if spec.kind == "module":
        return True
    from .runtimes import JS_SUFFIXES, TS_SUFFIXES

    scripted = spec.script.suffix.lower() in TS_SUFFIXES | JS_SUFFIXES
    return spec.kind == "descriptor" and bool(spec.tools) and scripted


def _owner(spec: Any) -> str | None:
    """A trailmap's server is named after what users know: its trailmap (a packaged trailmap's id is its
    plugin's), not the script file (``server.py`` would show as ``MCP server 'server'``)."""
    return str(spec.trailmap) if spec.kind == "server" and spec.trailmap else None


def _free_name(specs: dict[str, ServerSpec], script: Any, config: WorkspaceConfig, *, owner: str | None = None) -> str:
    """The owner's name (or the script's stem); ``owner/stem`` or the workspace-relative path when taken."""
    stem = str(script.stem)
    for candidate in ([owner, f"{owner}/{stem}"] if owner else [stem]):
        taken = specs.get(candidate)
        if taken is None or taken.script == script:
            return candidate
    try:
        return str(script.relative_to(config.root))
    except ValueError:
        return str(script)


@hookimpl
def trailblaze_check_tools(registry: ToolRegistry, report: CheckReport, config: WorkspaceConfig) -> None:
    """A typed tool whose module could not load (learned when ``check`` started the servers): an error of
    the trails that call it, a warning otherwise — one broken module never fails the whole workspace."""
    from trailblaze import SourceLocation

    from .registration import UNAVAILABLE_META

    for definition in registry:
        reason = definition.meta.get(UNAVAILABLE_META) if _mcp_tool(definition) is not None else None
        if isinstance(reason, str):
            report.tool_error([definition.name], "ToolLoad", f"tool '{definition.name}' is unavailable: {reason}",
                              SourceLocation(definition.source.file, definition.source.line))


@hookimpl
def trailblaze_session_started(session: Session) -> None:
    from .config import load_config_servers  # imported here: loading the plugin must not pay for ruamel

    table = load_config_servers(session.workspace)
    specs = list(table.specs.values())
    if not specs:
        return
    from trailblaze import ClassToolDefinition, ToolSource

    from .definitions import STATE_KEY
    from .reload import ReloadToolsTool
    from .servers import SessionServers

    state = SessionServers(session, specs)
    state.start()
    session.resources[STATE_KEY] = state
    if "reloadTools" not in session.registry:
        try:
            session.registry.add(ClassToolDefinition.of(ReloadToolsTool, ToolSource(plugin="mcp_subprocess")))
        except BaseException:
            session.resources.pop(STATE_KEY, None)
            state.close()
            raise


@hookimpl
def trailblaze_session_finished(session: Session, outcome: SessionOutcome) -> None:
    module = sys.modules.get(_DEFINITIONS)  # imported by the session_started that started servers, if any
    state = session.resources.pop(module.STATE_KEY, None) if module is not None else None
    if state is not None:
        state.close()


@hookimpl
def trailblaze_tool_descriptor(definition: ToolDefinition) -> ToolDescriptor | None:
    tool = _mcp_tool(definition)
    return None if tool is None else tool.descriptor()


@hookimpl
def trailblaze_execute_tool(definition: ToolDefinition, prepared: Any,
                            context: ToolContext) -> ToolResult | list[ToolCall] | None:
    tool = _mcp_tool(definition)
    return None if tool is None else tool.call_server(prepared, context)
