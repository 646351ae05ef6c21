"""The models of the ``llm:`` section and of provider files: what a provider and a model may declare.

Data only, below both the provider registry (provider types list their known models) and the loader
that layers the sections (``llm.config``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class CostSpec(_Strict):
    """USD per million tokens."""

    input_per_million: float = 0.0
    output_per_million: float = 0.0
    cached_input_per_million: float | None = None
    cache_write_per_million: float | None = None
    """Price of input tokens written to the prompt cache (Anthropic: 1.25 x input); unset = the input price."""

    def cost(self, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0,
             cache_write_tokens: int = 0) -> float:
        cached_rate = self.cached_input_per_million if self.cached_input_per_million is not None \
            else self.input_per_million
        write_rate = self.cache_write_per_million if self.cache_write_per_million is not None \
            else self.input_per_million
        fresh = max(0, input_tokens - cached_input_tokens - cache_write_tokens)
        return (fresh * self.input_per_million + cached_input_tokens * cached_rate + cache_write_tokens * write_rate
                + output_tokens * self.output_per_million) / 1_000_000


class ScreenshotSpec(_Strict):
    max_dimensions: str | None = Field(default=None, pattern=r"^\d+x\d+$",
                                       description="WIDTHxHEIGHT, e.g. 1536x768")


class ModelSpec(_Strict):
    id: str
    tier: Literal["inner", "outer", "both"] | None = None
    vision: bool | None = None
    temperature: float | None = None
    context_length: int | None = Field(default=None, gt=0)
    max_output_tokens: int | None = Field(default=None, gt=0)
    cost: CostSpec | None = None
    screenshot: ScreenshotSpec | None = None


class AuthSpec(_Strict):
    env_var: str | None = None
    required: bool = True


class ProviderSpec(_Strict):
    """One provider (``llm.providers.<id>``, or an entry of the top-level ``providers:`` list)."""

    provider_id: str | None = None
    name: str | None = None
    type: str | None = None
    enabled: bool = True
    description: str | None = None
    base_url: str | None = None
    chat_completions_path: str | None = None
    """For ``openai_compatible``: the path after ``base_url`` (``{{model_id}}`` is replaced)."""
    headers: dict[str, str] = Field(default_factory=dict)
    schema_unions: Literal["anyOf", "describe"] = "anyOf"
    """How a union parameter (``int | str``) is sent in tool schemas: JSON Schema ``anyOf`` (OpenAI and
    Anthropic take it), or ``describe`` for an endpoint that rejects ``anyOf`` (some ``openai_compatible``
    servers): the parameter is sent untyped, its description naming the accepted types."""
    auth: AuthSpec | None = None
    default_model: str | None = None
    models: list[ModelSpec] = Field(default_factory=list)
    timeout_seconds: float | None = Field(default=None, gt=0)
    max_retries: int | None = Field(default=None, ge=0, le=20)
    """How often a failed call (rate limit, timeout, 5xx) is retried before the run fails (default 4)."""
    retry_backoff_seconds: float | None = Field(default=None, ge=0)
    """First backoff; doubles per retry (default 1 s, capped at 30 s)."""


class LlmDefaultsSpec(_Strict):
    model: str | None = None
    screenshot: ScreenshotSpec | None = None
    max_llm_calls: int | None = Field(default=None, alias="max-llm-calls", gt=0)


class LlmSection(_Strict):
    """The ``llm:`` section of ``trailblaze.yaml`` (workspace or ``~/.trailblaze``)."""

    providers: dict[str, ProviderSpec] = Field(default_factory=dict)
    defaults: LlmDefaultsSpec = Field(default_factory=lambda: LlmDefaultsSpec())


__all__ = ["AuthSpec", "CostSpec", "LlmDefaultsSpec", "LlmSection", "ModelSpec", "ProviderSpec",
           "ScreenshotSpec"]
