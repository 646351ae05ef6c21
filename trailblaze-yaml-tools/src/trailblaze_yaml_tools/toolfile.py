"""One tool file (``*.tool.yaml``, ``*.shortcut.yaml``, ``*.trailhead.yaml``, an inline ``tools:`` entry of
``trailblaze.yaml``) → tool definitions. Upstream's ``ToolYamlConfig`` rules, checked at load:

* exactly one mode: ``class:`` (a Python ``Tool`` class), ``tools:`` (a body of tool calls) or
  ``script:`` (served by an MCP tool server); none of them but a ``shortcut:``/``trailhead:`` block is
  *metadata* for a tool registered elsewhere under the same id;
* ``description``/``parameters``/flags are forbidden with ``class:`` (the class has them) and in metadata
  files, and ``description`` and ``parameters`` are required with ``tools:`` and ``script:``;
* ``shortcut`` ``{from, to, variant?}`` and ``trailhead`` ``{to}`` | ``{dynamic: true}`` hold waypoint ids
  of two or more ``/`` segments; not both; the file suffix must match the block, and library trailmaps
  may not declare trailheads.

Every problem is raised as a ``Problem`` with the key path, so the caller can name file:line:column.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import TOOL_NAME_PATTERN, ClassToolDefinition, OtherTool, Tool, ToolDefinition, ToolSource

from .definitions import YamlToolDefinition
from .parameters import ScalarText, YamlParameterSchema, parse_parameters
from .problems import Problem, suggest
from .script import ScriptedToolDecl, ScriptToolSpec, script_definitions
from .template import CompiledBody

if TYPE_CHECKING:
    from trailblaze import PluginHost, WorkspaceConfig

FLAG_KEYS = ("surface_to_llm", "is_recordable", "requires_host", "is_verification", "is_read_only", "is_core")
FILTER_KEYS = ("platforms", "drivers")
MODE_KEYS = ("class", "tools", "script")
TOOL_KEYS = ("id", "description", "parameters", *MODE_KEYS, *FLAG_KEYS, *FILTER_KEYS, "shortcut", "trailhead")
_CAMEL = {"surfaceToLlm": "surface_to_llm", "isRecordable": "is_recordable", "requiresHost": "requires_host",
          "isVerification": "is_verification", "isReadOnly": "is_read_only", "isCore": "is_core", "name": "id"}

SUFFIXES = {".tool.yaml": "tool", ".tool.yml": "tool", ".shortcut.yaml": "shortcut", ".shortcut.yml": "shortcut",
            ".trailhead.yaml": "trailhead", ".trailhead.yml": "trailhead"}


def file_kind(name: str) -> str | None:
    """``tool``, ``shortcut``, ``trailhead`` for the tool-file suffixes, else None."""
    for suffix, kind in SUFFIXES.items():
        if name.endswith(suffix):
            return kind
    return None


@dataclass
class ToolFileContext:
    """Where a tool declaration lives: its file, trailmap and the plugin that contributed it."""

    file: Path
    text: str | None
    source: ToolSource
    trailmap: str | None = None
    library: bool = False
    """The owning trailmap has no ``target`` (trailheads are forbidden there)."""
    kind: str | None = "tool"
    """The file's suffix kind; None for inline entries of ``trailblaze.yaml`` (no suffix rule)."""
    base: tuple[Any, ...] = ()
    """Key path of the declaration inside the file (inline entries live under ``tools: [i]``)."""


@dataclass
class MetadataTool:
    """A metadata-only file: attaches ``shortcut``/``trailhead`` to a tool another source registers."""

    name: str
    meta: dict[str, Any]
    file: Path
    line: int | None


@dataclass
class LoadedTools:
    definitions: list[ToolDefinition] = field(default_factory=list)
    metadata: MetadataTool | None = None


def id_line(text: str | None, key: str = "id") -> int | None:
    """The 1-based line of a top-level ``id:`` key, found without parsing (for ``ToolSource.line``)."""
    if not text:
        return None
    match = re.search(rf"^{key}\s*:", text, flags=re.MULTILINE)
    if match is None:
        return None
    return text.count("\n", 0, match.start()) + 1


