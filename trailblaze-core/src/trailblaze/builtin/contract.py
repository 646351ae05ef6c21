"""The core's answers to the contract hooks, registered as an ordinary (built-in) plugin.

Every descriptor, every decoded or encoded call and every execution goes through the hooks; the core
answers ``trylast`` for its own tool kinds, so a plugin that owns a kind answers first and a wrapper
sees every call whoever answers it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..contract.markers import hookimpl
from ..tools.base import ToolCall
from ..tools.descriptors import default_descriptor
from ..tools.serialization import decode_default

if TYPE_CHECKING:
    from ..context import ToolContext
    from ..tools.base import ToolDefinition, ToolResult
    from ..tools.descriptors import ToolDescriptor
    from ..tools.registry import ToolRegistry


@hookimpl(trylast=True)
def trailblaze_tool_descriptor(definition: "ToolDefinition") -> "ToolDescriptor":
    return default_descriptor(definition)


@hookimpl(trylast=True)
def trailblaze_decode_tool(name: str, args: dict[str, Any], registry: "ToolRegistry | None") -> ToolCall:
    return decode_default(name, args, registry)


@hookimpl(trylast=True)
def trailblaze_encode_tool(call: ToolCall) -> dict[str, Any]:
    return {call.name: call.args}


@hookimpl(trylast=True)
def trailblaze_execute_tool(definition: "ToolDefinition", prepared: Any,
                            context: "ToolContext") -> "ToolResult | list[ToolCall]":
    return definition.invoke(prepared, context)
