"""Built-in provider types ``openai`` and ``openai_compatible`` (chat completions).

Both speak OpenAI's chat-completions wire format through the official ``openai`` client (the
``trailblaze[openai]`` extra), imported on the first call only. ``openai_compatible`` covers Azure,
vLLM, Ollama and gateways: a ``base_url``, an optional ``chat_completions_path`` (``{{model_id}}`` is
replaced), extra ``headers`` and an API key from a named environment variable. The client's own retries
are switched off: the agent retries with backoff and logs every attempt.
"""

from __future__ import annotations

import base64
import json
from typing import Any, ClassVar

from .registry import OfficialClientProvider, ProviderError
from .specs import CostSpec, ModelSpec
from .types import LlmRequest, LlmResponse, LlmToolCall, LlmUsage


def _m(model_id: str, inp: float, out: float, cached: float, ctx: int, max_out: int) -> ModelSpec:
    return ModelSpec(id=model_id, vision=True, context_length=ctx, max_output_tokens=max_out,
                     cost=CostSpec(input_per_million=inp, output_per_million=out, cached_input_per_million=cached))


OPENAI_MODELS: tuple[ModelSpec, ...] = (
    _m("gpt-4.1", 2.0, 8.0, 0.5, 1_047_576, 32_768),
    _m("gpt-4.1-mini", 0.4, 1.6, 0.1, 1_047_576, 32_768),
    _m("gpt-4.1-nano", 0.1, 0.4, 0.025, 1_047_576, 32_768),
    _m("gpt-4o", 2.5, 10.0, 1.25, 128_000, 16_384),
    _m("gpt-4o-mini", 0.15, 0.6, 0.075, 128_000, 16_384),
    _m("gpt-5", 1.25, 10.0, 0.125, 400_000, 128_000),
    _m("gpt-5-mini", 0.25, 2.0, 0.025, 400_000, 128_000),
)
"""List prices (USD per million tokens) when this was written; override them under ``models:``."""


class OpenAIProvider(OfficialClientProvider):
    """OpenAI's API (``OPENAI_API_KEY``)."""

    type: ClassVar[str] = "openai"
    description: ClassVar[str] = "OpenAI chat completions (official openai client)"
    builtin_id: ClassVar[str | None] = "openai"
    default_base_url: ClassVar[str | None] = "https://api.openai.com/v1"
    default_env_var: ClassVar[str | None] = "OPENAI_API_KEY"
    known_models: ClassVar[tuple[ModelSpec, ...]] = OPENAI_MODELS
    max_tokens_key: ClassVar[str] = "max_completion_tokens"

    client_module: ClassVar[str] = "openai"
    client_class: ClassVar[str] = "OpenAI"
    client_extra: ClassVar[str] = "openai"

    def body(self, request: LlmRequest) -> dict[str, Any]:
        """The chat-completions request body for ``request``."""
        body: dict[str, Any] = {"model": request.model, "messages": to_openai_messages(request)}
        if request.tools:
            body["tools"] = [{"type": "function",
                              "function": {**t, "parameters": self.tool_parameters(t["parameters"])}}
                             for t in request.tools]
            body["tool_choice"] = "required" if request.require_tool else "auto"
        if request.temperature is not None:
            body["temperature"] = request.temperature
        body[self.max_tokens_key] = request.max_output_tokens
        return body

    def complete(self, request: LlmRequest) -> LlmResponse:
        import openai

        client = self._client()
        body = self.body(request)
        try:
            path = self.spec.chat_completions_path
            path = "/" + path.replace("{{model_id}}", request.model).lstrip("/") if path else "/chat/completions"
            # ``body`` is wire JSON already: posted as it is, it skips ``chat.completions.create``'s walk
            # of the SDK's type hints over every message and tool schema, which cost ~30 ms of CPU per
            # call on a web page's request (benchmarks/bench_agent_overhead.py). Same path, same headers.
            # The answer is read as its JSON object (``cast_to=object``): building the SDK's
            # ``ChatCompletion`` from it and dumping that back to JSON for ``raw`` cost ~3 ms per call.
            completion = client.post(path, cast_to=object, body=body)
        except openai.APIStatusError as exc:
            raise status_error(self.provider_id, exc.status_code, error_text(exc), exc.response) from None
        except openai.APITimeoutError:
            raise ProviderError(f"LLM provider '{self.provider_id}' timed out", retryable=True) from None
        except openai.APIConnectionError as exc:
            raise ProviderError(f"LLM provider '{self.provider_id}' unreachable at {self.base_url}: {exc}",
                                retryable=True) from None
        except openai.APIResponseValidationError as exc:
            raise ProviderError(f"LLM provider '{self.provider_id}' sent a malformed response: {exc}",
                                retryable=True) from None
        return from_openai(self.provider_id, completion)


