"""Tool calls and tool results: the data every layer passes, with no behaviour that needs a session.

A *tool call* is what a trail, a model or a server writes: a name and raw arguments. It is decoded,
kept and re-encoded without its definition, which is why it sits below the tool model and the session
(both of which name it) rather than beside the definitions in ``trailblaze.tools.base``, which re-exports
it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class ToolCall:
    """One call as authored: ``- name: {args}`` in YAML, ``{"toolName", "raw"}`` in JSON logs."""

    __slots__ = ("name", "args")

    def __init__(self, name: str, args: Mapping[str, Any] | None = None) -> None:
        self.name = name
        self.args: dict[str, Any] = dict(args) if args else {}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolCall) and other.name == self.name and other.args == self.args

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self.args!r})"

    def to_yaml(self) -> dict[str, Any]:
        return {self.name: self.args}

    def to_json(self) -> dict[str, Any]:
        return {"toolName": self.name, "raw": self.args}


class OtherTool(ToolCall):
    """A call whose name this process did not know when it was decoded.

    It keeps the raw arguments untouched, re-encodes byte-for-byte in meaning, and is resolved against
    the session registry at dispatch, so a recording of a YAML or MCP tool survives any process.
    """

    __slots__ = ()


@dataclass
class ToolResult:
    """What an executable tool returns. ``success=False`` fails the step with ``message``."""

    success: bool = True
    message: str | None = None
    data: Any = None
    recorded_args: dict[str, Any] | None = None
    """Arguments to write into a recording instead of the authored ones (merged over them), when the
    call as authored would not replay: ``web_click {ref: e12}`` records ``{ref: 'button "Sign in"',
    nodeSelector: {...}}`` because snapshot refs do not survive a reload. Other arguments keep their
    authored form (memory tokens included)."""

    @classmethod
    def ok(cls, message: str | None = None, data: Any = None) -> "ToolResult":
        return cls(True, message, data)

    @classmethod
    def fail(cls, message: str, data: Any = None) -> "ToolResult":
        return cls(False, message, data)


__all__ = ["OtherTool", "ToolCall", "ToolResult"]
