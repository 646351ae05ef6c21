"""``TrailmapLoader``: the trailmaps of a workspace — found, their manifests checked, their dependencies
resolved — and everything one trailmap holds: tool files, bare typed ``.ts`` tools, toolsets, MCP
servers and its target."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from trailblaze import SourceLocation, ToolDefinition, ToolSource, TrailblazeError

from .catalog_model import LoadedToolset, Target, Trailmap
from .descriptor import load_descriptor
from .models import REMOVED_MANIFEST_KEYS, ToolSetConfig, TrailmapManifest, parse_model
from .problems import Problem, ToolFileError, located
from .reading import CatalogReader, first_existing, maybe_text, subdirs, yaml_files
from .script import ScriptToolSpec, script_definitions
from .toolfile import MetadataTool, ToolFileContext, file_kind, load_tool, resolve_relative
from .ts_tools import cache_path as ts_cache_path
from .ts_tools import discover, extract, module_spec

TOOL_DIRS = ("tools", "shortcuts", "trailheads")


class TrailmapLoader(CatalogReader):
    """Loads the trailmaps into the catalog; ``catalog._Loader`` adds ``trailblaze.yaml`` and the flat
    targets on top."""

    def discover(self) -> None:
        trailmaps = self.catalog.trailmaps
        for source, root in self.host.trailmap_dirs():
            for directory in subdirs(root, self.watch):
                existing = trailmaps.get(directory.name)
                if existing is not None:
                    self.catalog.errors.append(ToolFileError(
                        f"trailmap '{directory.name}' is shipped twice: by {existing.source} ({existing.root}) and "
                        f"by {source} ({directory})", location=SourceLocation(directory),
                        hint="uninstall or disable one of the plugins"))
                    continue
                trailmaps[directory.name] = Trailmap(directory.name, directory, "packaged", source)
        workspace_root = self.config.config_dir / "trailmaps"
        for directory in subdirs(workspace_root, self.watch):
            # A workspace trailmap replaces a packaged one with the same id wholesale.
            trailmaps[directory.name] = Trailmap(directory.name, directory, "workspace", self.workspace_source)

    def load_manifest(self, trailmap: Trailmap) -> None:
        file = first_existing(trailmap.root, ("trailmap.yaml", "trailmap.yml"), self.watch)
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
        toolset_files = list(yaml_files(trailmap.root / "toolsets", self.watch))
        if manifest is not None:
            for i, ref in enumerate(manifest.toolsets):
                path = resolve_relative(ref, trailmap.manifest_file or trailmap.root / "trailmap.yaml")
                if self.watch(path) is None or not path.is_file():
                    self.fail(Problem(f"toolset file '{ref}' does not exist", ("toolsets", i)),
                              maybe_text(trailmap.manifest_file), trailmap.manifest_file)
                    continue
                if path not in toolset_files:
                    toolset_files.append(path)
        for path in toolset_files:
            self.load_toolset_file(path, trailmap.id)
        for dirname in TOOL_DIRS:
            for path in yaml_files(trailmap.root / dirname, self.watch):
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
        text = maybe_text(file)
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
                      maybe_text(file), file, base)
            return
        self.catalog.targets[target.id] = target
