"""Provider-neutral request and response shapes.

The agent builds one ``LlmRequest`` per model call and every provider translates it to its own wire
format (OpenAI chat completions, Anthropic messages) and back. Keeping the agent ignorant of wire
formats is what lets a third-party provider plugin work with the same loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]


@dataclass
class LlmToolCall:
    """A tool call the model asked for. ``arguments`` is None when the model sent JSON we could not
    parse; ``parse_error`` then says why (the agent hands that back to the model)."""

    id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str | None = None
    parse_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "args": self.arguments}
        if self.parse_error:
            out["rawArguments"] = self.raw_arguments
            out["parseError"] = self.parse_error
        return out


@dataclass
class LlmImage:
    """A screenshot sent to a vision model."""

    data: bytes
    media_type: str = "image/png"


@dataclass
class LlmMessage:
    role: Role
    content: str = ""
    tool_calls: list[LlmToolCall] = field(default_factory=list)
    """Assistant messages: the calls the model made."""
    tool_call_id: str | None = None
    """Tool messages: which call this is the result of."""
    tool_name: str | None = None
    images: list[LlmImage] = field(default_factory=list)
    is_error: bool = False
    """Tool messages: the call failed (Anthropic marks the result ``is_error``)."""

    def to_json(self) -> dict[str, Any]:
        """The log form (images are named by size, never inlined)."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["toolCalls"] = [c.to_json() for c in self.tool_calls]
        if self.tool_call_id:
            out["toolCallId"] = self.tool_call_id
        if self.tool_name:
            out["toolName"] = self.tool_name
        if self.is_error:
            out["isError"] = True
        if self.images:
            out["images"] = [f"{i.media_type}, {len(i.data)} bytes" for i in self.images]
        return out


@dataclass
class LlmUsage:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    """Input tokens read from the provider's prompt cache (part of ``input_tokens``)."""
    cache_write_tokens: int = 0
    """Input tokens written to the prompt cache (part of ``input_tokens``; Anthropic bills them above the
    input price, OpenAI writes its cache for free and reports none)."""

    def to_json(self) -> dict[str, int]:
        out = {"inputTokens": self.input_tokens, "outputTokens": self.output_tokens,
               "cachedInputTokens": self.cached_input_tokens}
        if self.cache_write_tokens:
            out["cacheWriteInputTokens"] = self.cache_write_tokens
        return out


@dataclass
class LlmRequest:
    """One model call: a system prompt, the conversation, the tools on offer."""

    model: str
    """The provider's model id (without the ``provider/`` prefix)."""
    system: str
    messages: list[LlmMessage]
    tools: list[dict[str, Any]]
    """Neutral tool descriptors: ``{"name", "description", "parameters"}`` (JSON Schema)."""
    temperature: float | None = None
    max_output_tokens: int = 4096
    require_tool: bool = True
    """Ask the provider to force a tool call (``tool_choice``); the agent copes when it does not."""


@dataclass
class LlmResponse:
    text: str = ""
    tool_calls: list[LlmToolCall] = field(default_factory=list)
    usage: LlmUsage = field(default_factory=LlmUsage)
    finish_reason: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    """The provider's response body, as JSON (for the log)."""
