"""``TrailmapLoader``: the trailmaps of a workspace — found, their manifests checked, their dependencies
resolved — and everything one trailmap holds: tool files, bare typed ``.ts`` tools, toolsets, MCP
servers and its target."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import SourceLocation, ToolSource, TrailblazeError

from .catalog_model import Catalog, Target, Trailmap
from .entries import CatalogEntries
from .models import REMOVED_MANIFEST_KEYS, TrailmapManifest, parse_model
from .problems import Problem, ToolFileError, located
from .reading import CatalogReader, first_existing, maybe_text, subdirs, yaml_files
from .script import ScriptToolSpec, script_definitions
from .toolfile import resolve_relative
from .ts_tools import cache_path as ts_cache_path
from .ts_tools import discover, extract, module_spec

if TYPE_CHECKING:
    from trailblaze import PluginHost, WorkspaceConfig

TOOL_DIRS = ("tools", "shortcuts", "trailheads")


class TrailmapLoader:
    """Loads the trailmaps into ``catalog``: what each file holds enters through ``entries``; what was
    looked at and what went wrong is recorded by ``reader``."""

    def __init__(self, catalog: Catalog, reader: CatalogReader, entries: CatalogEntries,
                 config: WorkspaceConfig, host: PluginHost, workspace_source: ToolSource) -> None:
        self.catalog = catalog
        self.reader = reader
        self.entries = entries
        self.config = config
        self.host = host
        self.workspace_source = workspace_source
        self.typed_files: list[tuple[Trailmap, Path]] = []
        """Bare typed ``.ts`` tools found in the trailmaps, loaded together by ``load_typed_tools``."""

    def load(self) -> None:
        """Every trailmap: found, manifests checked, dependencies resolved, the usable ones loaded."""
        self.discover()
        for trailmap in list(self.catalog.trailmaps.values()):
            self.load_manifest(trailmap)
        self.resolve_dependencies()
        for trailmap in self.catalog.active_trailmaps():
            self.load_trailmap(trailmap)
        self.load_typed_tools()

    def discover(self) -> None:
        trailmaps = self.catalog.trailmaps
        for source, root in self.host.trailmap_dirs():
            for directory in subdirs(root, self.reader.watch):
                existing = trailmaps.get(directory.name)
                if existing is not None:
                    self.catalog.errors.append(ToolFileError(
                        f"trailmap '{directory.name}' is shipped twice: by {existing.source} ({existing.root}) and "
                        f"by {source} ({directory})", location=SourceLocation(directory),
                        hint="uninstall or disable one of the plugins"))
                    continue
                trailmaps[directory.name] = Trailmap(directory.name, directory, "packaged", source)
        workspace_root = self.config.config_dir / "trailmaps"
        for directory in subdirs(workspace_root, self.reader.watch):
            # A workspace trailmap replaces a packaged one with the same id wholesale.
            trailmaps[directory.name] = Trailmap(directory.name, directory, "workspace", self.workspace_source)

    def load_manifest(self, trailmap: Trailmap) -> None:
        file = first_existing(trailmap.root, ("trailmap.yaml", "trailmap.yml"), self.reader.watch)
        if file is None:
            return  # a directory of tools without a manifest: a library trailmap named after it
        trailmap.manifest_file = file
        read = self.reader.read(file)
        if read is None:
            trailmap.skipped = "its trailmap.yaml does not load"
            return
        text, data = read
        if isinstance(data, dict):
            for key in [k for k in data if k in REMOVED_MANIFEST_KEYS]:
                self.reader.advise("TrailmapManifest",
                                   f"key '{key}' is {REMOVED_MANIFEST_KEYS[key]} and ignored",
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
                if self.reader.watch(prompt) is None or not prompt.is_file():
                    raise Problem(f"system_prompt_file '{manifest.target.system_prompt_file}' does not exist",
                                  ("target", "system_prompt_file"))
        except Problem as problem:
            self.reader.fail(problem, text, file)
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
                self.reader.advise("TrailmapDependencies", f"trailmap '{tid}' is skipped: {reason}",
                                   location, trailmap.label)

    # one trailmap ---------------------------------------------------------------------------------
    def load_trailmap(self, trailmap: Trailmap) -> None:
        manifest = trailmap.manifest
        self.reader.watch(trailmap.root)
        toolset_files = list(yaml_files(trailmap.root / "toolsets", self.reader.watch))
        if manifest is not None:
            for i, ref in enumerate(manifest.toolsets):
                path = resolve_relative(ref, trailmap.manifest_file or trailmap.root / "trailmap.yaml")
                if self.reader.watch(path) is None or not path.is_file():
                    self.reader.fail(Problem(f"toolset file '{ref}' does not exist", ("toolsets", i)),
                                     maybe_text(trailmap.manifest_file), trailmap.manifest_file)
                    continue
                if path not in toolset_files:
                    toolset_files.append(path)
        for path in toolset_files:
            self.entries.load_toolset_file(path, trailmap.id)
        for dirname in TOOL_DIRS:
            for path in yaml_files(trailmap.root / dirname, self.reader.watch):
                self.entries.load_tool_file(path, trailmap, in_tools_dir=dirname == "tools")
        self.typed_files.extend((trailmap, p) for p in discover(trailmap.root / "tools",
                                                                 self.entries.covered_scripts, self.reader.watch))
        if manifest is not None and manifest.mcp_servers:
            self.load_servers(trailmap, manifest.mcp_servers)
        if manifest is not None and manifest.target is not None:
            target_id = manifest.target.id or trailmap.id
            self.entries.add_target(Target(target_id, manifest.target, trailmap, trailmap.manifest_file),
                                    trailmap.manifest_file, ("target",))

    def load_typed_tools(self) -> None:
        """Bare typed ``.ts`` tools of every trailmap: schemas derived in one batch, then handed to the
        script runtime like any ``script:`` tool (``ts_tools.py``)."""
        if not self.typed_files:
            return
        owner = {path: trailmap for trailmap, path in self.typed_files}
        try:
            tools, errors = extract(owner, cache=ts_cache_path(self.config.root))
        except TrailblazeError as exc:
            self.reader.fail_error(exc, self.typed_files[0][0].root / "tools")
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
                self.reader.fail_error(exc, tool.file)
                continue
            self.entries.accept(definitions, None, trailmap)

    def load_servers(self, trailmap: Trailmap, entries: list[dict[str, Any]]) -> None:
        file = trailmap.manifest_file
        assert file is not None
        text = maybe_text(file)
        for i, entry in enumerate(entries):
            where = ("mcp_servers", i)
            script = entry.get("script")
            if not isinstance(script, str) or not script.strip():
                self.reader.fail(Problem("an mcp_servers entry needs 'script: <path>' (relative to trailmap.yaml)",
                                         where), text, file)
                continue
            source = replace(trailmap.source, file=file)
            spec = ScriptToolSpec(kind="server", file=file, line=None, script=resolve_relative(script, file),
                                  runtime=entry.get("runtime"), tools=(), trailmap=trailmap.id, source=source,
                                  options={k: v for k, v in entry.items() if k not in ("script", "runtime")})
            try:
                definitions = script_definitions(spec, self.host, self.config, path=(*where, "script"))
            except Problem as problem:
                self.reader.fail(problem, text, file)
                continue
            except TrailblazeError as exc:
                self.reader.fail_error(exc, file)
                continue
            self.entries.accept(definitions, None, trailmap)