class OpenAICompatibleProvider(OpenAIProvider):
    """Any server speaking OpenAI chat completions: Azure, vLLM, Ollama, LM Studio, gateways."""

    type: ClassVar[str] = "openai_compatible"
    description: ClassVar[str] = "OpenAI-compatible chat completions at a base_url (Azure, vLLM, Ollama, gateways)"
    builtin_id: ClassVar[str | None] = None
    default_base_url: ClassVar[str | None] = None
    default_env_var: ClassVar[str | None] = None
    known_models: ClassVar[tuple[ModelSpec, ...]] = ()
    requires_base_url: ClassVar[bool] = True
    max_tokens_key: ClassVar[str] = "max_tokens"


# -- wire format ----------------------------------------------------------------------------------
def to_openai_messages(request: LlmRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": request.system}]
    for m in request.messages:
        if m.role == "assistant":
            msg: dict[str, Any] = {"role": "assistant", "content": m.content or None}
            if m.tool_calls:
                msg["tool_calls"] = [{"id": c.id, "type": "function", "function": {
                    "name": c.name, "arguments": c.raw_arguments if c.arguments is None else json.dumps(c.arguments)}}
                    for c in m.tool_calls]
            out.append(msg)
        elif m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
        elif m.images:
            parts: list[dict[str, Any]] = [{"type": "text", "text": m.content}]
            for image in m.images:
                url = f"data:{image.media_type};base64,{base64.b64encode(image.data).decode('ascii')}"
                parts.append({"type": "image_url", "image_url": {"url": url}})
            out.append({"role": m.role, "content": parts})
        else:
            out.append({"role": m.role, "content": m.content})
    return out


def from_openai(provider_id: str, completion: Any) -> LlmResponse:
    """The neutral response for a chat completion: its JSON object as sent (what ``complete`` reads), or
    the SDK's ``ChatCompletion``. Anything else is a malformed answer (retryable)."""
    raw = completion.model_dump(mode="json") if hasattr(completion, "model_dump") else completion
    if not isinstance(raw, dict):
        raise ProviderError(f"LLM provider '{provider_id}' sent a malformed response: {str(raw)[:300]}",
                            retryable=True)
    choices = raw.get("choices")
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise ProviderError(f"LLM provider '{provider_id}' answered without choices: {json.dumps(raw)[:300]}",
                            retryable=True)
    choice = choices[0]
    message = choice.get("message")
    message = message if isinstance(message, dict) else {}
    calls: list[LlmToolCall] = []
    for i, tc in enumerate(message.get("tool_calls") or []):
        function = tc.get("function") if isinstance(tc, dict) else None
        if not isinstance(function, dict):
            continue
        calls.append(_parse_call(tc.get("id") or f"call_{i}", str(function.get("name") or ""),
                                 function.get("arguments")))
    usage = LlmUsage()
    counts = raw.get("usage")
    if isinstance(counts, dict):
        details = counts.get("prompt_tokens_details")
        cached = (details.get("cached_tokens") or 0) if isinstance(details, dict) else 0
        usage = LlmUsage(counts.get("prompt_tokens") or 0, counts.get("completion_tokens") or 0, cached)
    content = message.get("content")
    return LlmResponse(content if isinstance(content, str) else "", calls, usage, choice.get("finish_reason"), raw)


def _parse_call(call_id: str, name: str, arguments: Any) -> LlmToolCall:
    if isinstance(arguments, dict):
        return LlmToolCall(call_id, name, arguments, json.dumps(arguments))
    text = arguments if isinstance(arguments, str) else ""
    if not text.strip():
        return LlmToolCall(call_id, name, {}, text)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return LlmToolCall(call_id, name, None, text, f"arguments are not valid JSON: {exc.msg} at position {exc.pos}")
    if not isinstance(value, dict):
        return LlmToolCall(call_id, name, None, text, f"arguments must be a JSON object, got {type(value).__name__}")
    return LlmToolCall(call_id, name, value, text)


def error_text(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str):
            return err
    return str(getattr(exc, "message", None) or exc)


def status_error(provider_id: str, status: int, message: str, response: Any) -> ProviderError:
    retry_after: float | None = None
    headers = getattr(response, "headers", None)
    if headers is not None:
        value = headers.get("retry-after")
        try:
            retry_after = float(value) if value is not None else None
        except ValueError:
            retry_after = None
    retryable = status in (408, 409, 429) or status >= 500
    return ProviderError(f"LLM provider '{provider_id}' returned HTTP {status}: {message}", retryable=retryable,
                         status=status, retry_after=retry_after)

