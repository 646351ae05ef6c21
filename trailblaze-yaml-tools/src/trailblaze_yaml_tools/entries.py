"""``CatalogEntries``: how tool files, toolsets and targets enter the catalog, wherever they were found (a
trailmap, a ``ref:`` of ``trailblaze.yaml``, a flat target file) — each file loaded once, each toolset and
target id defined once, each tool credited to its trailmap."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import ToolDefinition, ToolSource, TrailblazeError

from .catalog_model import Catalog, LoadedToolset, Target, Trailmap
from .descriptor import load_descriptor
from .models import ToolSetConfig, parse_model
from .problems import Problem
from .reading import CatalogReader, maybe_text
from .toolfile import MetadataTool, ToolFileContext, file_kind, load_tool, resolve_relative

if TYPE_CHECKING:
    from trailblaze import PluginHost, WorkspaceConfig


class CatalogEntries:
    """Adds to ``catalog`` what one file declares, its errors recorded by ``reader``."""

    def __init__(self, catalog: Catalog, reader: CatalogReader, config: WorkspaceConfig, host: PluginHost,
                 workspace_source: ToolSource) -> None:
        self.catalog = catalog
        self.reader = reader
        self.config = config
        self.host = host
        self.workspace_source = workspace_source
        self.loaded_files: set[tuple[int, int]] = set()
        self.covered_scripts: set[Path] = set()
        """Scripts a ``tools/<name>.yaml`` descriptor points at: not discovered again as bare typed tools."""

    def load_tool_file(self, path: Path, trailmap: Trailmap | None, *, in_tools_dir: bool = True,
                       source: ToolSource | None = None) -> None:
        reader = self.reader
        sig = reader.watch(path)
        identity = (sig[4], sig[3]) if sig is not None else (0, hash(os.path.realpath(path)))
        if identity in self.loaded_files:  # the same file reached twice (a ref to a trailmap's tool)
            return
        self.loaded_files.add(identity)
        kind = file_kind(path.name)
        if kind is None and not in_tools_dir:
            reader.fail(Problem(f"'{path.name}' is not a tool file: shortcuts and trailheads are named "
                                "<id>.shortcut.yaml / <id>.trailhead.yaml"), None, path)
            return
        read = reader.read(path)
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
            reader.fail(problem, text, path)
            return
        except TrailblazeError as exc:
            reader.fail_error(exc, path)
            return
        self.accept(definitions, metadata, trailmap)

    def accept(self, definitions: list[ToolDefinition], metadata: MetadataTool | None,
               trailmap: Trailmap | None) -> None:
        self.catalog.definitions.extend(definitions)
        if metadata is not None:
            self.catalog.metadata.append(metadata)
        if trailmap is not None:
            trailmap.tool_names.extend(d.name for d in definitions)

    def load_toolset_file(self, path: Path, trailmap: str | None) -> None:
        read = self.reader.read(path)
        if read is None:
            return
        text, data = read
        try:
            toolset = parse_model(ToolSetConfig, data, what="toolset")
        except Problem as problem:
            self.reader.fail(problem, text, path)
            return
        self.add_toolset(LoadedToolset(toolset, path, trailmap), text, ())

    def add_toolset(self, toolset: LoadedToolset, text: str | None, base: tuple[Any, ...]) -> None:
        existing = self.catalog.toolsets.get(toolset.config.id)
        if existing is not None:
            self.reader.fail(Problem(f"toolset '{toolset.config.id}' is defined twice: here and in "
                                     f"{existing.file or 'trailblaze.yaml'}", ("id",)), text, toolset.file, base)
            return
        self.catalog.toolsets[toolset.config.id] = toolset

    def add_target(self, target: Target, file: Path | None, base: tuple[Any, ...]) -> None:
        existing = self.catalog.targets.get(target.id)
        if existing is not None:
            self.reader.fail(Problem(f"target '{target.id}' is defined twice: here and in {existing.file}", ()),
                             maybe_text(file), file, base)
            return
        self.catalog.targets[target.id] = target
