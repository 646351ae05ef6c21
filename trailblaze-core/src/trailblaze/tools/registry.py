"""The per-session tool registry: one name, one definition, and who contributed it."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from ..errors import BadInputError, DuplicateToolError, PluginToolError
from .base import ClassToolDefinition, Contributions, Tool, ToolDefinition, ToolSource

WIRE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""What OpenAI/Anthropic/MCP accept as a tool name. Breaking it is an error."""

CONVENTION_NAME = re.compile(r"^[a-z][a-zA-Z0-9]*(_[a-z][a-zA-Z0-9]*)*$")
"""Upstream's naming convention (``verbNoun``, ``platform_verbNoun``, ``org_app_verbNoun``). A warning."""


class ToolNameWarning(UserWarning):
    """A tool name that works on the wire but breaks the upstream naming convention."""


_UNATTRIBUTED = ToolSource()


class ToolRegistry(Contributions):
    """All tools of one session, keyed by name.

    Registration goes through ``add``; inside ``contributing(source)`` (``Contributions``) every tool
    added without an explicit source is attributed to that source.
    """

    def __init__(self) -> None:
        self._tools: dict[str, ToolDefinition] = {}
        self.warnings: list[str] = []

    # -- registration -------------------------------------------------------------------------
    def add(self, definition: ToolDefinition) -> ToolDefinition:
        """Register a definition. A name already taken is an error naming both sources."""
        source = definition.source
        # ``plugin is None`` first: most definitions come attributed, and the dataclass ``==`` (six
        # fields compared) stood out in profiles of registering 10,000 cached YAML tools.
        if self._current_source is not None and source.plugin is None and source == _UNATTRIBUTED:
            definition = replace(definition, source=self._current_source)
        name = definition.name
        if not WIRE_NAME.match(name):
            message = (f"tool name '{name}' from {definition.source} is not a valid tool name: it must match "
                       f"{WIRE_NAME.pattern} (letters, digits, '_' and '-', at most 64 characters)")
            if not _from_plugin_code(definition.source):
                raise BadInputError(message)
            raise _plugins_fault(message, definition.source)
        if not CONVENTION_NAME.match(name):
            msg = (f"tool name '{name}' from {definition.source} does not follow the naming convention "
                   "verbNoun / platform_verbNoun (lowerCamelCase segments joined by '_')")
            self.warnings.append(msg)
        existing = self._tools.get(name)
        if existing is not None:
            if _from_plugin_code(existing.source) and _from_plugin_code(definition.source):
                # Two plugins' own code: no input of the user's is wrong, the installed set is. The core's
                # built-ins register first and are not to blame; else the later plugin is.
                blamed, other = ((existing.source, definition.source) if definition.source.distribution == _CORE
                                 and existing.source.distribution != _CORE else (definition.source, existing.source))
                raise _plugins_fault(f"tool '{name}' of {blamed} is taken: {other} registered it first", blamed)
            raise DuplicateToolError(
                f"tool '{name}' is registered twice: by {existing.source} and by {definition.source}",
                hint="rename one of them, or disable one plugin with TRAILBLAZE_DISABLE_PLUGINS")
        self._tools[name] = definition
        return definition

    def add_tool(self, tool_class: type[Tool], **overrides: Any) -> ToolDefinition:
        """Register a class-backed tool (a ``Tool`` subclass)."""
        definition = ClassToolDefinition.of(tool_class, self._current_source)
        if overrides:
            definition = replace(definition, **overrides)
        return self.add(definition)

    def add_tools(self, tool_classes: Iterable[type[Tool]]) -> None:
        for cls in tool_classes:
            self.add_tool(cls)

    def replace(self, definition: ToolDefinition) -> None:
        """Swap a definition in place (``reloadTools``, metadata-only YAML files)."""
        self._tools[definition.name] = definition

    def remove(self, name: str) -> ToolDefinition | None:
        return self._tools.pop(name, None)

    # -- lookup -------------------------------------------------------------------------------
    def get(self, name: str) -> ToolDefinition | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[ToolDefinition]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def for_device(self, *, driver: str | None, platform: str | None) -> list[ToolDefinition]:
        """Tools that can run on this driver/platform, in name order."""
        return [d for n, d in sorted(self._tools.items()) if d.supports(driver=driver, platform=platform)]

    def unbuildable(self) -> list[tuple[ToolDefinition, PluginToolError]]:
        """Every class tool whose model cannot be built, with the error naming tool, plugin and field.
        Class tools' models build on first use (``defer_build``); ``check`` and ``plugins`` build them
        all, so a broken tool is reported before a run reaches it. (The other kinds' parameters are
        JSON Schemas their plugins validated when they read them.)"""
        found: list[tuple[ToolDefinition, PluginToolError]] = []
        for definition in self._tools.values():
            if not isinstance(definition, ClassToolDefinition):
                continue
            try:
                definition.build()
            except PluginToolError as exc:
                found.append((definition, exc))
        return found

    def copy(self) -> "ToolRegistry":
        clone = ToolRegistry()
        clone._tools = dict(self._tools)
        clone.warnings = list(self.warnings)
        return clone


_CORE = "trailblaze"
"""The core's distribution: its built-in plugins' tools are never the ones to blame for a clash."""


def _plugins_fault(message: str, source: ToolSource) -> PluginToolError:
    error = PluginToolError(message, hint=f"fix or disable the plugin with TRAILBLAZE_DISABLE_PLUGINS={source.plugin}")
    error.plugin = source.plugin
    return error


def _from_plugin_code(source: ToolSource) -> bool:
    """A tool a plugin's own code registered (not a file or an MCP server the workspace declares)."""
    return source.plugin is not None and source.file is None and source.server is None


__all__ = [
    "WIRE_NAME", "ToolNameWarning", "ToolRegistry",
]
