"""One session's tool codec: how its tool calls are read, written back and shown to a model.

Decoding, encoding and describing all go through plugin hooks (``trailblaze_decode_tool``,
``trailblaze_encode_tool``, ``trailblaze_tool_descriptor``), and every command that reads a trail must
answer them the same way: a plugin that maps a legacy name for ``run`` must map it for ``check`` too.
Binding the hooks and the tool registry into one object, once per session or workspace, is what keeps
them from drifting apart; the trail and tool layers take a codec and never see the plugin host.

The hooks are a protocol rather than the host class so that this layer sits below the host in the
import graph (the host implements it). A codec without hooks gives the core's own answers only: pure
parsing in tests and benchmarks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .base import ToolCall, ToolDefinition
from .descriptors import ToolDescriptor, default_descriptor
from .registry import ToolRegistry
from .serialization import decode_default, json_call_parts, yaml_call_parts


class CodecHooks(Protocol):
    """The three contract calls a codec makes; the plugin host (``trailblaze.plugins``) answers them."""

    def decode_tool(self, name: str, args: dict[str, Any], registry: ToolRegistry | None) -> ToolCall: ...

    def encode_tool(self, call: ToolCall) -> dict[str, Any]: ...

    def tool_descriptor(self, definition: ToolDefinition, provider: str | None = None) -> ToolDescriptor: ...


class ToolCodec:
    """Decode, encode and describe tool calls for one registry through one set of hooks."""

    __slots__ = ("hooks", "registry")

    def __init__(self, hooks: CodecHooks | None = None, registry: ToolRegistry | None = None) -> None:
        self.hooks = hooks
        self.registry = registry

    def decode(self, name: str, args: dict[str, Any]) -> ToolCall:
        if self.hooks is not None:
            return self.hooks.decode_tool(name, args, self.registry)
        return decode_default(name, args, self.registry)

    def decode_yaml_item(self, item: Any) -> ToolCall:
        """Decode one YAML list item ``{name: {args}}``; ``ToolCallFormatError`` names what is wrong."""
        return self.decode(*yaml_call_parts(item))

    def decode_json(self, obj: Mapping[str, Any]) -> ToolCall:
        """Decode ``{"toolName", "raw"}``, or upstream's legacy ``{"class": "<FQCN>", ...fields}`` (see
        ``json_call_parts``)."""
        return self.decode(*json_call_parts(obj))

    def encode_yaml(self, call: ToolCall) -> dict[str, Any]:
        if self.hooks is not None:
            return self.hooks.encode_tool(call)
        return {call.name: call.args}

    def describe(self, definition: ToolDefinition, provider: str | None = None) -> ToolDescriptor:
        """The descriptor for ``definition`` (the plugin owning its kind answers, the core last), for the
        model ``provider`` type, or None for listings and MCP clients."""
        if self.hooks is not None:
            return self.hooks.tool_descriptor(definition, provider)
        return default_descriptor(definition)


CORE_CODEC = ToolCodec()
"""The core's own answers, no plugins: for pure parsing (tests, benchmarks, save-back's re-reading)."""

__all__ = ["CORE_CODEC", "CodecHooks", "ToolCodec"]
