"""Editor schemas of the files this plugin reads (``trailblaze schema``, see docs/editors.md).

The tool-file schema is built from the same key lists ``toolfile.py`` and ``parameters.py`` check, the
trailmap and toolset schemas from the pydantic models ``catalog.py`` validates with, so an editor flags
exactly what loading would. Tool bodies point at ``#/$defs/toolCall``; the core fills that in from the
installed tools' descriptors.
"""

from __future__ import annotations

from typing import Any

from trailblaze import CONSTRAINT_KEYS, TOOL_CALL_REF, TOOL_NAME_PATTERN, ParamType, model_schema

from .models import TrailmapManifest, ToolSetConfig
from .parameters import PARAM_KEYS
from .toolfile import FILTER_KEYS, FLAG_KEYS, TOOL_KEYS

_TYPE_WORDS = [t.value for t in ParamType if t is not ParamType.ANY] + ["int", "long", "float", "double", "bool",
                                                                       "str", "list", "map", "dict"]


def _parameter() -> dict[str, Any]:
    number = {"type": "number"}
    limits: dict[str, Any] = {key: {"type": "string", "format": "regex"} if key == "pattern" else number
                              for key in CONSTRAINT_KEYS}
    props: dict[str, Any] = {
        "name": {"type": "string", "pattern": "^[a-zA-Z_][a-zA-Z0-9_]*$"},
        "type": {"enum": _TYPE_WORDS},
        "required": {"type": "boolean"},
        "default": {},
        "description": {"type": "string"},
        "enum": {"type": "array", "minItems": 1},
        "items": {"enum": _TYPE_WORDS, "description": "the item type of an array parameter"},
        "sensitive": {"type": "boolean", "description": "the parameter takes secrets ({{secret}} tokens)"},
        **limits,
    }
    return {"type": "object", "additionalProperties": False, "required": ["name", "type"],
            "properties": {k: props[k] for k in PARAM_KEYS}}


def tool_file_schema() -> dict[str, Any]:
    names = {"type": ["string", "array"], "items": {"type": "string", "minLength": 1}}
    props: dict[str, Any] = {
        "id": {"type": "string", "pattern": TOOL_NAME_PATTERN.pattern, "description": "the tool name used in recordings"},
        "description": {"type": "string", "minLength": 1, "description": "what the model is told the tool does"},
        "parameters": {"type": ["array", "null"], "items": _parameter()},
        "class": {"type": "string", "pattern": r"^[\w.]+[:.]\w+$", "description": "package.module:ToolClass"},
        "tools": {"type": "array", "items": {"$ref": TOOL_CALL_REF}, "description": "the calls this tool makes"},
        "script": {"type": "string", "description": "an MCP tool server script (.py, .ts, .js)"},
        **{k: {"type": "boolean"} for k in FLAG_KEYS},
        **{k: names for k in FILTER_KEYS},
        "shortcut": {"type": "object"},
        "trailhead": {"type": "object"},
    }
    return {"title": "Trailblaze tool file (*.tool.yaml, *.shortcut.yaml, *.trailhead.yaml)", "type": "object",
            "required": ["id"], "additionalProperties": False, "properties": {k: props[k] for k in TOOL_KEYS}}


def _ref_or(inline: dict[str, Any]) -> dict[str, Any]:
    ref = {"type": "object", "additionalProperties": False, "required": ["ref"],
           "properties": {"ref": {"type": "string", "description": "a file, relative to trails/config/"}}}
    return {"anyOf": [ref, inline]}


def json_schemas() -> dict[str, dict[str, Any]]:
    tool = tool_file_schema()
    toolset = model_schema(ToolSetConfig)
    inline_tool = {k: v for k, v in tool.items() if k != "title"}
    return {
        "tool": tool,
        "trailmap": {"title": "Trailblaze trailmap (trailmap.yaml)", **model_schema(TrailmapManifest)},
        "toolset": {"title": "Trailblaze toolset (toolsets/*.yaml)", **toolset},
        "workspace.tools": {"type": ["array", "null"], "items": _ref_or(inline_tool)},
        "workspace.toolsets": {"type": ["array", "null"], "items": _ref_or(toolset)},
        "workspace.targets": {"type": ["array", "null"], "items": {"type": "string"}},
    }
