"""The workspace: ``trails/config/trailblaze.yaml`` and the directory it anchors.

Found via ``TRAILBLAZE_CONFIG_DIR``, else by walking up from the trail being run (then from the current
directory) to a ``trails/config/trailblaze.yaml``. Every section is optional. The core validates its own
sections (``defaults``, ``drivers``); plugins claim theirs with ``trailblaze_config_sections``; a key
nobody claims is an error naming file, line and key.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from .contract.argument_messages import format_validation_error
from .errors import ConfigError, SourceLocation


CONFIG_RELATIVE = Path("trails") / "config" / "trailblaze.yaml"


class Defaults(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    target: str | None = None
    llm: str | None = None
    max_llm_calls: int | None = Field(default=None, alias="max-llm-calls")
    driver: str | None = None
    setup: list[str] = Field(default_factory=list)
    """Trails replayed before ``snapshot``, ``session start`` and ``record`` look or act (a sign-in, say),
    relative to the workspace root; ``--setup`` replaces them."""

    @field_validator("setup", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value


class Quarantine(BaseModel):
    """``quarantine:``: trails that still run and are reported but never fail the build (a known
    flaky trail while someone fixes it). ``trailblaze results --flaky`` lists candidates."""

    model_config = ConfigDict(extra="forbid")

    trails: list[str] = Field(default_factory=list)
    """Trail ids (``config: id:``) or trail file paths relative to the workspace root."""
    tags: list[str] = Field(default_factory=lambda: ["quarantine"])
    """A trail with one of these tags is quarantined too."""

    def covers(self, *, root: Path, path: Path, trail_id: str | None, tags: list[str]) -> bool:
        if set(tags) & set(self.tags):
            return True
        if trail_id is not None and trail_id in self.trails:
            return True
        resolved = path.resolve()
        return any((root / entry).resolve() == resolved for entry in self.trails)


Endpoint = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, pattern=r"^\S+$")]
EndpointPool = Annotated[list[Endpoint], Field(min_length=1)]


class EndpointPools(RootModel[dict[str, EndpointPool]]):
    """``endpoints:``: the device endpoints the workers of a run share out, one each (Playwright server
    ``ws://`` URLs, Appium server or hub URLs): one list for whichever driver a trail uses, or a list
    per driver (by key, alias or platform: ``web``, ``android``, ``ios``). ``--endpoint`` replaces it."""

    EVERY_DRIVER: ClassVar[str] = "*"
    """The key a plain list is kept under."""

    @model_validator(mode="before")
    @classmethod
    def _one_list_for_every_driver(cls, value: object) -> object:
        return {cls.EVERY_DRIVER: value} if isinstance(value, list) else value

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The map form, or the plain list the validator also takes (so editors accept both)."""
        by_driver = super().model_json_schema(*args, **kwargs)
        pool = by_driver["additionalProperties"]
        return {"title": by_driver["title"], "description": by_driver["description"],
                "anyOf": [pool, {"type": "object", "additionalProperties": pool}]}

    def pools(self) -> dict[str | None, list[str]]:
        """Driver name → pool; the key None when one pool serves every driver."""
        return {None if name == self.EVERY_DRIVER else name: list(pool) for name, pool in self.root.items()}


CORE_SECTIONS: dict[str, type[BaseModel] | None] = {
    "defaults": Defaults,
    "quarantine": Quarantine,
    "endpoints": EndpointPools,
    "drivers": None,  # {driver-key: {...}}: validated by each driver's config model at start
}


@dataclass
class WorkspaceConfig:
    """A parsed workspace. ``root`` is the directory that contains ``trails/``."""

    root: Path
    file: Path | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    sections: dict[str, Any] = field(default_factory=dict)

    @property
    def config_dir(self) -> Path:
        return self.root / "trails" / "config"

    @property
    def defaults(self) -> Defaults:
        value = self.sections.get("defaults")
        return value if isinstance(value, Defaults) else Defaults()

    @property
    def quarantine(self) -> Quarantine:
        value = self.sections.get("quarantine")
        return value if isinstance(value, Quarantine) else Quarantine()

    @property
    def endpoints(self) -> EndpointPools | None:
        value = self.sections.get("endpoints")
        return value if isinstance(value, EndpointPools) else None

    def section(self, name: str) -> Any:
        """A validated section (plugin model instance), or the raw value, or None."""
        return self.sections.get(name, self.data.get(name))

    def driver_settings(self, driver_key: str) -> dict[str, Any]:
        drivers = self.data.get("drivers") or {}
        if not isinstance(drivers, Mapping):
            return {}
        raw = drivers.get(driver_key)
        return dict(raw) if isinstance(raw, Mapping) else {}

    def location(self, *path: str | int) -> SourceLocation:
        from .yamlio import locate  # imported here: as in load_workspace

        return locate(self.data, list(path), self.file)


def workspace_root(directory: Path) -> Path:
    """The workspace a ``--workspace`` directory names: the directory itself, or, given its config
    directory (``<root>/trails/config``, as upstream's ``check --workspace examples/wikipedia/trails/config``
    and ``TRAILBLAZE_CONFIG_DIR`` name it), the root above it."""
    if not (directory / CONFIG_RELATIVE).is_file() and (directory / CONFIG_RELATIVE.name).is_file() \
            and directory.resolve().parts[-2:] == CONFIG_RELATIVE.parent.parts:
        return directory.resolve().parent.parent
    return directory


def find_workspace(start: Path | None = None) -> Path | None:
    """The workspace root (directory holding ``trails/config/trailblaze.yaml``), or None."""
    env = os.environ.get("TRAILBLAZE_CONFIG_DIR")
    if env:
        cfg = Path(env)
        candidate = cfg / "trailblaze.yaml"
        if candidate.is_file() or cfg.is_dir():
            return cfg.resolve().parent.parent if cfg.name == "config" else cfg.resolve()
    here = (start or Path.cwd()).resolve()
    if here.is_file():
        here = here.parent
    for directory in (here, *here.parents):
        if (directory / CONFIG_RELATIVE).is_file():
            return directory
    return None


def validate_config(model: type[BaseModel], raw: Mapping[str, Any] | None, *, owner: str,
                    location: SourceLocation | None = None,
                    locate: Callable[[Sequence[str | int]], SourceLocation] | None = None) -> Any:
    """Validate a plugin's or driver's configuration before anything starts; errors name the key, and
    with ``locate`` (an error's key path → where it is) the line of the first bad value."""
    try:
        # A list where a map was expected is the model's to refuse (one message), not dict()'s to crash on.
        return model.model_validate(dict(raw or {}) if raw is None or isinstance(raw, Mapping) else raw)
    except ValidationError as exc:
        if locate is not None:
            location = locate(exc.errors()[0]["loc"])
        raise ConfigError(format_validation_error(exc, owner=owner).replace("argument", "setting"),
                          location=location) from None


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class SectionOwners(Protocol):
    """Who claims which ``trailblaze.yaml`` section: the plugin host (``trailblaze_config_sections``)."""

    def config_sections(self) -> Mapping[str, tuple[type[Any], _Named]]: ...


def current_workspace_config(host: SectionOwners | None = None) -> WorkspaceConfig | None:
    """The workspace of the current directory (an empty one outside any), or None when its config does
    not load: what an output writer reads its section from (``OutputRequest.config``), where a broken
    config has already failed the trails that needed it."""
    from .errors import TrailblazeError

    try:
        return load_workspace(find_workspace(), host)
    except TrailblazeError:
        return None


def load_workspace(root: Path | None, host: SectionOwners | None = None, *,
                   only: str | None = None) -> WorkspaceConfig:
    """Parse and validate the workspace config; ``root=None`` gives an empty workspace at cwd.

    ``host`` (the plugin host) says which sections plugins claim; without it only the core's are known.
    ``only``: validate just that core section and leave the others unread (a check made before the
    plugins are loaded, such as ``-n``'s endpoint pool)."""
    if root is None:
        return WorkspaceConfig(root=Path.cwd())
    root = workspace_root(root)
    file = root / CONFIG_RELATIVE
    if not file.is_file():
        return WorkspaceConfig(root=root)
    # imported here: a command that reads no config file (merge-reports outside a workspace) must not pay
    # for ruamel.yaml (~0.1 s)
    from .yamlio import load_roundtrip, plain, read_text

    text = read_text(file)
    data = load_roundtrip(text, file)
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError("the workspace config must be a map of sections", location=SourceLocation(file, 1, 1))
    ws = WorkspaceConfig(root=root, file=file, data=data)
    claimed: dict[str, tuple[type[Any] | None, str]] = {k: (m, "trailblaze") for k, m in CORE_SECTIONS.items()}
    plugin_model: type[Any] | None
    if host is not None:
        for key, (plugin_model, info) in host.config_sections().items():
            claimed[key] = (plugin_model, info.name)
    for key, value in data.items():
        if only is not None and key != only:
            continue
        if key not in claimed:
            known = ", ".join(sorted(claimed))
            raise ConfigError(f"unknown section '{key}'", location=ws.location(key),
                              hint=f"known sections: {known}; a plugin may be missing")
        model, owner = claimed[key]
        if model is not None and isinstance(model, type) and issubclass(model, BaseModel):
            ws.sections[key] = validate_config(model, plain(value), owner=f"section '{key}'",
                                               locate=_locate_in(ws, key))
    return ws


def _locate_in(ws: WorkspaceConfig, section: str) -> Callable[[Sequence[str | int]], SourceLocation]:
    """Where a validation error's key path is inside ``section`` (the key a plain endpoint list is kept
    under is not in the file)."""
    def locate(loc: Sequence[str | int]) -> SourceLocation:
        return ws.location(section, *[p for p in loc if p != EndpointPools.EVERY_DRIVER])

    return locate


__all__ = [
    "Defaults", "EndpointPools", "Quarantine", "WorkspaceConfig", "find_workspace", "load_workspace",
    "validate_config",
]
