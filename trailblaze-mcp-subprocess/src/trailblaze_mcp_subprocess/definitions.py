"""Tool definitions for tools a server serves (kind ``mcp``).

A definition is shared by every session of a workspace (registries are copied per session), so it
holds no connection: ``call_server`` (this plugin's ``trailblaze_execute_tool``) finds the session's
running server in ``session.resources``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from trailblaze import (ANNOTATION_KEYS, InfrastructureError, ParameterSchema, ToolCall, ToolDefinition,
                        ToolDescriptor, ToolResult, default_descriptor)

from .envelope import CONTEXT_ARG

if TYPE_CHECKING:
    from trailblaze import ToolContext

STATE_KEY = "mcp_subprocess"
"""Key of this plugin's per-session state in ``Session.resources``."""


def sanitize_schema(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """The advertised ``inputSchema`` without the reserved ``_trailblazeContext`` (never shown or validated)."""
    if schema is None:
        return None
    props = schema.get("properties")
    if isinstance(props, dict) and CONTEXT_ARG in props:
        schema = copy.deepcopy(schema)
        schema["properties"].pop(CONTEXT_ARG, None)
        if isinstance(schema.get("required"), list):
            schema["required"] = [r for r in schema["required"] if r != CONTEXT_ARG]
    return schema


@dataclass(kw_only=True)
class McpToolDefinition(ToolDefinition):
    kind: ClassVar[str] = "mcp"

    records_delegates: bool = True
    """A call that returns ``_trailblaze_delegates`` is recorded as its delegates, never as itself."""
    server: str
    """Name of the server (``mcpServers`` entry name, or the script's) that serves this tool."""
    input_schema: dict[str, Any] | None = None
    """The advertised ``inputSchema`` (sanitized); None = schemaless, arguments are not checked."""

    @cached_property
    def _schema(self) -> ParameterSchema | None:
        schema = self.input_schema
        if schema is None or not isinstance(schema.get("properties"), dict):
            return None  # no properties at all: a schemaless tool (upstream skips validation)
        return ParameterSchema.from_json_schema(schema)

    def parameters(self) -> ParameterSchema | None:
        return self._schema

    def prepare(self, args: dict[str, Any]) -> dict[str, Any]:
        """The arguments to send: validated against the advertised schema, without ``_trailblazeContext``
        (ours to fill in) or recording annotations the server does not take. Not copied when there is
        nothing to drop: nothing downstream mutates them (the call builds its own wire arguments)."""
        if CONTEXT_ARG in args:
            args = {k: v for k, v in args.items() if k != CONTEXT_ARG}
        schema = self._schema
        if schema is None:
            return args
        prepared = schema.validate(args, owner=self._owner, allow_extra=ANNOTATION_KEYS)
        if ANNOTATION_KEYS.isdisjoint(prepared):
            return prepared
        # Recording annotations (reasoning) are ours, not the server's: do not send what it does not take.
        return {k: v for k, v in prepared.items() if k not in ANNOTATION_KEYS or schema.get(k) is not None}

    @cached_property
    def _owner(self) -> str:
        return f"tool '{self.name}'"

    def call_server(self, prepared: Any, ctx: ToolContext) -> ToolResult | list[ToolCall]:
        """Call the tool on the session's running server (``trailblaze_execute_tool`` for kind ``mcp``)."""
        state = ctx.session.resources.get(STATE_KEY)
        if state is None:
            raise InfrastructureError(f"tool '{self.name}' is served by MCP server '{self.server}', which is not "
                                      "running in this session (the session hooks did not start it)")
        return state.call(self, prepared, ctx)  # type: ignore[no-any-return]

    def descriptor(self) -> ToolDescriptor:
        """The advertised schema as is (richer than our parameter model), with the usual ``_meta`` keys."""
        base = default_descriptor(self)
        if self.input_schema is None or self._schema is None:
            return base
        meta = {**{k: v for k, v in self.meta.items() if not k.startswith("trailblaze/")}, **base.meta}
        llm = {k: v for k, v in self.input_schema.items() if k != "$schema"}
        return ToolDescriptor(self.name, self.description, self.input_schema, llm, meta, self.is_read_only)
