"""LLM configuration: the ``llm:`` and ``providers:`` sections, their layering, and model selection.

Layers, lowest first (upstream §3.4): built-in providers (``openai``, ``anthropic``: a provider type
with a ``builtin_id``) < ``~/.trailblaze/trailblaze.yaml`` ``llm:`` < the workspace's ``providers:``
files and ``llm:`` section < ``TRAILBLAZE_DEFAULT_MODEL`` < ``--llm``. A later layer overrides only
the keys it sets; model entries merge by ``id`` and inherit the specs of a provider type's known
model of that id (pricing, context length, vision). Nothing selects a model by default: a run that
needs one without any configured fails with a message that says how to configure one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..errors import BadInputError, ConfigError, SourceLocation
from .registry import LlmProvider, LlmProviderRegistry
from .specs import AuthSpec, LlmSection, ModelSpec, ProviderSpec, ScreenshotSpec

if TYPE_CHECKING:
    from ..config import WorkspaceConfig

DEFAULT_CONTEXT_LENGTH = 131_072
DEFAULT_MAX_OUTPUT_TOKENS = 8_192
DEFAULT_MAX_LLM_CALLS = 50
NO_MODEL = frozenset({"none", "off", ""})


@dataclass
class ResolvedModel:
    """The model a run uses, with everything merged."""

    provider_id: str
    provider_cls: type[LlmProvider]
    provider: ProviderSpec
    model: ModelSpec
    api_key: str | None
    source: str
    """Where the choice came from (``--llm``, ``TRAILBLAZE_DEFAULT_MODEL``, a file)."""

    @property
    def ref(self) -> str:
        return f"{self.provider_id}/{self.model.id}"

    @property
    def vision(self) -> bool:
        return bool(self.model.vision)

    @property
    def context_length(self) -> int:
        return self.model.context_length or DEFAULT_CONTEXT_LENGTH

    @property
    def max_output_tokens(self) -> int:
        return self.model.max_output_tokens or DEFAULT_MAX_OUTPUT_TOKENS

    def cost(self, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0,
             cache_write_tokens: int = 0) -> float | None:
        if self.model.cost is None:
            return None
        return self.model.cost.cost(input_tokens, output_tokens, cached_input_tokens, cache_write_tokens)

    def create_provider(self) -> LlmProvider:
        return self.provider_cls(self.provider_id, self.provider, self.api_key)


# -- reading the layers ---------------------------------------------------------------------------
def user_config_file() -> Path:
    """``~/.trailblaze/trailblaze.yaml`` (``TRAILBLAZE_HOME`` moves ``~/.trailblaze``)."""
    home = os.environ.get("TRAILBLAZE_HOME")
    base = Path(home) if home else Path.home() / ".trailblaze"
    return base / "trailblaze.yaml"


def _load_yaml(path: Path) -> tuple[Any, Any]:
    from ..yamlio import load_roundtrip, read_text

    data = load_roundtrip(read_text(path), path)
    return data, data


def _validate(model: type[BaseModel], raw: Any, *, owner: str, location: SourceLocation | None) -> Any:
    from ..config import validate_config
    from ..yamlio import plain

    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{owner} must be a map", location=location)
    return validate_config(model, plain(raw, str_keys=True), owner=owner, location=location)


def user_llm_section() -> tuple[LlmSection | None, Path]:
    path = user_config_file()
    if not path.is_file():
        return None, path
    from ..yamlio import locate

    data, _ = _load_yaml(path)
    if not isinstance(data, Mapping) or data.get("llm") is None:
        return None, path
    section: LlmSection = _validate(LlmSection, data["llm"], owner="section 'llm'", location=locate(data, ["llm"], path))
    return section, path


def workspace_llm_section(ws: "WorkspaceConfig") -> LlmSection | None:
    value = ws.section("llm")
    if isinstance(value, LlmSection):
        return value
    if value is None:
        return None
    section: LlmSection = _validate(LlmSection, value, owner="section 'llm'",
                                    location=ws.location("llm") if ws.file else None)
    return section


def workspace_provider_files(ws: "WorkspaceConfig") -> list[ProviderSpec]:
    """The top-level ``providers:`` list: ``{ref: providers/p.yaml}`` or inline providers with a
    ``provider_id``. ``ref`` paths are relative to the config directory (a leading ``/`` is stripped)."""
    raw = ws.data.get("providers")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ConfigError("'providers' must be a list of {ref: file} or inline providers",
                          location=ws.location("providers") if ws.file else None)
    out: list[ProviderSpec] = []
    for i, item in enumerate(raw):
        where = ws.location("providers", i) if ws.file else None
        if not isinstance(item, Mapping):
            raise ConfigError("a providers entry must be a map", location=where)
        if "ref" in item:
            if len(item) > 1:
                others = ", ".join(sorted(str(k) for k in item if k != "ref"))
                raise ConfigError(f"a 'ref' entry may not have other keys (found {others})", location=where)
            path = (ws.config_dir / str(item["ref"]).lstrip("/")).resolve()
            if not path.is_file():
                raise ConfigError(f"provider file '{item['ref']}' not found ({path})", location=where)
            from ..yamlio import locate

            data, _ = _load_yaml(path)
            spec = _validate(ProviderSpec, data, owner=f"provider file '{item['ref']}'",
                             location=locate(data, [], path) if isinstance(data, Mapping) else None)
            stem = path.name.removesuffix(".yaml").removesuffix(".yml")
            if spec.provider_id is None:
                spec = spec.model_copy(update={"provider_id": stem})
            elif spec.provider_id != stem:
                raise ConfigError(f"provider file name must equal its provider_id ('{spec.provider_id}')",
                                  location=locate(data, ["provider_id"], path))
        else:
            spec = _validate(ProviderSpec, item, owner="providers entry", location=where)
            if not spec.provider_id:
                raise ConfigError("an inline providers entry needs 'provider_id'", location=where)
        out.append(spec)
    return out


# -- merging --------------------------------------------------------------------------------------
def _merge_models(base: list[ModelSpec], over: list[ModelSpec]) -> list[ModelSpec]:
    by_id = {m.id: m for m in base}
    order = [m.id for m in base]
    for m in over:
        if m.id in by_id:
            by_id[m.id] = _merge_model(by_id[m.id], m)
        else:
            by_id[m.id] = m
            order.append(m.id)
    return [by_id[i] for i in order]


def _merge_model(base: ModelSpec, over: ModelSpec) -> ModelSpec:
    data = base.model_dump(exclude_unset=True)
    data.update(over.model_dump(exclude_unset=True))
    return ModelSpec.model_validate(data)


def _merge_provider(base: ProviderSpec | None, over: ProviderSpec) -> ProviderSpec:
    if base is None:
        return over
    data = base.model_dump(exclude_unset=True)
    update = over.model_dump(exclude_unset=True)
    models = _merge_models(base.models, over.models)
    headers = {**base.headers, **over.headers}
    data.update(update)
    data["models"] = [m.model_dump(exclude_unset=True) for m in models]
    data["headers"] = headers
    return ProviderSpec.model_validate(data)


@dataclass
class LlmSettings:
    """Every provider after layering, plus the default model choice and where it came from."""

    providers: dict[str, ProviderSpec]
    default_model: str | None
    default_source: str
    max_llm_calls: int | None
    screenshot: ScreenshotSpec | None


def load_settings(ws: "WorkspaceConfig", types: LlmProviderRegistry, *, include_user: bool = True) -> LlmSettings:
    providers: dict[str, ProviderSpec] = {}
    for builtin_id, cls in types.builtin_ids().items():
        providers[builtin_id] = ProviderSpec(type=cls.type)
    default_model: str | None = None
    source = ""
    max_calls: int | None = None
    screenshot: ScreenshotSpec | None = None
    layers: list[tuple[LlmSection | None, str]] = []
    if include_user:
        user, user_path = user_llm_section()
        layers.append((user, str(user_path)))
    for spec in workspace_provider_files(ws):
        assert spec.provider_id is not None
        providers[spec.provider_id] = _merge_provider(providers.get(spec.provider_id), spec)
    ws_file = str(ws.file) if ws.file else "the workspace config"
    layers.append((workspace_llm_section(ws), ws_file))
    for section, where in layers:
        if section is None:
            continue
        for pid, spec in section.providers.items():
            providers[pid] = _merge_provider(providers.get(pid), spec)
        if section.defaults.model is not None:
            default_model, source = section.defaults.model, f"llm.defaults.model in {where}"
        elif where == ws_file and ws.defaults.llm:
            default_model, source = ws.defaults.llm, f"defaults.llm in {where}"
        if section.defaults.max_llm_calls is not None:
            max_calls = section.defaults.max_llm_calls
        if section.defaults.screenshot is not None:
            screenshot = section.defaults.screenshot
    if layers[-1][0] is None and ws.defaults.llm:
        default_model, source = ws.defaults.llm, f"defaults.llm in {ws_file}"
    if ws.defaults.max_llm_calls is not None and (layers[-1][0] is None
                                                  or layers[-1][0].defaults.max_llm_calls is None):
        max_calls = ws.defaults.max_llm_calls
    return LlmSettings(providers, default_model, source, max_calls, screenshot)


# -- choosing a model -----------------------------------------------------------------------------
def chosen_model(settings: LlmSettings, cli_llm: str | None, env: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """The model reference in force and where it came from: ``--llm`` > ``TRAILBLAZE_DEFAULT_MODEL`` >
    files (workspace over user)."""
    env = os.environ if env is None else env
    if cli_llm is not None and cli_llm.strip():
        return cli_llm.strip(), "--llm"
    value = env.get("TRAILBLAZE_DEFAULT_MODEL")
    if value is not None and value.strip():
        return value.strip(), "TRAILBLAZE_DEFAULT_MODEL"
    return settings.default_model, settings.default_source


def resolve_model(ws: "WorkspaceConfig", types: LlmProviderRegistry, *, cli_llm: str | None = None,
                  env: Mapping[str, str] | None = None, include_user: bool = True) -> ResolvedModel | None:
    """The model to use, or None when none is configured (or it is set to ``none``)."""
    env = os.environ if env is None else env
    settings = load_settings(ws, types, include_user=include_user)
    ref, source = chosen_model(settings, cli_llm, env)
    if ref is None or ref.strip().lower() in NO_MODEL:
        return None
    provider_id, model_id = _split(ref, settings)
    spec = settings.providers[provider_id]
    if not spec.enabled:
        raise BadInputError(f"LLM provider '{provider_id}' is disabled (enabled: false), but {source} selects "
                            f"'{ref}'")
    type_name = spec.type or provider_id
    cls = types.get(type_name)
    if cls is None:
        raise BadInputError(f"LLM provider '{provider_id}' has type '{type_name}', which no installed plugin "
                            f"provides", hint=f"known types: {', '.join(types.types()) or 'none'}")
    if cls.requires_base_url and not spec.base_url:
        raise BadInputError(f"LLM provider '{provider_id}' ({type_name}) needs 'base_url'")
    model_id = model_id or spec.default_model
    if not model_id:
        raise BadInputError(f"'{ref}' names no model and provider '{provider_id}' has no default_model",
                            hint="write provider/model, e.g. openai/gpt-4.1")
    model = _model_spec(cls, spec, model_id)
    api_key = _api_key(provider_id, cls, spec, env)
    return ResolvedModel(provider_id, cls, spec, model, api_key, source)


def _split(ref: str, settings: LlmSettings) -> tuple[str, str | None]:
    if "/" in ref:
        head, tail = ref.split("/", 1)
        if head in settings.providers:
            return head, tail or None
    # A bare model id (or one whose prefix is no provider): find the one provider that lists it.
    owners = [pid for pid, spec in settings.providers.items() if any(m.id == ref for m in spec.models)]
    if len(owners) == 1:
        return owners[0], ref
    if ref in settings.providers:
        return ref, None
    known = ", ".join(sorted(settings.providers)) or "none"
    if len(owners) > 1:
        raise BadInputError(f"model '{ref}' is offered by several providers ({', '.join(owners)})",
                            hint="write provider/model")
    raise BadInputError(f"unknown LLM model '{ref}': write provider/model with a configured provider",
                        hint=f"providers: {known}; configure others under llm.providers in trails/config/trailblaze.yaml")


def _model_spec(cls: type[LlmProvider], spec: ProviderSpec, model_id: str) -> ModelSpec:
    base = next((m for m in cls.known_models if m.id == model_id), None)
    configured = next((m for m in spec.models if m.id == model_id), None)
    if base is None and configured is None:
        return ModelSpec(id=model_id)
    if base is None:
        assert configured is not None
        return configured
    if configured is None:
        return base
    return _merge_model(base, configured)


def _api_key(provider_id: str, cls: type[LlmProvider], spec: ProviderSpec, env: Mapping[str, str]) -> str | None:
    auth = spec.auth or AuthSpec()
    var = auth.env_var or cls.default_env_var
    if var is None:
        return None
    value = env.get(var)
    if value:
        return value
    if auth.required and (spec.auth is not None or cls.default_env_var is not None):
        raise BadInputError(f"LLM provider '{provider_id}' needs an API key in the environment variable {var}",
                            hint=f"export {var}=... or set llm.providers.{provider_id}.auth.required: false")
    return None
