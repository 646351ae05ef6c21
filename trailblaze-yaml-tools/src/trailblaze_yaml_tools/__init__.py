"""Trailblaze plugin: tools defined in YAML, trailmaps, toolsets and trailmap-scoping checks.

Install it next to ``trailblaze`` and every ``*.tool.yaml`` under ``trails/config/trailmaps/<id>/tools/``
becomes a tool (see ``docs/yaml-tools.md`` and ``docs/trailmaps.md``). Nothing here is imported by the
core: the plugin registers through the ``trailblaze`` entry-point group like any third party.
"""

from __future__ import annotations

from .catalog import Catalog, catalog_for, load_catalog
from .definitions import YamlToolDefinition
from .script import ScriptedToolDecl, ScriptToolSpec
from .template import CompiledBody

__all__ = ["Catalog", "CompiledBody", "ScriptToolSpec", "ScriptedToolDecl", "YamlToolDefinition", "catalog_for",
           "load_catalog"]
