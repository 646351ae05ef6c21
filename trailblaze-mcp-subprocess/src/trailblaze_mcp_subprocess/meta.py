"""``Tool._meta`` ``trailblaze/*`` keys and the optional ``trailblaze://registry`` resource.

Upstream (``TrailblazeToolMeta``) reads seven keys, treats a value of the wrong shape as absent, ignores
keys outside the ``trailblaze/`` namespace, and filters at registration in a fixed order:
``supportedDrivers`` → ``supportedPlatforms`` → ``requiresHost``. The registry resource (Decision 029)
is the older way to say the same things; ``_meta`` wins where both speak.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

PREFIX = "trailblaze/"


@dataclass(frozen=True)
class ToolMeta:
    """The ``trailblaze/*`` keys of one tool. ``None`` means "not said" (defaults apply)."""

    surface_to_llm: bool | None = None
    is_recordable: bool | None = None
    requires_host: bool | None = None
    supported_drivers: tuple[str, ...] = ()
    supported_platforms: tuple[str, ...] = ()
    """Upper-cased (``ANDROID``, ``IOS``, ``WEB``)."""
    toolset: str | None = None
    requires_context: bool | None = None
    is_delegating: bool | None = None
    groups: tuple[str, ...] = ()

    @property
    def surface(self) -> bool:
        return True if self.surface_to_llm is None else self.surface_to_llm

    @property
    def recordable(self) -> bool:
        return True if self.is_recordable is None else self.is_recordable

    @property
    def host_only(self) -> bool:
        return bool(self.requires_host)


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _strings(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return tuple(value)


def parse_tool_meta(meta: Mapping[str, Any] | None) -> ToolMeta:
    """Read the ``trailblaze/*`` keys; wrong-shaped values are treated as absent."""
    if not meta:
        return ToolMeta()
    drivers = _strings(meta.get(PREFIX + "supportedDrivers")) or ()
    platforms = _strings(meta.get(PREFIX + "supportedPlatforms")) or ()
    toolset = meta.get(PREFIX + "toolset")
    return ToolMeta(
        surface_to_llm=_bool(meta.get(PREFIX + "surfaceToLlm")),
        is_recordable=_bool(meta.get(PREFIX + "isRecordable")),
        requires_host=_bool(meta.get(PREFIX + "requiresHost")),
        supported_drivers=tuple(drivers),
        supported_platforms=tuple(p.upper() for p in platforms),
        toolset=toolset if isinstance(toolset, str) and toolset else None,
        requires_context=_bool(meta.get(PREFIX + "requiresContext")),
    )


def filter_reason(meta: ToolMeta, *, driver: str | None, platform: str | None, host_agent: bool = True) -> str | None:
    """Why a tool is skipped for this session, or None to register it. Upstream order:
    drivers, then platforms, then requiresHost. ``driver``/``platform`` None = do not filter on it."""
    if meta.supported_drivers and driver is not None and driver not in meta.supported_drivers:
        return f"trailblaze/supportedDrivers {list(meta.supported_drivers)} excludes driver '{driver}'"
    if meta.supported_platforms and platform is not None and platform.upper() not in meta.supported_platforms:
        return f"trailblaze/supportedPlatforms {list(meta.supported_platforms)} excludes platform '{platform.upper()}'"
    if meta.host_only and not host_agent:
        return "trailblaze/requiresHost is true and the agent runs on the device"
    return None


# -- trailblaze://registry (Decision 029) ----------------------------------------------------------
REGISTRY_URI = "trailblaze://registry"


@dataclass(frozen=True)
class GroupInfo:
    description: str = ""
    default_enabled: bool = False


@dataclass(frozen=True)
class ServerRegistry:
    """The parsed ``trailblaze://registry`` resource of one server."""

    tools: dict[str, ToolMeta] = field(default_factory=dict)
    groups: dict[str, GroupInfo] = field(default_factory=dict)
    server_name: str | None = None
    server_version: str | None = None


def parse_registry(data: Any) -> ServerRegistry:
    """Lenient: entries of the wrong shape are ignored, like wrong-shaped ``_meta`` values."""
    if not isinstance(data, Mapping):
        return ServerRegistry()
    tools: dict[str, ToolMeta] = {}
    raw_tools = data.get("tools")
    if isinstance(raw_tools, Mapping):
        for name, entry in raw_tools.items():
            if not isinstance(name, str) or not isinstance(entry, Mapping):
                continue
            platforms = _strings(entry.get("platforms")) or ()
            tools[name] = ToolMeta(
                surface_to_llm=_bool(entry.get("exposedToLlm")),
                is_recordable=_bool(entry.get("isRecordable")),
                is_delegating=_bool(entry.get("isDelegating")),
                supported_platforms=tuple(p.upper() for p in platforms),
                groups=_strings(entry.get("groups")) or (),
            )
    groups: dict[str, GroupInfo] = {}
    raw_groups = data.get("groups")
    if isinstance(raw_groups, Mapping):
        for name, entry in raw_groups.items():
            if isinstance(name, str) and isinstance(entry, Mapping):
                desc = entry.get("description")
                groups[name] = GroupInfo(desc if isinstance(desc, str) else "",
                                         _bool(entry.get("defaultEnabled")) or False)
    info = data.get("serverInfo")
    name = version = None
    if isinstance(info, Mapping):
        name = info.get("name") if isinstance(info.get("name"), str) else None
        version = info.get("version") if isinstance(info.get("version"), str) else None
    return ServerRegistry(tools, groups, name, version)


def merge(meta: ToolMeta, registry: ToolMeta | None) -> ToolMeta:
    """``_meta`` keys win; the registry resource fills what ``_meta`` leaves unsaid."""
    if registry is None:
        return meta
    return ToolMeta(
        surface_to_llm=meta.surface_to_llm if meta.surface_to_llm is not None else registry.surface_to_llm,
        is_recordable=meta.is_recordable if meta.is_recordable is not None else registry.is_recordable,
        requires_host=meta.requires_host,
        supported_drivers=meta.supported_drivers,
        supported_platforms=meta.supported_platforms or registry.supported_platforms,
        toolset=meta.toolset,
        requires_context=meta.requires_context,
        is_delegating=meta.is_delegating if meta.is_delegating is not None else registry.is_delegating,
        groups=meta.groups or registry.groups,
    )
