"""Encoding and decoding tool calls: ``- name: {args}`` in YAML, ``{"toolName", "raw"}`` in JSON.

Decoding never needs the tool's definition: an unknown name becomes an ``OtherTool`` that keeps its raw
arguments. These are the format's rules; a session decodes and encodes through its ``ToolCodec``
(``tools/codec.py``), which asks the plugins first and falls back on ``decode_default``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..contract.calls import OtherTool, ToolCall
from ..contract.markers import hookimpl

if TYPE_CHECKING:
    from .registry import ToolRegistry

RESERVED_NAMES = frozenset({"config", "prompts", "tools", "trailhead"})


class ToolCallFormatError(ValueError):
    """A tool call is not a single-key map with a map value."""


def yaml_call_parts(item: Any) -> tuple[str, dict[str, Any]]:
    """``(name, args)`` of one YAML list item ``{name: {args}}``. Only the first key is read (as upstream)."""
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
    return name, dict(args)


def json_call_parts(obj: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(name, args)`` of ``{"toolName", "raw"}``, or of upstream's legacy ``{"class": "<FQCN>", ...}``.

    A legacy call is decoded under its class name: the plugin owning that tool maps the class to its
    tool (``upstream_class_decoder``); nobody guesses a tool name from a class name, because upstream's
    class names do not follow its tool names (``TapOnByElementSelector`` is ``tapOnElementBySelector``)."""
    if "toolName" in obj:
        raw = obj.get("raw") or {}
        if not isinstance(raw, Mapping):
            raise ToolCallFormatError("'raw' must be an object")
        return str(obj["toolName"]), dict(raw)
    if "class" in obj:
        return str(obj["class"]), {k: v for k, v in obj.items() if k != "class"}
    raise ToolCallFormatError("a JSON tool call needs 'toolName' and 'raw' (or a legacy 'class')")


def decode_default(name: str, args: dict[str, Any], registry: "ToolRegistry | None") -> ToolCall:
    """The core's decoding: a registered name is a ``ToolCall``; anything else an ``OtherTool`` kept as
    written (upstream's ``OtherTrailblazeTool``), resolved by name at dispatch."""
    if registry is not None and name in registry:
        return ToolCall(name, args)
    return OtherTool(name, args)


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


def encode_json(call: ToolCall) -> dict[str, Any]:
    return {"toolName": call.name, "raw": call.args}


# -- deprecated since contract 1.2 ------------------------------------------------------------------
# Removed with the codec change in contract 1.1 without a warning period, which broke plugins written
# against the docs; restored as wrappers that do what they did, through the codec the host makes (the
# codec module imports this one, so these cannot name it). They go in contract 2.0.
class _CodecOwner(Protocol):
    """What these took as ``host``: the plugin host, which makes a ``ToolCodec``."""

    def codec(self, registry: "ToolRegistry | None" = None) -> Any: ...


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"trailblaze.tools.serialization.{old} is deprecated and goes in contract 2.0: use "
                  f"session.codec.{new}, or trailblaze.PluginHost.codec(registry).{new} outside a session",
                  DeprecationWarning, stacklevel=3)


def decode(name: str, args: dict[str, Any], *, registry: "ToolRegistry | None" = None,
           host: _CodecOwner | None = None) -> ToolCall:
    """Deprecated: decode through ``trailblaze_decode_tool`` (without a host, the core's own answer)."""
    _deprecated("decode(name, args, registry=, host=)", "decode(name, args)")
    return _decode(name, args, registry, host)


def decode_yaml_item(item: Any, *, registry: "ToolRegistry | None" = None,
                     host: _CodecOwner | None = None) -> ToolCall:
    """Deprecated: decode one YAML list item ``{name: {args}}``; ``ToolCallFormatError`` says what is
    wrong."""
    _deprecated("decode_yaml_item(item, registry=, host=)", "decode_yaml_item(item)")
    return _decode(*yaml_call_parts(item), registry, host)


def decode_json(obj: Mapping[str, Any], *, registry: "ToolRegistry | None" = None,
                host: _CodecOwner | None = None) -> ToolCall:
    """Deprecated: decode ``{"toolName", "raw"}`` or upstream's legacy ``{"class": ...}``."""
    _deprecated("decode_json(obj, registry=, host=)", "decode_json(obj)")
    return _decode(*json_call_parts(obj), registry, host)


def encode_yaml(call: ToolCall, host: _CodecOwner | None = None) -> dict[str, Any]:
    """Deprecated: encode through ``trailblaze_encode_tool`` (without a host: the core's ``{name: args}``)."""
    _deprecated("encode_yaml(call, host)", "encode_yaml(call)")
    if host is None:
        return {call.name: call.args}
    encoded: dict[str, Any] = host.codec().encode_yaml(call)
    return encoded


def _decode(name: str, args: dict[str, Any], registry: "ToolRegistry | None",
            host: _CodecOwner | None) -> ToolCall:
    if host is None:  # a codec without hooks: the core's own answer
        return decode_default(name, args, registry)
    call: ToolCall = host.codec(registry).decode(name, args)
    return call

__all__ = [
    "RESERVED_NAMES", "ToolCallFormatError", "decode_default", "encode_json", "json_call_parts",
    "upstream_class_decoder", "yaml_call_parts",
]
