"""``YamlToolDefinition``: a ``tools:``-mode YAML tool, a delegating tool definition.

Calling it validates the caller's arguments against the declared parameters, substitutes them into the
compiled body and hands the resulting calls back to the dispatcher, which runs each one through the
same path as a recorded call: memory interpolation, schema validation, execution, recursion (with the
depth cap and cycle detection), logging. Nothing about a YAML tool is special to the core.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from trailblaze import (ANNOTATION_KEYS, CORE_CODEC, CallCodec, ParameterSchema, ToolCall,
                        ToolCallFormatError, ToolDefinition, ToolExpansionError)

from .template import CompiledBody

if TYPE_CHECKING:
    from trailblaze import ToolContext


@dataclass(kw_only=True)
class YamlToolDefinition(ToolDefinition):
    """A tool whose body is a list of other tool calls with ``{{params.x}}`` tokens."""

    kind: ClassVar[str] = "yaml"

    delegating: bool = True
    schema: ParameterSchema
    body: CompiledBody
    null_defaults: tuple[str, ...] = ()
    file: Path | None = None

    def parameters(self) -> ParameterSchema:
        return self.schema

    def prepare(self, args: dict[str, Any]) -> dict[str, Any]:
        """Caller values, typed; explicit null counts as omitted; declared ``default: null`` kept as None."""
        if any(v is None for v in args.values()):
            args = {k: v for k, v in args.items() if v is not None}
        values = self.schema.validate(args, owner=f"tool '{self.name}'", allow_extra=ANNOTATION_KEYS)
        for key in ANNOTATION_KEYS:
            if key in values and self.schema.get(key) is None:
                del values[key]
        for name in self.null_defaults:
            values.setdefault(name, None)
        return values

    def expand(self, values: dict[str, Any]) -> list[dict[str, Any]]:
        """The body with ``values`` (already prepared) substituted, as ``[{toolName: args}, ...]``."""
        return self.body.expand(values)

    def calls(self, values: dict[str, Any], codec: CallCodec = CORE_CODEC) -> list[ToolCall]:
        """The expansion re-decoded through the same path trail recordings take (the session's codec)."""
        out: list[ToolCall] = []
        for item in self.body.expand(values):
            try:
                out.append(codec.decode_yaml_item(item))
            except ToolCallFormatError as exc:
                raise ToolExpansionError(f"tool '{self.name}' expanded into an invalid call: {exc}") from None
        return out

    def expansion(self, prepared: Any, ctx: ToolContext) -> list[ToolCall]:
        """What a call delegates to (this plugin's ``trailblaze_execute_tool`` for kind ``yaml``)."""
        return self.calls(prepared, ctx.session.codec)
