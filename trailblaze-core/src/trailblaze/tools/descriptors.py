"""Descriptors: how a tool definition is shown to a model (OpenAI function shape) or an MCP client.

Both shapes come from one ``ToolDescriptor``, so a tool looks the same to every consumer. Selector-typed
parameters are dropped from the LLM shapes but kept in the full schema used to validate recordings.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Protocol

from .base import ToolDefinition


@dataclass(frozen=True)
class ToolDescriptor:
    name: str
    description: str
    input_schema: dict[str, Any]
    llm_input_schema: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    read_only: bool = False
    """``ToolDefinition.is_read_only``: published to MCP clients as MCP's own ``readOnlyHint`` annotation, so
    a client (or another Trailblaze planning read-only) knows the tool changes nothing."""

    def openai(self) -> dict[str, Any]:
        """OpenAI function-calling shape (chat completions ``tools`` entry)."""
        return {"type": "function",
                "function": {"name": self.name, "description": self.description,
                             "parameters": self.llm_input_schema}}

    def anthropic(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": self.llm_input_schema}

    def mcp(self) -> dict[str, Any]:
        """MCP ``Tool`` shape, with upstream's ``trailblaze/*`` ``_meta`` keys."""
        out: dict[str, Any] = {"name": self.name, "description": self.description,
                               "inputSchema": self.llm_input_schema}
        if self.read_only:
            out["annotations"] = {"readOnlyHint": True}
        if self.meta:
            out["_meta"] = self.meta
        return out


_SCHEMALESS: dict[str, Any] = {"type": "object", "properties": {}}


def default_descriptor(definition: ToolDefinition) -> ToolDescriptor:
    schema = definition.parameters()
    full = schema.json_schema() if schema is not None else _SCHEMALESS
    llm = schema.json_schema(for_llm=True) if schema is not None else _SCHEMALESS
    meta: dict[str, Any] = {
        "trailblaze/surfaceToLlm": definition.surface_to_llm,
        "trailblaze/isRecordable": definition.is_recordable,
        "trailblaze/requiresHost": definition.requires_host,
        "trailblaze/isVerification": definition.is_verification,
    }
    if definition.drivers is not None:
        meta["trailblaze/supportedDrivers"] = sorted(definition.drivers)
    if definition.platforms is not None:
        meta["trailblaze/supportedPlatforms"] = sorted(p.upper() for p in definition.platforms)
    return ToolDescriptor(definition.name, definition.description, full, llm, meta, definition.is_read_only)


class _CodecOwner(Protocol):
    """What ``describe`` was given as ``host``: the plugin host, which makes a ``ToolCodec``."""

    def codec(self, registry: Any = None) -> Any: ...


def describe(definition: ToolDefinition, host: _CodecOwner, provider: str | None = None) -> ToolDescriptor:
    """Deprecated since contract 1.2 (removed with the codec change in 1.1 without a warning period, so
    restored): the descriptor ``host``'s plugins give ``definition`` for the model ``provider`` type or
    None. It is the codec's ``describe``; call that instead."""
    warnings.warn("trailblaze.tools.descriptors.describe(definition, host, provider) is deprecated and goes "
                  "in contract 2.0: use session.codec.describe(definition, provider), or "
                  "trailblaze.PluginHost.codec().describe(definition, provider) outside a session",
                  DeprecationWarning, stacklevel=2)
    found: ToolDescriptor = host.codec().describe(definition, provider)
    return found


__all__ = [
    "ToolDescriptor", "default_descriptor",
]
