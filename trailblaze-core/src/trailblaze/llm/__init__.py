"""LLM providers: configuration, the provider registry and the built-in provider types.

Nothing here imports a client library at import time; ``openai`` and ``anthropic`` are imported by
their provider classes on the first request. See ``docs/agent.md``.
"""

from __future__ import annotations

from .config import ResolvedModel, load_settings, resolve_model
from .registry import LlmProvider, LlmProviderRegistry, ProviderError
from .specs import CostSpec, LlmSection, ModelSpec, ProviderSpec
from .types import LlmImage, LlmMessage, LlmRequest, LlmResponse, LlmToolCall, LlmUsage

__all__ = ["CostSpec", "LlmImage", "LlmMessage", "LlmProvider", "LlmProviderRegistry", "LlmRequest", "LlmResponse",
           "LlmSection", "LlmToolCall", "LlmUsage", "ModelSpec", "ProviderError", "ProviderSpec", "ResolvedModel",
           "load_settings", "resolve_model"]
