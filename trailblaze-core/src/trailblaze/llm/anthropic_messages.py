"""Built-in provider type ``anthropic`` (the Messages API).

Uses the official ``anthropic`` client (the ``trailblaze[anthropic]`` extra), imported on the first
call only. The neutral conversation is folded into Anthropic's strictly alternating user/assistant
turns: tool results and the new screen travel together in one user turn.
"""

from __future__ import annotations

import base64
import json
from typing import Any, ClassVar

from .openai_chat import error_text, status_error
from .registry import OfficialClientProvider, ProviderError
from .specs import CostSpec, ModelSpec
from .types import LlmRequest, LlmResponse, LlmToolCall, LlmUsage


def _m(model_id: str, inp: float, out: float, cached: float, max_out: int) -> ModelSpec:
    return ModelSpec(id=model_id, vision=True, context_length=200_000, max_output_tokens=max_out,
                     cost=CostSpec(input_per_million=inp, output_per_million=out, cached_input_per_million=cached,
                                   cache_write_per_million=inp * 1.25))


ANTHROPIC_MODELS: tuple[ModelSpec, ...] = (
    _m("claude-sonnet-4-5", 3.0, 15.0, 0.3, 64_000),
    _m("claude-sonnet-4-6", 3.0, 15.0, 0.3, 64_000),
    _m("claude-opus-4-1", 15.0, 75.0, 1.5, 32_000),
    _m("claude-haiku-4-5", 1.0, 5.0, 0.1, 64_000),
)
"""List prices (USD per million tokens) when this was written; override them under ``models:``."""


class AnthropicProvider(OfficialClientProvider):
    """Anthropic's Messages API (``ANTHROPIC_API_KEY``)."""

    type: ClassVar[str] = "anthropic"
    description: ClassVar[str] = "Anthropic Messages API (official anthropic client)"
    builtin_id: ClassVar[str | None] = "anthropic"
    default_base_url: ClassVar[str | None] = "https://api.anthropic.com"
    default_env_var: ClassVar[str | None] = "ANTHROPIC_API_KEY"
    known_models: ClassVar[tuple[ModelSpec, ...]] = ANTHROPIC_MODELS

    client_module: ClassVar[str] = "anthropic"
    client_class: ClassVar[str] = "Anthropic"
    client_extra: ClassVar[str] = "anthropic"

    def body(self, request: LlmRequest) -> dict[str, Any]:
        # The system block ends the request's static prefix (tools, then system): marked for Anthropic's
        # prompt cache, so every later request of the trail reads it at a tenth of the input price.
        system = [{"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}] \
            if request.system else request.system
        body: dict[str, Any] = {"model": request.model, "max_tokens": request.max_output_tokens,
                                "system": system, "messages": to_anthropic_messages(request)}
        if request.tools:
            body["tools"] = [{"name": t["name"], "description": t.get("description", ""),
                              "input_schema": self.tool_parameters(t["parameters"])} for t in request.tools]
            body["tool_choice"] = {"type": "any"} if request.require_tool else {"type": "auto"}
        if request.temperature is not None:
            body["temperature"] = request.temperature
        return body

    def complete(self, request: LlmRequest) -> LlmResponse:
        import anthropic

        client = self._client()
        try:
            message = client.messages.create(**self.body(request))
        except anthropic.APIStatusError as exc:
            raise status_error(self.provider_id, exc.status_code, error_text(exc), exc.response) from None
        except anthropic.APITimeoutError:
            raise ProviderError(f"LLM provider '{self.provider_id}' timed out", retryable=True) from None
        except anthropic.APIConnectionError as exc:
            raise ProviderError(f"LLM provider '{self.provider_id}' unreachable at {self.base_url}: {exc}",
                                retryable=True) from None
        except anthropic.APIResponseValidationError as exc:
            raise ProviderError(f"LLM provider '{self.provider_id}' sent a malformed response: {exc}",
                                retryable=True) from None
        return from_anthropic(self.provider_id, message)


def to_anthropic_messages(request: LlmRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def user_blocks() -> list[dict[str, Any]]:
        if not out or out[-1]["role"] != "user":
            out.append({"role": "user", "content": []})
        blocks: list[dict[str, Any]] = out[-1]["content"]
        return blocks

    for m in request.messages:
        if m.role == "assistant":
            blocks: list[dict[str, Any]] = []
            if m.content:
                blocks.append({"type": "text", "text": m.content})
            for c in m.tool_calls:
                blocks.append({"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments or {}})
            out.append({"role": "assistant", "content": blocks or [{"type": "text", "text": "(no answer)"}]})
        elif m.role == "tool":
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content}
            if m.is_error:
                block["is_error"] = True
            user_blocks().append(block)
        else:
            target = user_blocks()
            target.append({"type": "text", "text": m.content})
            for image in m.images:
                target.append({"type": "image", "source": {"type": "base64", "media_type": image.media_type,
                                                           "data": base64.b64encode(image.data).decode("ascii")}})
    return out


def from_anthropic(provider_id: str, message: Any) -> LlmResponse:
    raw = message.model_dump(mode="json") if hasattr(message, "model_dump") else dict(message)
    content = getattr(message, "content", None)
    if content is None:
        raise ProviderError(f"LLM provider '{provider_id}' answered without content: {json.dumps(raw)[:300]}",
                            retryable=True)
    texts: list[str] = []
    calls: list[LlmToolCall] = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(block.text)
        elif kind == "tool_use":
            args = block.input
            if isinstance(args, dict):
                calls.append(LlmToolCall(block.id, block.name, args, json.dumps(args)))
            else:
                calls.append(LlmToolCall(block.id, block.name, None, json.dumps(args),
                                         f"arguments must be a JSON object, got {type(args).__name__}"))
    usage = LlmUsage()
    if getattr(message, "usage", None) is not None:
        u = message.usage
        cached = getattr(u, "cache_read_input_tokens", None) or 0
        written = getattr(u, "cache_creation_input_tokens", None) or 0
        usage = LlmUsage((u.input_tokens or 0) + cached + written, u.output_tokens or 0, cached, written)
    return LlmResponse("\n".join(texts), calls, usage, getattr(message, "stop_reason", None), raw)

