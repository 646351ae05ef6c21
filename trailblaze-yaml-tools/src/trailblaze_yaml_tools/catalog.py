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
import os
import sys
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.errors import BadInputError, SourceLocation, TrailblazeError
from trailblaze.tools.base import ClassToolDefinition, ToolDefinition, ToolSource
from trailblaze.yamlio import load_fast, plain, read_text
from trailblaze.yamlstream import Limits

from .cache import (
    Signature,
    cache_file,
    digest_listing,
    digest_text,
    fast_path,
    is_racy,
    load_cached,
    save_cached,
    signature,
)
from .definitions import YamlToolDefinition
from .descriptor import load_descriptor
from .models import (
    REMOVED_MANIFEST_KEYS,
    TargetConfig,
    ToolSetConfig,
    TrailmapManifest,
    parse_model,
)
from .problems import Problem, ToolFileError, located
from .script import ScriptToolSpec, script_definitions
from .toolfile import MetadataTool, ToolFileContext, file_kind, id_line, load_tool, resolve_relative
from .ts_tools import cache_path as ts_cache_path
from .ts_tools import discover, extract, module_spec

if TYPE_CHECKING:
    from trailblaze.config import WorkspaceConfig
    from trailblaze.plugins import PluginHost

YAML_SUFFIXES = (".yaml", ".yml")
_UNSEEN: Any = object()
TOOL_DIRS = ("tools", "shortcuts", "trailheads")


@dataclass
class Advisory:
    check: str
    message: str
    location: SourceLocation | None = None
    dedupe_key: str | None = None


@dataclass
class Trailmap:
    id: str
    root: Path
    origin: str
    """``workspace`` or ``packaged``."""
    source: ToolSource
    manifest: TrailmapManifest | None = None
    manifest_file: Path | None = None
    skipped: str | None = None
    tool_names: list[str] = field(default_factory=list)

    @property
    def is_library(self) -> bool:
        return self.manifest is None or self.manifest.target is None

    @property
    def dependencies(self) -> list[str]:
        return list(self.manifest.dependencies) if self.manifest else []

    @property
    def label(self) -> str:
        """``<id>@<source>``: the dedupe key upstream uses for per-manifest warnings."""
        return f"{self.id}@{self.manifest_file or self.root}"


@dataclass
class LoadedToolset:
    config: ToolSetConfig
    file: Path | None
    trailmap: str | None


@dataclass
class Target:
    id: str
    config: TargetConfig
    trailmap: Trailmap | None
    file: Path | None


