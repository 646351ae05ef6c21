"""Encoding and decoding tool calls: ``- name: {args}`` in YAML, ``{"toolName", "raw"}`` in JSON.

Decoding never needs the tool's definition: an unknown name becomes an ``OtherTool`` that keeps its raw
arguments. Plugins may take over a name through ``trailblaze_decode_tool``/``trailblaze_encode_tool``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .base import OtherTool, ToolCall

if TYPE_CHECKING:
    from ..plugins import PluginHost
    from .registry import ToolRegistry

RESERVED_NAMES = frozenset({"config", "prompts", "tools", "trailhead"})


class ToolCallFormatError(ValueError):
    """A tool call is not a single-key map with a map value."""


def decode_yaml_item(item: Any, *, registry: "ToolRegistry | None" = None,
                     host: "PluginHost | None" = None) -> ToolCall:
    """Decode one YAML list item ``{name: {args}}``. Only the first key is read (as upstream)."""
    if not isinstance(item, Mapping) or not item:
        raise ToolCallFormatError("a tool call must be a map with one key, the tool name: "
                                  "'- toolName: {args}'")
    name = next(iter(item))
    if not isinstance(name, str):
        raise ToolCallFormatError(f"tool name must be a string, got {name!r}")
    if name in RESERVED_NAMES:
        raise ToolCallFormatError(f"'{name}' is reserved and cannot be a tool name")
    args = item[name]
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise ToolCallFormatError(f"tool '{name}': expected a map of arguments, got "
                                  f"{type(args).__name__} {args!r} (write '- {name}: {{...}}')")
    return decode(name, dict(args), registry=registry, host=host)


def decode(name: str, args: dict[str, Any], *, registry: "ToolRegistry | None" = None,
           host: "PluginHost | None" = None) -> ToolCall:
    if host is not None:
        custom = host.decode_tool(name, args, registry)
        if custom is not None:
            return custom
    if registry is not None and name in registry:
        return ToolCall(name, args)
    return OtherTool(name, args)


def decode_json(obj: Mapping[str, Any], *, registry: "ToolRegistry | None" = None,
                host: "PluginHost | None" = None) -> ToolCall:
    """Decode ``{"toolName", "raw"}`` or the legacy ``{"class": "<FQCN>", ...fields}``."""
    if "toolName" in obj:
        raw = obj.get("raw") or {}
        if not isinstance(raw, Mapping):
            raise ToolCallFormatError("'raw' must be an object")
        return decode(str(obj["toolName"]), dict(raw), registry=registry, host=host)
    if "class" in obj:
        fqcn = str(obj["class"])
        simple = fqcn.rsplit(".", 1)[-1]
        name = _legacy_class_name(simple)
        args = {k: v for k, v in obj.items() if k != "class"}
        return decode(name, args, registry=registry, host=host)
    raise ToolCallFormatError("a JSON tool call needs 'toolName' and 'raw' (or a legacy 'class')")


def _legacy_class_name(simple: str) -> str:
    """``TapOnElementBySelectorTrailblazeTool`` → ``tapOnElementBySelector``."""
    for suffix in ("TrailblazeTool", "Tool"):
        if simple.endswith(suffix) and len(simple) > len(suffix):
            simple = simple[: -len(suffix)]
            break
    return simple[:1].lower() + simple[1:]


def encode_yaml(call: ToolCall, host: "PluginHost | None" = None) -> dict[str, Any]:
    if host is not None:
        custom = host.encode_tool(call)
        if custom is not None:
            return custom
    return {call.name: call.args}


def encode_json(call: ToolCall) -> dict[str, Any]:
    return {"toolName": call.name, "raw": call.args}
