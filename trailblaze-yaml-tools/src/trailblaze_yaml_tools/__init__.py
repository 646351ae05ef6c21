"""Trailblaze plugin: tools defined in YAML, trailmaps, toolsets and trailmap-scoping checks.

Install it next to ``trailblaze`` and every ``*.tool.yaml`` under ``trails/config/trailmaps/<id>/tools/``
becomes a tool (see ``docs/yaml-tools.md`` and ``docs/trailmaps.md``). Nothing here is imported by the
core: the plugin registers through the ``trailblaze`` entry-point group like any third party.

The names below resolve lazily (``_LAZY``: the module each comes from): loading the entry point
``trailblaze_yaml_tools.plugin`` runs this ``__init__`` first, and a command that loads every plugin
without reading a workspace (``merge-reports``, ``--help``) must not pay for the catalog. The same names
are imported under ``TYPE_CHECKING``, so type checkers see every export.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .catalog import Catalog, catalog_for, load_catalog
    from .definitions import YamlToolDefinition
    from .script import ScriptedToolDecl, ScriptToolSpec
    from .template import CompiledBody

__all__ = ["Catalog", "CompiledBody", "ScriptToolSpec", "ScriptedToolDecl", "YamlToolDefinition", "catalog_for",
           "load_catalog"]

_LAZY = {
    "Catalog": "catalog", "catalog_for": "catalog", "load_catalog": "catalog",
    "YamlToolDefinition": "definitions", "ScriptedToolDecl": "script", "ScriptToolSpec": "script",
    "CompiledBody": "template",
}


if not TYPE_CHECKING:  # hidden from type checkers, so a name outside __all__ is an error there, not Any

    def __getattr__(name: str) -> Any:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'trailblaze_yaml_tools' has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value
        return value
