"""Encoding and decoding tool calls: ``- name: {args}`` in YAML, ``{"toolName", "raw"}`` in JSON.

Decoding never needs the tool's definition: an unknown name becomes an ``OtherTool`` that keeps its raw
arguments. Every decode and encode goes through ``trailblaze_decode_tool``/``trailblaze_encode_tool``
when a plugin host is given (the core answers last, in ``trailblaze.builtin.contract``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .. import hookimpl
from .base import ToolCall

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
    """Decode through ``trailblaze_decode_tool``. Without a host (pure parsing, no plugins: tests,
    benchmarks) only the core's own answer applies; every product path passes its host."""
    if host is not None:
        return host.decode_tool(name, args, registry)
    from ..builtin.contract import decode_default

    return decode_default(name, args, registry)


def decode_json(obj: Mapping[str, Any], *, registry: "ToolRegistry | None" = None,
                host: "PluginHost | None" = None) -> ToolCall:
    """Decode ``{"toolName", "raw"}``, or upstream's legacy ``{"class": "<FQCN>", ...fields}``.

    A legacy call is decoded under its class name: the plugin owning that tool maps the class to its
    tool (``upstream_class_decoder``); nobody guesses a tool name from a class name, because upstream's
    class names do not follow its tool names (``TapOnByElementSelector`` is ``tapOnElementBySelector``)."""
    if "toolName" in obj:
        raw = obj.get("raw") or {}
        if not isinstance(raw, Mapping):
            raise ToolCallFormatError("'raw' must be an object")
        return decode(str(obj["toolName"]), dict(raw), registry=registry, host=host)
    if "class" in obj:
        args = {k: v for k, v in obj.items() if k != "class"}
        return decode(str(obj["class"]), args, registry=registry, host=host)
    raise ToolCallFormatError("a JSON tool call needs 'toolName' and 'raw' (or a legacy 'class')")


def upstream_class_decoder(classes: Mapping[str, str]) -> Callable[..., ToolCall | None]:
    """A ``trailblaze_decode_tool`` implementation for a plugin's tools' upstream Kotlin classes.

    ``classes`` maps each fully qualified class name to the plugin's tool name; keep it next to the
    tools. Use it as the plugin module's hook::

        trailblaze_decode_tool = upstream_class_decoder({
            "xyz.block.trailblaze.playwright.tools.PlaywrightNativeClickTool": "web_click",
        })
    """
    table = dict(classes)

    @hookimpl
    def trailblaze_decode_tool(name: str, args: dict[str, Any]) -> ToolCall | None:
        tool = table.get(name)
        return ToolCall(tool, args) if tool is not None else None

    trailblaze_decode_tool.classes = table  # type: ignore[attr-defined]
    return trailblaze_decode_tool


def encode_yaml(call: ToolCall, host: "PluginHost | None" = None) -> dict[str, Any]:
    """Encode through ``trailblaze_encode_tool`` (without a host: the core's ``{name: args}``)."""
    if host is not None:
        return host.encode_tool(call)
    return {call.name: call.args}


def encode_json(call: ToolCall) -> dict[str, Any]:
    return {"toolName": call.name, "raw": call.args}

__all__ = [
    "RESERVED_NAMES", "ToolCallFormatError", "decode", "decode_json", "decode_yaml_item", "encode_json",
    "encode_yaml", "upstream_class_decoder",
]