@dataclass
class Catalog:
    root: Path
    trailmaps: dict[str, Trailmap] = field(default_factory=dict)
    definitions: list[ToolDefinition] = field(default_factory=list)
    metadata: list[MetadataTool] = field(default_factory=list)
    toolsets: dict[str, LoadedToolset] = field(default_factory=dict)
    targets: dict[str, Target] = field(default_factory=dict)
    enabled_targets: list[str] | None = None
    errors: list[TrailblazeError] = field(default_factory=list)
    advisories: list[Advisory] = field(default_factory=list)
    files: int = 0

    def active_trailmaps(self) -> Iterator[Trailmap]:
        return (t for t in self.trailmaps.values() if t.skipped is None)


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
    def __init__(self, config: WorkspaceConfig, host: PluginHost, workspace_source: ToolSource) -> None:
        self.config = config
        self.host = host
        self.workspace_source = workspace_source
        self.catalog = Catalog(root=config.root)
        self.loaded_files: set[tuple[int, int]] = set()
        self._config_text: str | None = None
        self.deps: dict[str, Signature] = {}
        """Every path this load looked at (files read, directories listed, paths probed) → its stat
        signature then, so a later invocation can tell whether the result still holds (``cache.py``)."""

        self.seen: dict[str, str] = {}
        """Digests of what was read at paths modified moments ago (see ``cache.is_racy``)."""
        self.started = time.time_ns()
        self.limits = Limits.from_env()
        self.covered_scripts: set[Path] = set()
        """Scripts a ``tools/<name>.yaml`` descriptor points at: not discovered again as bare typed tools."""
        self.typed_files: list[tuple[Trailmap, Path]] = []

    def watch(self, path: Path | str, listing: list[str] | None = None) -> Signature:
        key = os.fspath(path)
        found: Signature = self.deps.get(key, _UNSEEN)
        if found is _UNSEEN:
            found = self.deps[key] = signature(key)
        if listing is not None and is_racy(found, self.started):
            self.seen[key] = digest_listing(listing)
        return found

    # errors --------------------------------------------------------------------------------------
    def fail(self, problem: Problem, text: str | None, file: Path | None, base: tuple[Any, ...] = ()) -> None:
        self.catalog.errors.append(located(problem, text, file, base))

    def fail_error(self, exc: TrailblazeError, file: Path | None) -> None:
        if exc.location is None and file is not None:
            exc.location = SourceLocation(file)
            exc.args = (exc.render(),)
        self.catalog.errors.append(exc)

    def advise(self, check: str, message: str, location: SourceLocation | None = None,
               dedupe_key: str | None = None) -> None:
        self.catalog.advisories.append(Advisory(check, message, location, dedupe_key))

    def read(self, path: Path) -> tuple[str, Any] | None:
        """(text, data) of a YAML file, or None after recording its error."""
        sig = self.watch(path)
        try:
            text = read_text(path, self.limits)
            if is_racy(sig, self.started):
                self.seen[os.fspath(path)] = digest_text(text)
            return text, load_fast(text, path, self.limits)
        except TrailblazeError as exc:
            self.fail_error(exc, path)
            return None

    # the whole catalog ----------------------------------------------------------------------------
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

    def discover(self) -> None:
        trailmaps = self.catalog.trailmaps
        for source, root in self.host.trailmap_dirs():
            for directory in _subdirs(root, self.watch):
                existing = trailmaps.get(directory.name)
                if existing is not None:
                    self.catalog.errors.append(ToolFileError(
                        f"trailmap '{directory.name}' is shipped twice: by {existing.source} ({existing.root}) and "
                        f"by {source} ({directory})", location=SourceLocation(directory),
                        hint="uninstall or disable one of the plugins"))
                    continue
                trailmaps[directory.name] = Trailmap(directory.name, directory, "packaged", source)
        workspace_root = self.config.config_dir / "trailmaps"
        for directory in _subdirs(workspace_root, self.watch):
            # A workspace trailmap replaces a packaged one with the same id wholesale.
            trailmaps[directory.name] = Trailmap(directory.name, directory, "workspace", self.workspace_source)

    def load_manifest(self, trailmap: Trailmap) -> None:
        file = _first_existing(trailmap.root, ("trailmap.yaml", "trailmap.yml"), self.watch)
        if file is None:
            return  # a directory of tools without a manifest: a library trailmap named after it
        trailmap.manifest_file = file
        read = self.read(file)
        if read is None:
            trailmap.skipped = "its trailmap.yaml does not load"
            return
        text, data = read
        if isinstance(data, dict):
            for key in [k for k in data if k in REMOVED_MANIFEST_KEYS]:
                self.advise("TrailmapManifest", f"key '{key}' is {REMOVED_MANIFEST_KEYS[key]} and ignored",
                            located(Problem("", (key,)), text, file).location, f"{trailmap.label}:{key}")
                data = {k: v for k, v in data.items() if k != key}
        try:
            manifest = parse_model(TrailmapManifest, data, what="trailmap manifest")
            if manifest.id != trailmap.id:
                raise Problem(f"id '{manifest.id}' does not match the trailmap's directory name '{trailmap.id}'",
                              ("id",), hint="rename one of them")
            if manifest.target is not None and manifest.platforms is not None:
                raise Problem("'platforms' is for library trailmaps; a target trailmap declares its platforms "
                              "under 'target:'", ("platforms",))
            if manifest.target is not None and manifest.target.system_prompt_file is not None:
                prompt = resolve_relative(manifest.target.system_prompt_file, file)
                if self.watch(prompt) is None or not prompt.is_file():
                    raise Problem(f"system_prompt_file '{manifest.target.system_prompt_file}' does not exist",
                                  ("target", "system_prompt_file"))
        except Problem as problem:
            self.fail(problem, text, file)
            trailmap.skipped = "its trailmap.yaml is invalid"
            return
        trailmap.manifest = manifest

    def resolve_dependencies(self) -> None:
        trailmaps = self.catalog.trailmaps
        state: dict[str, str] = {}

        def visit(tid: str, chain: tuple[str, ...]) -> str | None:
            """None when ``tid`` and all its dependencies are usable, else why not."""
            trailmap = trailmaps[tid]
            if trailmap.skipped is not None:
                return trailmap.skipped
            if state.get(tid) == "done":
                return None
            if tid in chain:
                return "dependency cycle " + " -> ".join((*chain[chain.index(tid):], tid))
            for dep in trailmap.dependencies:
                if dep not in trailmaps:
                    return f"it depends on '{dep}', which no trailmap provides"
                reason = visit(dep, (*chain, tid))
                if reason is not None:
                    if reason.startswith("dependency cycle"):
                        return reason
                    return f"its dependency '{dep}' is skipped ({reason})"
            state[tid] = "done"
            return None

        for tid, trailmap in trailmaps.items():
            if trailmap.skipped is not None:
                continue
            reason = visit(tid, ())
            if reason is not None:
                trailmap.skipped = reason
                location = SourceLocation(trailmap.manifest_file or trailmap.root)
                self.advise("TrailmapDependencies", f"trailmap '{tid}' is skipped: {reason}", location,
                            trailmap.label)

    # one trailmap ---------------------------------------------------------------------------------
    def load_trailmap(self, trailmap: Trailmap) -> None:
        manifest = trailmap.manifest
        self.watch(trailmap.root)
        toolset_files = list(_yaml_files(trailmap.root / "toolsets", self.watch))
        if manifest is not None:
            for i, ref in enumerate(manifest.toolsets):
                path = resolve_relative(ref, trailmap.manifest_file or trailmap.root / "trailmap.yaml")
                if self.watch(path) is None or not path.is_file():
                    self.fail(Problem(f"toolset file '{ref}' does not exist", ("toolsets", i)),
                              _maybe_text(trailmap.manifest_file), trailmap.manifest_file)
                    continue
                if path not in toolset_files:
                    toolset_files.append(path)
        for path in toolset_files:
            self.load_toolset_file(path, trailmap.id)
        for dirname in TOOL_DIRS:
            for path in _yaml_files(trailmap.root / dirname, self.watch):
                self.load_tool_file(path, trailmap, in_tools_dir=dirname == "tools")
        self.typed_files.extend((trailmap, p) for p in discover(trailmap.root / "tools", self.covered_scripts,
                                                                 self.watch))
        if manifest is not None and manifest.mcp_servers:
            self.load_servers(trailmap, manifest.mcp_servers)
        if manifest is not None and manifest.target is not None:
            target_id = manifest.target.id or trailmap.id
            self.add_target(Target(target_id, manifest.target, trailmap, trailmap.manifest_file),
                            trailmap.manifest_file, ("target",))

    def load_tool_file(self, path: Path, trailmap: Trailmap | None, *, in_tools_dir: bool = True,
                       source: ToolSource | None = None) -> None:
        sig = self.watch(path)
        identity = (sig[4], sig[3]) if sig is not None else (0, hash(os.path.realpath(path)))
        if identity in self.loaded_files:  # the same file reached twice (a ref to a trailmap's tool)
            return
        self.loaded_files.add(identity)
        kind = file_kind(path.name)
        if kind is None and not in_tools_dir:
            self.fail(Problem(f"'{path.name}' is not a tool file: shortcuts and trailheads are named "
                              "<id>.shortcut.yaml / <id>.trailhead.yaml"), None, path)
            return
        read = self.read(path)
        if read is None:
            return
        text, data = read
        self.catalog.files += 1
        ctx = ToolFileContext(file=path, text=text, source=source or (trailmap.source if trailmap else
                                                                      self.workspace_source),
                              trailmap=trailmap.id if trailmap else None,
                              library=trailmap.is_library if trailmap else False, kind=kind)
        try:
            if kind is None:
                script = data.get("script") if isinstance(data, Mapping) else None
                if isinstance(script, str) and script.strip():
                    self.covered_scripts.add(resolve_relative(script, path).resolve())
                definitions = load_descriptor(data, ctx, self.host, self.config)
                metadata = None
            else:
                loaded = load_tool(data, ctx, self.host, self.config)
                definitions, metadata = loaded.definitions, loaded.metadata
        except Problem as problem:
            self.fail(problem, text, path)
            return
        except TrailblazeError as exc:
            self.fail_error(exc, path)
            return
        self.accept(definitions, metadata, trailmap)

    def accept(self, definitions: list[ToolDefinition], metadata: MetadataTool | None,
               trailmap: Trailmap | None) -> None:
        self.catalog.definitions.extend(definitions)
        if metadata is not None:
            self.catalog.metadata.append(metadata)
        if trailmap is not None:
            trailmap.tool_names.extend(d.name for d in definitions)

    def load_typed_tools(self) -> None:
        """Bare typed ``.ts`` tools of every trailmap: schemas derived in one batch, then handed to the
        script runtime like any ``script:`` tool (``ts_tools.py``)."""
        if not self.typed_files:
            return
        owner = {path: trailmap for trailmap, path in self.typed_files}
        try:
            tools, errors = extract(owner, cache=ts_cache_path(self.config.root))
        except TrailblazeError as exc:
            self.fail_error(exc, self.typed_files[0][0].root / "tools")
            return
        for error in errors:
            self.catalog.errors.append(ToolFileError(error.message,
                                                     location=SourceLocation(error.file, error.line)))
        for tool in tools:
            trailmap = owner[tool.file]
            spec = module_spec(tool, trailmap=trailmap.id, source=trailmap.source)
            try:
                definitions = script_definitions(spec, self.host, self.config, path=())
            except Problem as problem:
                self.catalog.errors.append(ToolFileError(problem.message, hint=problem.hint,
                                                         location=SourceLocation(tool.file, tool.line)))
                continue
            except TrailblazeError as exc:
                self.fail_error(exc, tool.file)
                continue
            self.accept(definitions, None, trailmap)

    def load_servers(self, trailmap: Trailmap, entries: list[dict[str, Any]]) -> None:
        file = trailmap.manifest_file
        assert file is not None
        text = _maybe_text(file)
        for i, entry in enumerate(entries):
            where = ("mcp_servers", i)
            script = entry.get("script")
            if not isinstance(script, str) or not script.strip():
                self.fail(Problem("an mcp_servers entry needs 'script: <path>' (relative to trailmap.yaml)", where),
                          text, file)
                continue
            source = replace(trailmap.source, file=file)
            spec = ScriptToolSpec(kind="server", file=file, line=None, script=resolve_relative(script, file),
                                  runtime=entry.get("runtime"), tools=(), trailmap=trailmap.id, source=source,
                                  options={k: v for k, v in entry.items() if k not in ("script", "runtime")})
            try:
                definitions = script_definitions(spec, self.host, self.config, path=(*where, "script"))
            except Problem as problem:
                self.fail(problem, text, file)
                continue
            except TrailblazeError as exc:
                self.fail_error(exc, file)
                continue
            self.accept(definitions, None, trailmap)

    def load_toolset_file(self, path: Path, trailmap: str | None) -> None:
        read = self.read(path)
        if read is None:
            return
        text, data = read
        try:
            toolset = parse_model(ToolSetConfig, data, what="toolset")
        except Problem as problem:
            self.fail(problem, text, path)
            return
        self.add_toolset(LoadedToolset(toolset, path, trailmap), text, ())

    def add_toolset(self, toolset: LoadedToolset, text: str | None, base: tuple[Any, ...]) -> None:
        existing = self.catalog.toolsets.get(toolset.config.id)
        if existing is not None:
            self.fail(Problem(f"toolset '{toolset.config.id}' is defined twice: here and in "
                              f"{existing.file or 'trailblaze.yaml'}", ("id",)), text, toolset.file, base)
            return
        self.catalog.toolsets[toolset.config.id] = toolset

    def add_target(self, target: Target, file: Path | None, base: tuple[Any, ...]) -> None:
        existing = self.catalog.targets.get(target.id)
        if existing is not None:
            self.fail(Problem(f"target '{target.id}' is defined twice: here and in {existing.file}", ()),
                      _maybe_text(file), file, base)
            return
        self.catalog.targets[target.id] = target

    # trailblaze.yaml ------------------------------------------------------------------------------
    def config_text(self) -> str | None:
        if self._config_text is None and self.config.file is not None:
            self._config_text = read_text(self.config.file)
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
                loaded_tool = load_tool(plain(entry), ctx, self.host, self.config)
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
        return file, self.config_text(), plain(entry), where

    def _trailmap_of(self, path: Path) -> Trailmap | None:
        resolved = path.resolve()
        for trailmap in self.catalog.active_trailmaps():
            if resolved.is_relative_to(trailmap.root.resolve()):
                return trailmap
        return None

    def load_flat_targets(self) -> None:
        for path in _yaml_files(self.config.config_dir / "targets", self.watch, recursive=False):
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