def load_tool(data: Any, ctx: ToolFileContext, host: PluginHost, config: WorkspaceConfig) -> LoadedTools:
    """Validate one declaration and build its definitions."""
    if not isinstance(data, (dict, Mapping)):
        raise Problem(f"a tool file is a map with 'id', 'description', 'parameters' and one of class:, tools:, "
                      f"script:; got {type(data).__name__}")
    for key in data:
        if key not in TOOL_KEYS:
            fix = _CAMEL.get(str(key))
            hint = f"write '{fix}'" if fix else suggest(str(key), TOOL_KEYS)
            raise Problem(f"unknown key '{key}' (known: {', '.join(TOOL_KEYS)})", (key,), hint=hint)
    name = data.get("id")
    if not isinstance(name, str) or not name.strip():
        raise Problem("a tool file needs an 'id' (the tool name used in recordings)",
                      ("id",) if "id" in data else ())
    if not TOOL_NAME_PATTERN.match(name):
        raise Problem(f"tool id '{name}' is not a valid tool name: it must match {TOOL_NAME_PATTERN.pattern} "
                      "(letters, digits, '_' and '-', at most 64 characters)", ("id",))
    modes = [k for k in MODE_KEYS if k in data]
    if len(modes) > 1:
        raise Problem(f"a tool has exactly one of class:, tools:, script:; this one has {' and '.join(modes)}",
                      (modes[1],))
    meta = _blocks(data, ctx)
    line = id_line(ctx.text) if not ctx.base else None
    source = ToolSource(plugin=ctx.source.plugin, distribution=ctx.source.distribution,
                        version=ctx.source.version, file=ctx.file, line=line)
    if not modes:
        if meta:
            for key in ("description", "parameters", *FLAG_KEYS, *FILTER_KEYS):
                if key in data:
                    raise Problem(f"'{key}' is not allowed in a metadata-only file (no class:, tools: or script:): "
                                  "the tool it annotates is defined elsewhere", (key,))
            return LoadedTools(metadata=MetadataTool(name, meta, ctx.file, line))
        raise Problem("a tool needs one of class: (a Python Tool class), tools: (a list of tool calls) or "
                      "script: (an MCP tool server script)", ("id",))
    mode = modes[0]
    if mode == "class":
        for key in ("description", "parameters", *FLAG_KEYS, *FILTER_KEYS):
            if key in data:
                raise Problem(f"'{key}' is not allowed with class: (the class defines it)", (key,))
        claimed = _claimed_class(name, data["class"], host)
        if claimed is not None:
            # An upstream Kotlin class that an installed plugin maps to its own tool (web_click.tool.yaml
            # names PlaywrightNativeClickTool): the plugin registers the tool; this file only annotates it.
            return LoadedTools(metadata=MetadataTool(claimed, meta, ctx.file, line))
        definition = _class_definition(name, data["class"], source, ctx)
        if meta:
            definition.meta.update(meta)
        return LoadedTools([definition])
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise Problem(f"'description' is required with {mode}: (it is what the model reads)",
                      ("description",) if "description" in data else ("id",))
    if "parameters" not in data:
        raise Problem(f"'parameters' is required with {mode}: (write 'parameters: []' for none)", ("id",))
    declared = parse_parameters(data["parameters"], scalar_text=ScalarText(ctx.text, ctx.base) if ctx.text else None)
    schema = YamlParameterSchema(declared.schema, (data["parameters"], str(ctx.file), ctx.base))
    flags = _flags(data)
    platforms, drivers = _filters(data)
    if mode == "tools":
        body = CompiledBody(data["tools"], declared.names)
        return LoadedTools([YamlToolDefinition(
            name=name, description=description.strip(), source=source, trailmap=ctx.trailmap, meta=meta,
            schema=schema, body=body, null_defaults=declared.null_defaults, file=ctx.file,
            platforms=platforms, drivers=drivers, surface_to_llm=flags.get("surface_to_llm", True),
            is_recordable=flags.get("is_recordable", True), requires_host=flags.get("requires_host", False),
            is_verification=flags.get("is_verification", False), is_read_only=flags.get("is_read_only", False),
            is_core=flags.get("is_core", False))])
    script, runtime, options = _script_target(data["script"], ctx)
    decl = ScriptedToolDecl(
        name=name, description=description.strip(), input_schema=dict(declared.schema.json_schema()),
        parameters=declared.schema, platforms=platforms, drivers=drivers, line=line,
        meta={**_meta_flags(flags), **({"trailblaze/" + k: v for k, v in meta.items()})}, **flags)
    spec = ScriptToolSpec(kind="tool", file=ctx.file, line=line, script=script, runtime=runtime, tools=(decl,),
                          trailmap=ctx.trailmap, source=source, options=options)
    definitions = script_definitions(spec, host, config)
    return LoadedTools([owned(d, ctx.trailmap) for d in definitions])


