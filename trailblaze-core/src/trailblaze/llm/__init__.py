"""LLM providers: configuration, the provider registry and the built-in provider types.

Nothing here imports a client library at import time; ``openai`` and ``anthropic`` are imported by
their provider classes on the first request. See ``docs/agent.md``.

The names below resolve lazily (``_LAZY``: the module each comes from): the host loads the core plugins
``trailblaze.llm.llm_config`` and the provider modules, which run this ``__init__`` first, and a command
that never resolves a model (``merge-reports``, ``--help``) must not pay for ``config``. The same names
are imported under ``TYPE_CHECKING``, so type checkers see every export.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import ResolvedModel, load_settings, resolve_model
    from .registry import LlmProvider, LlmProviderRegistry, ProviderError
    from .specs import CostSpec, LlmSection, ModelSpec, ProviderSpec
    from .types import LlmImage, LlmMessage, LlmRequest, LlmResponse, LlmToolCall, LlmUsage

__all__ = ["CostSpec", "LlmImage", "LlmMessage", "LlmProvider", "LlmProviderRegistry", "LlmRequest", "LlmResponse",
           "LlmSection", "LlmToolCall", "LlmUsage", "ModelSpec", "ProviderError", "ProviderSpec", "ResolvedModel",
           "load_settings", "resolve_model"]

_LAZY = {
    **dict.fromkeys(("ResolvedModel", "load_settings", "resolve_model"), ".config"),
    **dict.fromkeys(("LlmProvider", "LlmProviderRegistry", "ProviderError"), ".registry"),
    **dict.fromkeys(("CostSpec", "LlmSection", "ModelSpec", "ProviderSpec"), ".specs"),
    **dict.fromkeys(("LlmImage", "LlmMessage", "LlmRequest", "LlmResponse", "LlmToolCall", "LlmUsage"), ".types"),
}


if not TYPE_CHECKING:  # hidden from type checkers, so a name outside __all__ is an error there, not Any
    from .._lazy import lazy_attributes

    __getattr__ = lazy_attributes(__name__, _LAZY)