# -- file helpers ------------------------------------------------------------------------------------
def _subdirs(root: Path, watch: Callable[..., Any]) -> list[Path]:
    try:
        entries = list(os.scandir(root))
    except (FileNotFoundError, NotADirectoryError):
        watch(root)
        return []
    watch(root, [e.name for e in entries])
    dirs = (fast_path(e.path) for e in entries if e.is_dir() and not e.name.startswith("."))
    return sorted(dirs, key=lambda p: p.name)


def _yaml_files(root: Path, watch: Callable[..., Any], *, recursive: bool = True) -> Iterator[Path]:
    """YAML files below ``root`` (recursively, sorted, hidden entries skipped); ``watch`` sees each directory."""
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        watch(root)
        return
    watch(root, [e.name for e in entries])
    subdirs = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            subdirs.append(entry.path)
        elif entry.name.endswith(YAML_SUFFIXES):
            yield fast_path(entry.path)
    if recursive:
        for sub in subdirs:
            yield from _yaml_files(Path(sub), watch)


def _first_existing(root: Path, names: tuple[str, ...], watch: Callable[..., Any]) -> Path | None:
    for name in names:
        candidate = root / name
        if watch(candidate) is not None and candidate.is_file():
            return candidate
    return None


def _maybe_text(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return read_text(path)
    except BadInputError:
        return None


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