def owned(definition: ToolDefinition, trailmap: str | None) -> ToolDefinition:
    if trailmap is not None and definition.trailmap is None:
        from dataclasses import replace

        return replace(definition, trailmap=trailmap)
    return definition


def _meta_flags(flags: Mapping[str, bool]) -> dict[str, Any]:
    """Upstream's ``trailblaze/*`` keys; ``is_read_only``/``is_core`` are ours and travel as definition fields
    (an MCP client sees the first as MCP's ``readOnlyHint``)."""
    names = {"surface_to_llm": "surfaceToLlm", "is_recordable": "isRecordable", "requires_host": "requiresHost",
             "is_verification": "isVerification"}
    return {f"trailblaze/{names[k]}": v for k, v in flags.items() if k in names}


def _flags(data: Mapping[str, Any]) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for key in FLAG_KEYS:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, bool):
            raise Problem(f"'{key}' must be true or false, got {value!r}", (key,))
        out[key] = value
    return out


def _filters(data: Mapping[str, Any]) -> tuple[frozenset[str] | None, frozenset[str] | None]:
    out: list[frozenset[str] | None] = []
    for key in FILTER_KEYS:
        value = data.get(key)
        if value is None:
            out.append(None)
            continue
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
            raise Problem(f"'{key}' must be a non-empty list of names", (key,))
        out.append(frozenset(v.lower() for v in value) if key == "platforms" else frozenset(value))
    return out[0], out[1]


def _waypoint(value: Any, path: tuple[Any, ...]) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Problem("a waypoint id is required here (e.g. 'clock/android/alarm_tab')", path)
    parts = value.split("/")
    if len(parts) < 2 or any(not p.strip() for p in parts):
        raise Problem(f"waypoint id '{value}' must have two or more non-blank '/'-separated segments, with no "
                      "leading, trailing or double '/' (e.g. 'clock/android/alarm_tab')", path)
    return value


def _blocks(data: Mapping[str, Any], ctx: ToolFileContext) -> dict[str, Any]:
    """Validate ``shortcut``/``trailhead`` and the suffix rule; return them as definition metadata."""
    has_shortcut, has_trailhead = "shortcut" in data, "trailhead" in data
    if has_shortcut and has_trailhead:
        raise Problem("a tool is a shortcut or a trailhead, not both", ("trailhead",))
    kind = ctx.kind
    suffix = {"tool": ".tool.yaml", "shortcut": ".shortcut.yaml", "trailhead": ".trailhead.yaml"}
    if kind == "tool" and (has_shortcut or has_trailhead):
        block = "shortcut" if has_shortcut else "trailhead"
        raise Problem(f"a {block}: block belongs in a *{suffix[block]} file, not a *.tool.yaml file", (block,),
                      hint=f"rename the file to {ctx.file.name.split('.')[0]}{suffix[block]}")
    if kind == "shortcut" and not has_shortcut:
        raise Problem("a *.shortcut.yaml file needs a 'shortcut:' block with 'from' and 'to' waypoints",
                      ("trailhead",) if has_trailhead else ())
    if kind == "trailhead" and not has_trailhead:
        raise Problem("a *.trailhead.yaml file needs a 'trailhead:' block ('to: <waypoint>' or 'dynamic: true')",
                      ("shortcut",) if has_shortcut else ())
    meta: dict[str, Any] = {}
    if has_shortcut:
        block = data["shortcut"]
        if not isinstance(block, Mapping):
            raise Problem("'shortcut' must be a map with 'from' and 'to'", ("shortcut",))
        for key in block:
            if key not in ("from", "to", "variant"):
                raise Problem(f"unknown shortcut key '{key}' (known: from, to, variant)", ("shortcut", key))
        shortcut = {"from": _waypoint(block.get("from"), ("shortcut", "from") if "from" in block else ("shortcut",)),
                    "to": _waypoint(block.get("to"), ("shortcut", "to") if "to" in block else ("shortcut",))}
        if "variant" in block:
            variant = block["variant"]
            if not isinstance(variant, str) or not variant.strip():
                raise Problem("'variant' must be non-blank text when present", ("shortcut", "variant"))
            shortcut["variant"] = variant
        meta["shortcut"] = shortcut
    if has_trailhead:
        if ctx.library:
            raise Problem(f"trailmap '{ctx.trailmap}' is a library trailmap (no target:); only target trailmaps "
                          "may declare trailheads", ("trailhead",))
        block = data["trailhead"]
        if not isinstance(block, Mapping):
            raise Problem("'trailhead' must be a map: 'to: <waypoint>' or 'dynamic: true'", ("trailhead",))
        for key in block:
            if key not in ("to", "dynamic"):
                raise Problem(f"unknown trailhead key '{key}' (known: to, dynamic)", ("trailhead", key))
        dynamic = block.get("dynamic", False)
        if not isinstance(dynamic, bool):
            raise Problem("'dynamic' must be true or false", ("trailhead", "dynamic"))
        if dynamic and "to" in block:
            raise Problem("a dynamic trailhead has no 'to' waypoint", ("trailhead", "to"))
        if dynamic:
            meta["trailhead"] = {"dynamic": True}
        else:
            if "to" not in block:
                raise Problem("a trailhead needs 'to: <waypoint>' (or 'dynamic: true')", ("trailhead",))
            meta["trailhead"] = {"to": _waypoint(block["to"], ("trailhead", "to"))}
    return meta


