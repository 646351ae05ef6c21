"""JSON Schemas for editors: trail files, tool files, trailmaps, toolsets and ``trailblaze.yaml``.

Each schema is generated from what the loader checks, never written by hand: the trail schema from the
parser's key lists, the workspace schema from the section models (core and plugins), the plugin file
kinds from the plugins' own models (``trailblaze_json_schemas``). Tool calls are typed from the
descriptors of the tools this workspace has, so an editor completes ``web_click:`` with ``ref`` and flags
a misspelled tool name the way ``trailblaze check`` does.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from .files import write_atomic
from .tools.base import ANNOTATION_KEYS
from .tools.descriptors import ToolDescriptor
from .tools.model_schema import inline_refs
from .trail.actors import PLATFORM_WORD

if TYPE_CHECKING:
    from .plugins import PluginHost

DRAFT = "http://json-schema.org/draft-07/schema#"
KINDS = ("trail", "tool", "trailmap", "toolset", "workspace")
FILE_NAMES = {kind: f"{kind}.schema.json" for kind in KINDS}
TOOL_CALL_REF = "#/$defs/toolCall"

_TOKEN = {"type": "string", "pattern": r"\{\{[^{}]+\}\}|\$\{[^{}]+\}",
          "description": "a memory or parameter token ({{name}}, ${name}), resolved when the call runs"}
_SCALAR: dict[str, Any] = {"type": ["string", "number", "boolean"]}
_TEXT: dict[str, Any] = {"type": ["string", "number", "boolean"], "description": "text (scalars are read as written)"}


# -- tool calls ---------------------------------------------------------------------------------
def _accepts_tokens(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema``, or that or a token: ``count: "{{n}}"`` is valid in a recording of an integer."""
    node = dict(schema)
    if node.get("type") == "object" and isinstance(node.get("properties"), Mapping):
        node["properties"] = {k: _accepts_tokens(v) if isinstance(v, Mapping) else v
                              for k, v in node["properties"].items()}
    if node.get("type") == "array" and isinstance(node.get("items"), Mapping):
        node["items"] = _accepts_tokens(node["items"])
    plain_string = node.get("type") == "string" and not any(k in node for k in ("enum", "pattern", "minLength",
                                                                              "maxLength", "format"))
    if plain_string or not node:
        return node
    return {"anyOf": [node, _TOKEN]}


