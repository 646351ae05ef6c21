"""The catalog of one workspace: every trailmap, tool file, toolset and target, loaded once.

Sources, in the order they are read:

1. packaged trailmaps that installed plugins ship (``trailblaze_trailmap_dirs``), this plugin's own
   framework trailmap ``trailblaze`` among them;
2. the workspace's ``trails/config/trailmaps/<id>/`` — a workspace trailmap with the same id as a
   packaged one replaces it wholesale;
3. ``tools:``, ``toolsets:`` and ``targets:`` of ``trails/config/trailblaze.yaml`` and the flat
   ``trails/config/targets/<id>.yaml`` files.

Each bad file becomes one error (file:line:column and key) and its siblings still load. A trailmap whose
manifest is broken, or whose dependencies are missing or form a cycle, is skipped with a message. The
catalog is cached per ``WorkspaceConfig`` object, so registering, checking, filtering and listing in one
process read the files once, and on disk between processes (``cache.py``): the loader records every path
it looks at for that.
"""

from __future__ import annotations

import gc
import sys
import weakref
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from trailblaze import ClassToolDefinition, ToolSource

from .cache import cache_file, load_cached, save_cached
from .catalog_model import Advisory, Catalog, LoadedToolset, Target, Trailmap
from .definitions import YamlToolDefinition
from .entries import CatalogEntries
from .reading import CatalogReader
from .toolfile import id_line
from .trailmap_loading import TrailmapLoader
from .workspace_loading import WorkspaceLoader

if TYPE_CHECKING:
    from trailblaze import PluginHost, WorkspaceConfig


# -- cache -------------------------------------------------------------------------------------------
_CACHE: dict[tuple[int, int], tuple[weakref.ref[Any], Catalog]] = {}


def catalog_for(config: WorkspaceConfig, host: PluginHost, workspace_source: ToolSource | None = None) -> Catalog:
    """The catalog of ``config`` as seen by ``host``'s plugins, loaded on first use."""
    key = (id(config), id(host))
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is config:
        return hit[1]
    catalog = load_catalog(config, host, workspace_source or ToolSource(plugin="yaml_tools"))
    _CACHE[key] = (weakref.ref(config), catalog)
    weakref.finalize(config, _CACHE.pop, key, None)
    return catalog


def cached_catalog(config: WorkspaceConfig) -> Catalog | None:
    """A catalog already loaded for ``config`` by any host (checks get no host argument)."""
    for (config_id, _), (ref, catalog) in list(_CACHE.items()):
        if config_id == id(config) and ref() is config:
            return catalog
    return None


# -- loading -----------------------------------------------------------------------------------------
class _Loader:
    """The whole catalog: the trailmaps, then ``trailblaze.yaml``'s sections and the flat target files, each
    loaded by its own part into one ``Catalog`` through one reader; and whether the result may be cached."""

    def __init__(self, config: WorkspaceConfig, host: PluginHost, workspace_source: ToolSource) -> None:
        self.config = config
        self.catalog = Catalog(root=config.root)
        self.reader = CatalogReader(self.catalog)
        entries = CatalogEntries(self.catalog, self.reader, config, host, workspace_source)
        self.trailmaps = TrailmapLoader(self.catalog, self.reader, entries, config, host, workspace_source)
        self.workspace = WorkspaceLoader(self.catalog, self.reader, entries, config, host, workspace_source)

    def load(self) -> Catalog:
        self.trailmaps.load()
        self.workspace.load()
        self.assign_toolsets()
        if self.config.file is not None:
            self.reader.watch(self.config.file)
        return self.catalog

    def cacheable(self) -> bool:
        """Built by this package alone: ``script:`` tools and ``mcp_servers`` register servers with another
        plugin while they load, which a cached catalog would skip."""
        if any(t.manifest is not None and t.manifest.mcp_servers for t in self.catalog.trailmaps.values()):
            return False
        for definition in self.catalog.definitions:
            if isinstance(definition, ClassToolDefinition):
                module = sys.modules.get(definition.tool_class.__module__)
                file = getattr(module, "__file__", None)
                if not file:
                    return False
                self.reader.watch(file)
            elif not isinstance(definition, YamlToolDefinition):
                return False
        return True

    def prepare_for_cache(self) -> None:
        """Build the JSON Schemas now, so a catalog read back from the cache has them ready."""
        for definition in self.catalog.definitions:
            schema = definition.parameters()
            if schema is not None:
                schema.json_schema()
                schema.json_schema(for_llm=True)

    def assign_toolsets(self) -> None:
        """Record on each YAML-declared tool the toolsets whose files list it (shown by ``trailblaze tools``)."""
        membership: dict[str, list[str]] = {}
        for tid, toolset in self.catalog.toolsets.items():
            for name in toolset.config.tools:
                membership.setdefault(name, []).append(tid)
        if not membership:
            return
        definitions = self.catalog.definitions
        for i, definition in enumerate(definitions):
            extra = [t for t in membership.get(definition.name, ()) if t not in definition.toolsets]
            if extra:
                definitions[i] = replace(definition, toolsets=(*definition.toolsets, *extra))


def load_catalog(config: WorkspaceConfig, host: PluginHost, workspace_source: ToolSource) -> Catalog:
    """The catalog from the on-disk cache when nothing it depends on changed, else loaded (and cached).

    The cyclic garbage collector is paused meanwhile: the load only allocates (hundreds of thousands
    of objects for a large workspace, none of them garbage), and each collection it would trigger walks
    all of them again — for 10,000 tools, more time than the loading itself. Re-enabling it would still
    cost one pass: the first allocation after the load finds the youngest generation hundreds of
    thousands of objects over its threshold and walks them all. So what the load allocated is moved
    straight to the oldest generation instead (``gc.freeze()`` then ``gc.unfreeze()``: no walk, and
    unlike ``freeze`` alone nothing stays out of the collector's reach — a garbage cycle of the
    caller's is still collected, by the next full collection).
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return _load_catalog(config, host, workspace_source)
    finally:
        if paused:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def _load_catalog(config: WorkspaceConfig, host: PluginHost, workspace_source: ToolSource) -> Catalog:
    cached = load_cached(config, host, workspace_source)
    if cached is not None:
        return cached
    loader = _Loader(config, host, workspace_source)
    catalog = loader.load()
    if not catalog.errors and cache_file(config) is not None and loader.cacheable():
        loader.prepare_for_cache()
        save_cached(config, host, workspace_source, catalog, loader.reader.deps, loader.reader.seen)
    return catalog


__all__ = [
    "Advisory",
    "Catalog",
    "LoadedToolset",
    "Target",
    "Trailmap",
    "cached_catalog",
    "catalog_for",
    "id_line",
    "load_catalog",
]