def import_tool_class(ref: str) -> type[Tool]:
    """``package.module:ClassName`` or ``package.module.ClassName`` → the class (raises ``Problem``)."""
    if ":" in ref:
        module_name, _, attr = ref.partition(":")
    else:
        module_name, _, attr = ref.rpartition(".")
    if not module_name or not attr:
        raise Problem(f"class '{ref}' must be 'package.module:ClassName' (or 'package.module.ClassName')",
                      ("class",))
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise Problem(f"cannot import module '{module_name}' for class '{ref}': {exc}", ("class",),
                      hint="install the package that provides it, or put it on PYTHONPATH") from None
    except Exception as exc:  # noqa: BLE001 - the module's own import-time failure
        raise Problem(f"importing '{module_name}' failed: {type(exc).__name__}: {exc}", ("class",)) from None
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise Problem(f"module '{module_name}' has no class '{attr}'", ("class",))
    if not isinstance(obj, type) or not issubclass(obj, Tool):
        raise Problem(f"'{ref}' is not a trailblaze.Tool subclass", ("class",))
    return obj


def _claimed_class(name: str, ref: Any, host: PluginHost) -> str | None:
    """The tool a plugin maps the class ``ref`` to (``trailblaze_decode_tool``), or None (a Python class)."""
    if not isinstance(ref, str) or not ref.strip():
        return None
    call = host.decode_tool(ref.strip(), {}, None)
    if isinstance(call, OtherTool):
        return None
    if call.name != name:
        raise Problem(f"id '{name}' does not match the tool that class '{ref}' is ('{call.name}')", ("id",),
                      hint=f"use id: {call.name}")
    return call.name


def _class_definition(name: str, ref: Any, source: ToolSource, ctx: ToolFileContext) -> ToolDefinition:
    if not isinstance(ref, str) or not ref.strip():
        raise Problem("'class' must name a Python class, 'package.module:ClassName'", ("class",))
    cls = import_tool_class(ref.strip())
    if not cls.name:
        raise Problem(f"class '{ref}' has no 'name' class attribute", ("class",),
                      hint=f"add name = \"{name}\" to the class")
    if cls.name != name:
        raise Problem(f"id '{name}' does not match the name of class '{ref}' ('{cls.name}')", ("id",),
                      hint="use the class's name as the id")
    definition = ClassToolDefinition.of(cls, source)
    if ctx.trailmap is not None:
        from dataclasses import replace

        definition = replace(definition, trailmap=ctx.trailmap, meta=dict(definition.meta))
    return definition


def _script_target(value: Any, ctx: ToolFileContext) -> tuple[Path, str | None, dict[str, Any]]:
    """``script: ./x.py`` or ``script: {source: ./x.py, runtime: subprocess, ...}``."""
    options: dict[str, Any] = {}
    runtime: str | None = None
    if isinstance(value, Mapping):
        if "source" not in value:
            raise Problem("'script' needs a 'source' (the script's path, relative to this file)", ("script",))
        options = {k: v for k, v in value.items() if k not in ("source", "runtime")}
        runtime_raw = value.get("runtime")
        if runtime_raw is not None and not isinstance(runtime_raw, str):
            raise Problem("'runtime' must be text (subprocess or inProcess)", ("script", "runtime"))
        runtime = runtime_raw
        value = value["source"]
        path: tuple[Any, ...] = ("script", "source")
    else:
        path = ("script",)
    if not isinstance(value, str) or not value.strip():
        raise Problem("'script' must be the path of the script, relative to this file", path)
    return resolve_relative(value, ctx.file), runtime, options


def resolve_relative(value: str, anchor_file: Path) -> Path:
    candidate = Path(value)
    if not candidate.is_absolute():
        candidate = anchor_file.parent / candidate
    return candidate.resolve()
