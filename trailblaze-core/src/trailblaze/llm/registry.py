"""LLM provider types and the registry plugins add them to.

A *provider type* (``openai``, ``openai_compatible``, ``anthropic``, or a plugin's own) is a class that
turns an ``LlmRequest`` into an HTTP call and the answer back into an ``LlmResponse``. A *provider* is a
configured instance of a type (``llm.providers.<id>`` in ``trailblaze.yaml``). Provider classes import
their client library inside ``complete``/``_client`` only, so a run that never calls a model never
imports ``openai`` or ``anthropic``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ..contract.sources import Contributions, ToolSource
from ..errors import BadInputError, InfrastructureError

if TYPE_CHECKING:
    from .specs import ModelSpec, ProviderSpec
    from .types import LlmRequest, LlmResponse


class ProviderError(InfrastructureError):
    """A provider call failed. ``retryable`` errors (rate limits, timeouts, 5xx, garbled answers) are
    retried with backoff by the agent; the others end the session at once (exit 2)."""

    def __init__(self, message: str, *, retryable: bool, status: int | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


class LlmProvider(ABC):
    """Base class of provider types. Subclass it, set ``type`` and implement ``complete``.

    ``builtin_id``: when set, a provider with this id exists without any configuration (``openai``,
    ``anthropic``), so ``--llm openai/gpt-4.1`` works with only an API key in the environment.
    """

    type: ClassVar[str]
    description: ClassVar[str] = ""
    builtin_id: ClassVar[str | None] = None
    default_base_url: ClassVar[str | None] = None
    default_env_var: ClassVar[str | None] = None
    known_models: ClassVar[tuple["ModelSpec", ...]] = ()
    """Models whose specs (context length, vision, pricing) configuration entries inherit."""
    requires_base_url: ClassVar[bool] = False

    def __init__(self, provider_id: str, spec: "ProviderSpec", api_key: str | None) -> None:
        self.provider_id = provider_id
        self.spec = spec
        self.api_key = api_key

    @property
    def base_url(self) -> str | None:
        return self.spec.base_url or self.default_base_url

    def tool_parameters(self, schema: dict[str, Any]) -> dict[str, Any]:
        """A tool's parameter schema as this provider is sent it (``schema_unions``, see ``describe_unions``)."""
        return describe_unions(schema) if self.spec.schema_unions == "describe" else schema

    @abstractmethod
    def complete(self, request: "LlmRequest") -> "LlmResponse":
        """Send one request. Raise ``ProviderError`` (retryable or not) on failure; never retry here."""

    def close(self) -> None:
        """Release the HTTP client. Default: nothing."""


def describe_unions(schema: Any) -> Any:
    """``schema`` with every ``anyOf`` replaced by an untyped schema whose description names the accepted
    types (``one of: integer, string``): the fallback for a provider that rejects ``anyOf``. The model is
    still told the truth, and the tool's own validation decides what fits."""
    if isinstance(schema, list):
        return [describe_unions(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: describe_unions(v) for k, v in schema.items() if k != "anyOf"}
    variants = schema.get("anyOf")
    if isinstance(variants, list):
        kinds = ", ".join(dict.fromkeys(str(v.get("type", "any")) for v in variants if isinstance(v, dict)))
        described = str(out.get("description") or "").rstrip()
        out["description"] = f"{described} (one of: {kinds})".lstrip() if described else f"One of: {kinds}."
    return out


DEFAULT_TIMEOUT_SECONDS = 120.0


class OfficialClientProvider(LlmProvider):
    """A provider backed by a vendor's official client (``openai.OpenAI``, ``anthropic.Anthropic``).

    The client is imported and built on first use, so replay-only runs never import it; subclasses name
    the module, the class and the extra that installs it.
    """

    client_module: ClassVar[str]
    client_class: ClassVar[str]
    client_extra: ClassVar[str]
    _client_obj: Any = None

    def _client(self) -> Any:
        if self._client_obj is None:
            import importlib

            try:
                module = importlib.import_module(self.client_module)
            except ImportError:
                raise BadInputError(f"LLM provider '{self.provider_id}' ({self.type}) needs the {self.client_module} "
                                    "client", hint=f"pip install 'trailblaze[{self.client_extra}]'") from None
            timeout = self.spec.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
            options: dict[str, Any] = {}
            http_client = _http_client(module, timeout)
            if http_client is not None:
                options["http_client"] = http_client
            self._client_obj = getattr(module, self.client_class)(
                api_key=self.api_key or "not-needed", base_url=self.base_url, max_retries=0, timeout=timeout,
                default_headers=dict(self.spec.headers) or None, **options)
        return self._client_obj

    def close(self) -> None:
        if self._client_obj is not None:
            self._client_obj.close()
            self._client_obj = None


def _http_client(module: Any, timeout: float) -> Any:
    """The HTTP client the SDK would build for itself (its ``DefaultHttpxClient``, with the SDK's own
    defaults), on the process's shared TLS context (``llm/tls.py``); None (the SDK builds its own) for a
    client library without that factory or where the context is not shared. The provider's ``close``
    closes it with the SDK client, as before."""
    from .tls import shared_ssl_context

    factory: Any = getattr(module, "DefaultHttpxClient", None)
    if factory is None:
        return None
    context = shared_ssl_context()
    return None if context is None else factory(timeout=timeout, verify=context)


class LlmProviderRegistry(Contributions):
    """Provider types by ``type`` name, filled by ``trailblaze_register_llm_providers``; the plugin adding
    each is recorded through ``contributing`` (``Contributions``)."""

    def __init__(self) -> None:
        self._types: dict[str, type[LlmProvider]] = {}
        self.sources: dict[str, ToolSource] = {}

    def add_provider(self, cls: type[LlmProvider]) -> None:
        if not getattr(cls, "type", None):
            raise TypeError(f"{cls.__qualname__} has no 'type' class attribute")
        if cls.type in self._types and self._types[cls.type] is not cls:
            raise BadInputError(f"LLM provider type '{cls.type}' is registered twice: by "
                                f"{self.sources[cls.type]} and by {self.current_source or ToolSource()}")
        self._types[cls.type] = cls
        self.sources[cls.type] = self.current_source or ToolSource()

    def get(self, type_name: str) -> type[LlmProvider] | None:
        return self._types.get(type_name)

    def types(self) -> list[str]:
        return sorted(self._types)

    def builtin_ids(self) -> dict[str, type[LlmProvider]]:
        return {cls.builtin_id: cls for cls in self._types.values() if cls.builtin_id}


PROVIDERS_KEY = "trailblaze.llm_providers"
"""``session.resources`` key of the provider types a session's model calls may use: the registry, or a
function that builds it on first use. Whoever opens the session puts it there (the runner's
``SessionFactory``, ``trailblaze.testing.make_session``), so a tool asking the model mid-session finds it
without the session knowing the plugin host."""


def providers_of(resources: Mapping[str, Any]) -> LlmProviderRegistry | None:
    """The provider types kept under ``PROVIDERS_KEY`` (built now when a function was kept)."""
    found = resources.get(PROVIDERS_KEY)
    if callable(found) and not isinstance(found, LlmProviderRegistry):
        found = found()
    return found if isinstance(found, LlmProviderRegistry) else None
