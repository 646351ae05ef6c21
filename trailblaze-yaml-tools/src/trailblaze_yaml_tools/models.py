"""Typed models of trailmap manifests, targets, platforms and toolsets (upstream §3.1–§3.3).

Pydantic at the boundary: every file is validated into one of these before anything uses it, and a
validation error becomes a ``Problem`` at the offending key so the message names file:line:column.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .problems import Problem

TRAILMAP_ID = re.compile(r"^[a-z][a-zA-Z0-9]*$")
"""Seed 003: single lowerCamelCase token, so the first ``_`` of a tool name is the trailmap boundary."""
TARGET_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
FRAMEWORK_TRAILMAP = "trailblaze"
REMOVED_MANIFEST_KEYS = {"use": "removed", "extend": "removed", "replace": "removed",
                         "routes": "removed (waypoints are discovered from waypoints/)"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PlatformConfig(_Strict):
    """One platform of a target (``android``, ``ios``, ``web``, ``host``...)."""

    app_ids: list[str] | None = None
    tool_sets: list[str] | None = None
    tools: list[str] | None = None
    excluded_tools: list[str] | None = None
    drivers: list[str] | None = None
    base_url: str | None = None
    min_build_version: str | int | None = None
    icon: str | None = None


class TargetConfig(_Strict):
    """The app under test that a target trailmap describes (or a flat ``targets/<id>.yaml``)."""

    id: str | None = None
    display_name: str
    platforms: dict[str, PlatformConfig | None] = Field(default_factory=dict)
    tools: list[str] | None = None
    system_prompt_file: str | None = None
    electron: dict[str, Any] | None = None
    icon: str | None = None
    has_custom_ios_driver: bool = False

    @field_validator("id")
    @classmethod
    def _target_id(cls, value: str | None) -> str | None:
        if value is not None and not TARGET_ID.match(value):
            raise ValueError(f"target id '{value}' must match {TARGET_ID.pattern}")
        return value

    def platform(self, name: str) -> PlatformConfig:
        return self.platforms.get(name) or PlatformConfig()


class TrailValidation(_Strict):
    exempt: str | None = None


class TrailmapManifest(_Strict):
    """``trailmap.yaml``: a trailmap's id, its target (if any), dependencies, exports, toolsets."""

    id: str
    target: TargetConfig | None = None
    dependencies: list[str] = Field(default_factory=list)
    defaults: dict[str, PlatformConfig | None] = Field(default_factory=dict)
    platforms: dict[str, PlatformConfig | None] | None = None
    exports: list[str] | None = None
    toolsets: list[str] = Field(default_factory=list)
    waypoints: Any = None
    trails: Any = None
    trail_validation: TrailValidation | None = None
    mcp_servers: list[dict[str, Any]] | None = None

    @property
    def is_library(self) -> bool:
        return self.target is None


class ToolSetConfig(_Strict):
    """A named group of tools, optionally limited to drivers/platforms, optionally always enabled."""

    id: str
    description: str = ""
    platforms: list[str] | None = None
    drivers: list[str] | None = None
    always_enabled: bool = False
    tools: list[str] = Field(default_factory=list)


M = TypeVar("M", bound=BaseModel)


def parse_model(model: type[M], data: Any, *, what: str) -> M:
    """Validate ``data``; the first error becomes a ``Problem`` at its key path."""
    if not isinstance(data, dict):
        raise Problem(f"{what} must be a map, got {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err.get("loc", ()))
        kind = err.get("type", "")
        if kind == "missing":
            raise Problem(f"{what}: '{loc[-1]}' is required", loc[:-1]) from None
        if kind == "extra_forbidden":
            fields = sorted(_fields_at(model, loc[:-1]))
            from .problems import suggest

            raise Problem(f"{what}: unknown key '{loc[-1]}' (known: {', '.join(fields)})", loc,
                          hint=suggest(str(loc[-1]), fields)) from None
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        raise Problem(f"{what}: '{'.'.join(str(x) for x in loc)}': {msg}, got {err.get('input')!r}", loc) from None


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The field names of the (nested) model at ``loc``, for 'known keys' hints."""
    current: type[BaseModel] | None = model
    for part in loc:
        if current is None or isinstance(part, int) or part not in current.model_fields:
            continue  # a list index or a dict key (platform name): same model below
        current = _model_in(current.model_fields[part].annotation)
    return list(current.model_fields) if current is not None else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The first pydantic model inside ``X | None``, ``dict[str, X]``, ``list[X]``..."""
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None