def call_arguments_schema(input_schema: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of one call as written in a recording: the tool's schema, tokens allowed,
    ``reason``/``reasoning`` notes allowed, and nothing at all (``- hideKeyboard:``) when none is required."""
    schema = inline_refs({k: v for k, v in input_schema.items() if k != "$schema"})
    props = schema.get("properties")
    if isinstance(props, dict):
        props = schema["properties"] = {k: _accepts_tokens(v) if isinstance(v, Mapping) else v
                                        for k, v in props.items()}
        for note in sorted(ANNOTATION_KEYS):
            props.setdefault(note, {"type": "string", "description": "a free-text note, not used at replay"})
    if not schema.get("required") and schema.get("type") == "object":
        schema["type"] = ["object", "null"]
    return schema


def tool_call_schema(descriptors: Iterable[ToolDescriptor], *, closed: bool = True) -> dict[str, Any]:
    """``- toolName: {args}``: one key, a known tool name (when ``closed``), typed arguments."""
    props: dict[str, Any] = {}
    for d in sorted(descriptors, key=lambda d: d.name):
        args = call_arguments_schema(d.input_schema)
        if d.description:
            args["description"] = d.description
        props[d.name] = args
    return {"type": "object", "minProperties": 1, "maxProperties": 1, "properties": props,
            "additionalProperties": False if closed else {"type": ["object", "null"]},
            "description": "a tool call: `- toolName: {arguments}`"}


# -- trail files --------------------------------------------------------------------------------
def _text_map(value: dict[str, Any]) -> dict[str, Any]:
    return {"type": ["object", "null"], "additionalProperties": value}


def _config_schema(keys: Iterable[str]) -> dict[str, Any]:
    from .trail.args import _DECL_KEYS, VALID_TYPES

    decl_props: dict[str, Any] = {
        "type": {"enum": list(VALID_TYPES)}, "description": {"type": "string"},
        "default": {"type": ["string", "number", "boolean", "array", "object"]}, "required": {"type": "boolean"}}
    arg_decl = {"type": "object", "additionalProperties": False, "properties": {k: decl_props[k] for k in _DECL_KEYS}}
    known: dict[str, Any] = {
        **{k: _TEXT for k in ("id", "title", "description", "priority", "target", "context", "platform", "driver")},
        "devices": _text_map({"type": "string", "description": "driver key or upstream name"}),
        "drivers": {"type": ["object", "null"], "description": "driver key or alias → its settings for this trail",
                    "additionalProperties": {"type": ["object", "null"]}},
        "skip": {"anyOf": [_text_map({"type": ["string", "null"]}), {"type": "string"}],
                 "description": "classifier → reason (a non-blank reason skips the trail there)"},
        "tags": {"type": ["array", "null"], "items": _SCALAR},
        "memory": _text_map(_SCALAR),
        "metadata": _text_map(_SCALAR),
        "args": _text_map({"anyOf": [{"enum": list(VALID_TYPES)}, arg_decl]}),
        "retries": {"type": ["integer", "null"], "minimum": 0,
                    "description": "retries of a failed run of this trail (overrides --retries)"},
        "source": {"type": "object"},
        "electron": {},
        "setup": {"anyOf": [_TEXT, {"type": "array", "items": _TEXT}],
                  "description": "trail(s) replayed from their recordings first, relative to this file"},
        "actors": _text_map({"anyOf": [
            {"type": "string", "pattern": PLATFORM_WORD.pattern, "description": "the actor's platform (web, android, ...)"},
            {"type": "object", "additionalProperties": False, "required": ["platform"], "properties": {
                "platform": {"type": "string", "pattern": PLATFORM_WORD.pattern},
                "driver": {"type": "string", "description": "driver key or alias"},
                "options": {"type": ["object", "null"], "description": "settings of that driver for this actor"}}}]})
        | {"description": "the devices of a trail with several (our extension): actor name → platform, or "
                          "{platform, driver, options}"},
    }
    return {"type": ["object", "null"], "additionalProperties": False, "properties": {k: known[k] for k in keys}}


def trail_schema(tool_call: Mapping[str, Any]) -> dict[str, Any]:
    """Unified (a map) and legacy v1 (a list) trail files, keyed exactly as ``trail/parser.py`` reads them."""
    from .trail import config_reader as c
    from .trail import parser as p

    call_ref = {"$ref": TOOL_CALL_REF}
    calls = {"type": ["array", "null"], "items": call_ref}
    text = {"type": "string", "minLength": 1}
    retries = {"type": ["integer", "null"], "minimum": 0}
    step_props: dict[str, Any] = {
        "step": {**text, "description": "what to do, in natural language"},
        "verify": {**text, "description": "what must be true, in natural language"},
        "recording": {"type": ["object", "null"], "description": "device classifier → the tool calls to replay",
                      "additionalProperties": calls},
        "recordable": {"type": "boolean"},
        "maxRetries": retries,
        "actor": {**text, "description": "the actor of config.actors whose device runs this step (our extension)"},
    }
    step = {"type": "object", "additionalProperties": False,
            "properties": {k: step_props[k] for k in (*p.STEP_KEYS, *p.ACTOR_KEYS)},
            "oneOf": [{"required": ["step"]}, {"required": ["verify"]}]}
    parallel = {"type": "object", "additionalProperties": False, "required": ["parallel"], "properties": {
        "parallel": {"type": "array", "minItems": 1, "description": "children run at the same time, at most one per "
                     "actor; a child is a step or a list of one actor's steps (our extension)",
                     "items": {"if": {"type": "array"}, "then": {"type": "array", "minItems": 1, "items": step},
                               "else": step}}}}
    trailhead_props = {**step_props, "recording": {
        "type": ["object", "null"], "description": "device classifier → ONE tool call (a map), or {} for nothing",
        "additionalProperties": {"anyOf": [call_ref, {"type": ["object", "null"], "maxProperties": 0}]}}}
    trailhead = {"type": "object", "additionalProperties": False, "required": ["step"],
                 "properties": {k: trailhead_props[k] for k in (*p.TRAILHEAD_KEYS, *p.ACTOR_KEYS)}}
    top = {"config": _config_schema(c.UNIFIED_CONFIG_KEYS), "trailhead": trailhead,
           "trail": {"type": ["array", "null"],
                     "items": {"if": {"type": "object", "required": ["parallel"]}, "then": parallel, "else": step}}}
    unified = {"type": "object", "additionalProperties": False, "properties": {k: top[k] for k in p.TOP_KEYS}}

    v1_prompt = {"type": "object", "additionalProperties": False, "oneOf": step["oneOf"], "properties": {
        k: (step_props[k] if k != "recording" else {"type": ["object", "null"], "additionalProperties": False,
                                                    "properties": {"tools": calls}}) for k in p.STEP_KEYS}}
    v1_trailhead_props = {"step": text, "tools": calls, "maxRetries": retries}
    v1_items = {
        "config": _config_schema(c.V1_CONFIG_KEYS),
        "trailhead": {"anyOf": [{"type": "string", "minLength": 1, "description": "a tool id to run"},
                                {"type": "object", "additionalProperties": False,
                                 "properties": {k: v1_trailhead_props[k] for k in p.V1_TRAILHEAD_KEYS}}]},
        "tools": calls,
        "prompts": {"type": ["array", "null"], "items": v1_prompt},
    }
    v1 = {"type": "array", "items": {"type": "object", "minProperties": 1, "maxProperties": 1,
                                     "additionalProperties": False,
                                     "properties": {k: v1_items[k] for k in p.V1_ITEM_KEYS}}}
    # if/then/else, not anyOf: a validator then names the path of a mistake instead of "matches neither".
    return {"title": "Trailblaze trail (*.trail.yaml)", "type": ["object", "array"],
            "if": {"type": "array"}, "then": v1, "else": unified}


# -- trailblaze.yaml ----------------------------------------------------------------------------
def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A pydantic model's schema, inline (editors and validators handle ``$ref`` unevenly)."""
    return inline_refs(model.model_json_schema(by_alias=True))


def workspace_schema(host: PluginHost, plugin_schemas: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    from .config import CORE_SECTIONS
    from .driver import DriverRegistry

    drivers = DriverRegistry()
    host.register_drivers(drivers)
    driver_props = {key: model_schema(drivers.resolve(key).config_model) for key in drivers.keys()}
    sections: dict[str, Any] = {}
    for key, core_model in CORE_SECTIONS.items():
        sections[key] = model_schema(core_model) if core_model is not None else {}
    sections["drivers"] = {"type": ["object", "null"], "properties": driver_props,
                           "description": "settings per driver key (-o on the command line overrides them)"}
    for key, (model, _info) in host.config_sections().items():
        given = plugin_schemas.get(f"workspace.{key}")
        if given is not None:
            sections[key] = dict(given)
        elif isinstance(model, type) and issubclass(model, BaseModel):
            sections[key] = model_schema(model)
        elif model is list:
            sections[key] = {"type": ["array", "null"]}
        else:
            sections[key] = {}
    return {"title": "Trailblaze workspace (trails/config/trailblaze.yaml)", "type": ["object", "null"],
            "additionalProperties": False, "properties": sections}


# -- all of them --------------------------------------------------------------------------------
def _uses_tool_calls(node: Any) -> bool:
    if isinstance(node, Mapping):
        return node.get("$ref") == TOOL_CALL_REF or any(_uses_tool_calls(v) for v in node.values())
    if isinstance(node, list):
        return any(_uses_tool_calls(v) for v in node)
    return False


def build_schemas(host: PluginHost, descriptors: Iterable[ToolDescriptor], *,
                  closed: bool = True) -> dict[str, dict[str, Any]]:
    """Every schema we can emit, by kind; a file kind no installed plugin reads is left out."""
    plugin = host.json_schemas()
    call = tool_call_schema(descriptors, closed=closed)
    out: dict[str, dict[str, Any]] = {"trail": trail_schema(call), "workspace": workspace_schema(host, plugin)}
    for kind in KINDS:
        if kind not in out and kind in plugin:
            out[kind] = copy.deepcopy(dict(plugin[kind]))
    for kind, schema in out.items():
        schema.setdefault("$schema", DRAFT)
        schema.setdefault("$id", f"https://trailblaze.dev/schemas/{FILE_NAMES.get(kind, kind + '.schema.json')}")
        if _uses_tool_calls(schema):
            schema["$defs"] = {**schema.get("$defs", {}), "toolCall": call}
    # order: $schema, $id, title first for people reading the files
    return {k: {key: s[key] for key in ("$schema", "$id", "title") if key in s} | s for k, s in out.items()}


def write_schemas(schemas: Mapping[str, Mapping[str, Any]], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for kind, schema in schemas.items():
        path = out_dir / FILE_NAMES.get(kind, f"{kind}.schema.json")
        write_atomic(path, json.dumps(schema, indent=2) + "\n")
        written.append(path)
    return written


def run_schema(kind: str | None, out_dir: Path | None, *, workspace: Path | None, start_servers: bool) -> list[str]:
    """``trailblaze schema``: the lines to print (the schema itself, or the files written)."""
    from .config import find_workspace
    from .errors import BadInputError
    from .listings.workspace_tools import workspace_tools
    from .plugins import get_host

    if kind is None and out_dir is None:
        raise BadInputError("say which schema to print, or where to write them all",
                            hint="trailblaze schema trail > trail.schema.json, or trailblaze schema --out .schemas")
    host = get_host()
    root = workspace.resolve() if workspace else find_workspace()
    with workspace_tools(root, host, start_servers=start_servers) as (_config, registry, codec):
        descriptors = [codec.describe(t) for t in registry]
    # Without the servers, a name they might serve is not a mistake: leave unknown names open.
    schemas = build_schemas(host, descriptors, closed=start_servers)
    if kind is not None:
        if kind not in schemas:
            raise BadInputError(f"no installed plugin reads '{kind}' files",
                                hint="tool, trailmap and toolset schemas come with trailblaze-yaml-tools")
        schemas = {kind: schemas[kind]}
    if out_dir is None:
        return [json.dumps(next(iter(schemas.values())), indent=2)]
    return [f"wrote {path}" for path in write_schemas(schemas, out_dir)]

__all__ = ["DRAFT", "FILE_NAMES", "KINDS", "TOOL_CALL_REF", "build_schemas", "call_arguments_schema", "model_schema",
           "run_schema", "tool_call_schema", "trail_schema", "workspace_schema", "write_schemas"]
