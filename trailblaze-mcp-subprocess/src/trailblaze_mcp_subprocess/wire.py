"""Plain data that crosses the SDK adapter boundary.

The rest of the plugin never sees an ``mcp`` type: the adapter (``sdk.py``) turns SDK objects into these
dataclasses, so a change in the SDK (1.x → 2.x renamed every field) touches one module only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ListedTool:
    """One entry of a server's ``tools/list`` answer, as sent on the wire (camelCase keys kept)."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    read_only: bool = False
    """The MCP ``annotations.readOnlyHint``: the tool changes nothing (``ToolDefinition.is_read_only``)."""


@dataclass(frozen=True)
class ServerHello:
    """What ``initialize`` told us about the server."""

    name: str = ""
    version: str = ""
    protocol_version: str = ""
    has_resources: bool = False


@dataclass
class CallOutcome:
    """A ``tools/call`` result in wire terms: text blocks, ``isError``, structured content, ``_meta``."""

    is_error: bool | None = None
    texts: list[str] = field(default_factory=list)
    structured: Any = None
    meta: dict[str, Any] = field(default_factory=dict)
    content: list[dict[str, Any]] = field(default_factory=list)
    """Every content block, JSON-shaped, for logs."""


class ProtocolError(Exception):
    """The server answered a request with a JSON-RPC error (it is alive; the call failed)."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class ResultRefused(Exception):
    """The server answered, but its result does not fit what the tool declared (structured content against
    its ``outputSchema``); the message is the SDK's."""


class ConnectionLost(Exception):
    """The connection to the server ended (the process exited, closed stdout, or broke the protocol)."""


class RequestTimeout(Exception):
    """The server did not answer within the time allowed."""
