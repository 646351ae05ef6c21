"""Upstream's scripted-tool descriptors (``trailmaps/<id>/tools/<name>.yaml`` with ``script:``, §2.4).

They declare tools served by a script (name, description, a flat ``inputSchema``, visibility gates) in
a single- or multi-tool shape. We validate the declaration and hand it to the script runtime plugin
(``trailblaze_script_tools``), like a ``script:``-mode ``*.tool.yaml``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from trailblaze import ParameterSchema, ToolDefinition, ToolSource

from .problems import Problem, suggest
from .script import ScriptedToolDecl, ScriptToolSpec, script_definitions
from .toolfile import ToolFileContext, id_line, resolve_relative

if TYPE_CHECKING:
    from trailblaze import PluginHost, WorkspaceConfig

SCRIPTED_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
GATE_KEYS = ("requiresHost", "supportedPlatforms", "supportedDrivers", "surfaceToLlm", "isRecordable",
             "isVerification", "_meta")
TOOL_KEYS = ("name", "description", "inputSchema", *GATE_KEYS)
FILE_KEYS = ("script", "runtime", "tools", *TOOL_KEYS)


def load_descriptor(data: Any, ctx: ToolFileContext, host: PluginHost,
                    config: WorkspaceConfig) -> list[ToolDefinition]:
    if not isinstance(data, Mapping) or "script" not in data:
        raise Problem("a tools/*.yaml file without a .tool.yaml suffix is a scripted-tool descriptor and needs "
                      "'script:'", hint="name YAML-defined tools <id>.tool.yaml")
    for key in data:
        if key not in FILE_KEYS:
            raise Problem(f"unknown key '{key}' (known: {', '.join(FILE_KEYS)})", (key,),
                          hint=suggest(str(key), FILE_KEYS))
    script = data["script"]
    if not isinstance(script, str) or not script.strip():
        raise Problem("'script' must be the path of the script, relative to this file", ("script",))
    runtime = data.get("runtime")
    if runtime is not None and runtime not in ("subprocess", "inProcess"):
        raise Problem(f"'runtime' must be subprocess or inProcess, got {runtime!r}", ("runtime",))
    defaults = _gates(data, (), None)
    decls: list[ScriptedToolDecl] = []
    if "tools" in data:
        for key in ("name", "description", "inputSchema"):
            if key in data:
                raise Problem(f"'{key}' belongs in each entry of 'tools:' in the multi-tool shape", (key,))
        entries = data["tools"]
        if not isinstance(entries, list) or not entries:
            raise Problem("'tools' must be a non-empty list of {name, description, inputSchema}", ("tools",))
        for i, entry in enumerate(entries):
            if not isinstance(entry, Mapping):
                raise Problem("each tool is a map with 'name', 'description', 'inputSchema'", ("tools", i))
            for key in entry:
                if key not in TOOL_KEYS:
                    raise Problem(f"unknown key '{key}' (known: {', '.join(TOOL_KEYS)})", ("tools", i, key))
            decls.append(_decl(entry, ("tools", i), defaults))
    elif "name" in data:
        decls.append(_decl(data, (), defaults))
    line = id_line(ctx.text, "script")
    source = ToolSource(plugin=ctx.source.plugin, distribution=ctx.source.distribution,
                        version=ctx.source.version, file=ctx.file, line=line)
    spec = ScriptToolSpec(kind="descriptor" if decls else "server", file=ctx.file, line=line,
                          script=resolve_relative(script, ctx.file), runtime=runtime, tools=tuple(decls),
                          trailmap=ctx.trailmap, source=source)
    definitions = script_definitions(spec, host, config)
    from .toolfile import owned

    return [owned(d, ctx.trailmap) for d in definitions]


def _gates(data: Mapping[str, Any], path: tuple[Any, ...], defaults: dict[str, Any] | None) -> dict[str, Any]:
    out = dict(defaults or {})
    for key in ("requiresHost", "surfaceToLlm", "isRecordable", "isVerification"):
        if key in data:
            if not isinstance(data[key], bool):
                raise Problem(f"'{key}' must be true or false", (*path, key))
            out[key] = data[key]
    for key in ("supportedPlatforms", "supportedDrivers"):
        if key in data:
            value = data[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise Problem(f"'{key}' must be a list of names", (*path, key))
            out[key] = value
    if "_meta" in data:
        if not isinstance(data["_meta"], Mapping):
            raise Problem("'_meta' must be a map", (*path, "_meta"))
        out["_meta"] = {**out.get("_meta", {}), **data["_meta"]}
    return out


def _decl(data: Mapping[str, Any], path: tuple[Any, ...], defaults: dict[str, Any]) -> ScriptedToolDecl:
    name = data.get("name")
    if not isinstance(name, str) or not SCRIPTED_NAME.match(name):
        raise Problem(f"tool name {name!r} must match {SCRIPTED_NAME.pattern}", (*path, "name"))
    description = data.get("description") or ""
    if not isinstance(description, str):
        raise Problem("'description' must be text", (*path, "description"))
    gates = _gates(data, path, defaults)
    schema: ParameterSchema | None = None
    if "inputSchema" in data:
        schema = ParameterSchema.from_json_schema(_flat_schema(data["inputSchema"], (*path, "inputSchema")))
    meta = dict(gates.get("_meta", {}))
    names = {"requiresHost": "requiresHost", "surfaceToLlm": "surfaceToLlm", "isRecordable": "isRecordable",
             "isVerification": "isVerification", "supportedPlatforms": "supportedPlatforms",
             "supportedDrivers": "supportedDrivers"}
    for key, meta_key in names.items():
        if key in gates:
            meta[f"trailblaze/{meta_key}"] = gates[key]  # top-level shortcuts win over _meta
    platforms = gates.get("supportedPlatforms")
    drivers = gates.get("supportedDrivers")
    return ScriptedToolDecl(
        name=name, description=description.strip(),
        input_schema=dict(schema.json_schema()) if schema is not None else None, parameters=schema,
        surface_to_llm=gates.get("surfaceToLlm", True), is_recordable=gates.get("isRecordable", True),
        requires_host=gates.get("requiresHost", False), is_verification=gates.get("isVerification", False),
        platforms=frozenset(p.lower() for p in platforms) if platforms else None,
        drivers=frozenset(drivers) if drivers else None, meta=meta,
    )


def _flat_schema(raw: Any, path: tuple[Any, ...]) -> dict[str, Any]:
    """Upstream's flat ``inputSchema`` (``prop: {type, description, required, enum}``) → JSON Schema."""
    if not isinstance(raw, Mapping):
        raise Problem("'inputSchema' is a map of property name to {type, description, required}", path)
    props: dict[str, Any] = {}
    required: list[str] = []
    for prop, spec in raw.items():
        spec = spec if spec is not None else {}
        if not isinstance(spec, Mapping):
            raise Problem(f"property '{prop}' must be a map with 'type' and 'description'", (*path, prop))
        entry = {k: v for k, v in spec.items() if k != "required"}
        if "enum" in entry and (not isinstance(entry["enum"], list) or not entry["enum"]):
            raise Problem("'enum' must be a non-empty list", (*path, prop, "enum"))
        if spec.get("required", True) is not False:
            required.append(str(prop))
        props[str(prop)] = entry
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return schema
