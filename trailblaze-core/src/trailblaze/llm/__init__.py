"""LLM providers: configuration, the provider registry and the built-in provider types.

Nothing here imports a client library at import time; ``openai`` and ``anthropic`` are imported by
their provider classes on the first request. See ``docs/agent.md``.
"""

from __future__ import annotations

from .config import (CostSpec, LlmSection, ModelSpec, ProviderSpec, ResolvedModel, load_settings,
                     resolve_model)
from .registry import LlmProvider, LlmProviderRegistry, ProviderError, provider_registry
from .types import LlmImage, LlmMessage, LlmRequest, LlmResponse, LlmToolCall, LlmUsage

__all__ = ["CostSpec", "LlmImage", "LlmMessage", "LlmProvider", "LlmProviderRegistry", "LlmRequest", "LlmResponse",
           "LlmSection", "LlmToolCall", "LlmUsage", "ModelSpec", "ProviderError", "ProviderSpec", "ResolvedModel",
           "load_settings", "provider_registry", "resolve_model"]
