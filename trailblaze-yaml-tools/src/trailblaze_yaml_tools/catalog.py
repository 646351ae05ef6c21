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
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import ClassToolDefinition, ToolSource, TrailblazeError, plain_data, read_yaml_text

from .cache import cache_file, load_cached, save_cached
from .catalog_model import Advisory, Catalog, LoadedToolset, Target, Trailmap
from .definitions import YamlToolDefinition
from .models import TargetConfig, ToolSetConfig, parse_model
from .problems import Problem
from .reading import yaml_files
from .toolfile import ToolFileContext, id_line, load_tool
from .trailmap_loading import TrailmapLoader

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
class _Loader(TrailmapLoader):
    """The whole catalog: the trailmaps (``TrailmapLoader``), then ``trailblaze.yaml``'s sections and the
    flat target files; and whether the result may be cached."""

    def load(self) -> Catalog:
        self.discover()
        for trailmap in list(self.catalog.trailmaps.values()):
            self.load_manifest(trailmap)
        self.resolve_dependencies()
        for trailmap in self.catalog.active_trailmaps():
            self.load_trailmap(trailmap)
        self.load_typed_tools()
        self.load_workspace_sections()
        self.load_flat_targets()
        self.assign_toolsets()
        if self.config.file is not None:
            self.watch(self.config.file)
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
                self.watch(file)
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
    # trailblaze.yaml ------------------------------------------------------------------------------
    def config_text(self) -> str | None:
        if self._config_text is None and self.config.file is not None:
            self._config_text = read_yaml_text(self.config.file)
        return self._config_text

    def load_workspace_sections(self) -> None:
        data = self.config.data or {}
        file = self.config.file
        for i, entry in enumerate(_as_list(data.get("toolsets"))):
            loaded = self._ref_or_inline(entry, ("toolsets", i))
            if loaded is None:
                continue
            path, text, raw, base = loaded
            try:
                toolset = parse_model(ToolSetConfig, raw, what="toolset")
            except Problem as problem:
                self.fail(problem, text, path, base)
                continue
            self.add_toolset(LoadedToolset(toolset, path, None), text, base)
        for i, entry in enumerate(_as_list(data.get("tools"))):
            if isinstance(entry, Mapping) and "ref" in entry:
                loaded = self._ref_or_inline(entry, ("tools", i))
                if loaded is not None and loaded[0] is not None:
                    self.load_tool_file(loaded[0], self._trailmap_of(loaded[0]), in_tools_dir=True)
                continue
            ctx = ToolFileContext(file=file or self.config.config_dir / "trailblaze.yaml", text=self.config_text(),
                                  source=self.workspace_source, kind=None, base=("tools", i))
            try:
                loaded_tool = load_tool(plain_data(entry), ctx, self.host, self.config)
            except Problem as problem:
                self.fail(problem, self.config_text(), file, ("tools", i))
                continue
            except TrailblazeError as exc:
                self.fail_error(exc, file)
                continue
            self.accept(loaded_tool.definitions, loaded_tool.metadata, None)
        targets = data.get("targets")
        if targets is not None:
            self.catalog.enabled_targets = [str(t) for t in _as_list(targets)]

    def _ref_or_inline(self, entry: Any, where: tuple[Any, ...]) -> tuple[Path | None, str | None, Any,
                                                                             tuple[Any, ...]] | None:
        file = self.config.file
        if isinstance(entry, Mapping) and "ref" in entry:
            if len(entry) > 1:
                others = ", ".join(str(k) for k in entry if k != "ref")
                self.fail(Problem(f"a 'ref:' entry may not have other keys ({others})", where), self.config_text(),
                          file)
                return None
            ref = str(entry["ref"]).lstrip("/")
            path = self.config.config_dir / ref
            if self.watch(path) is None or not path.is_file():
                self.fail(Problem(f"ref '{entry['ref']}' does not exist (paths are relative to "
                                  f"{self.config.config_dir})", (*where, "ref")), self.config_text(), file)
                return None
            if where[0] == "tools":
                return path, None, None, ()
            read = self.read(path)
            if read is None:
                return None
            return path, read[0], read[1], ()
        return file, self.config_text(), plain_data(entry), where

    def _trailmap_of(self, path: Path) -> Trailmap | None:
        resolved = path.resolve()
        for trailmap in self.catalog.active_trailmaps():
            if resolved.is_relative_to(trailmap.root.resolve()):
                return trailmap
        return None

    def load_flat_targets(self) -> None:
        for path in yaml_files(self.config.config_dir / "targets", self.watch, recursive=False):
            read = self.read(path)
            if read is None:
                continue
            text, data = read
            try:
                target = parse_model(TargetConfig, data, what="target")
                if target.id is None:
                    raise Problem("a target file needs an 'id'")
            except Problem as problem:
                self.fail(problem, text, path)
                continue
            self.add_target(Target(target.id or path.stem, target, None, path), path, ())
        enabled = self.catalog.enabled_targets
        if enabled:
            config_text = self.config_text()
            for i, tid in enumerate(enabled):
                if tid not in self.catalog.targets:
                    known = ", ".join(sorted(self.catalog.targets)) or "none"
                    self.fail(Problem(f"target '{tid}' is not defined by any trailmap or targets/ file "
                                      f"(known: {known})", ("targets", i)), config_text, self.config.file)

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
        save_cached(config, host, workspace_source, catalog, loader.deps, loader.seen)
    return catalog


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


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
