"""``WorkspaceLoader``: what the workspace's own configuration adds to the catalog after the trailmaps —
``tools:``, ``toolsets:`` and ``targets:`` of ``trails/config/trailblaze.yaml`` (inline or by ``ref:``) and
the flat ``trails/config/targets/<id>.yaml`` files."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import ToolSource, TrailblazeError, plain_data, read_yaml_text

from .catalog_model import Catalog, LoadedToolset, Target, Trailmap
from .entries import CatalogEntries
from .models import TargetConfig, ToolSetConfig, parse_model
from .problems import Problem
from .reading import CatalogReader, yaml_files
from .toolfile import ToolFileContext, load_tool

if TYPE_CHECKING:
    from trailblaze import PluginHost, WorkspaceConfig


class WorkspaceLoader:
    """Loads ``config``'s sections and flat targets into ``catalog`` (whose trailmaps are loaded already: a
    ``ref:`` into one credits its tools to it); files enter through ``entries``, errors go to ``reader``."""

    def __init__(self, catalog: Catalog, reader: CatalogReader, entries: CatalogEntries,
                 config: WorkspaceConfig, host: PluginHost, workspace_source: ToolSource) -> None:
        self.catalog = catalog
        self.reader = reader
        self.entries = entries
        self.config = config
        self.host = host
        self.workspace_source = workspace_source
        self._config_text: str | None = None

    def load(self) -> None:
        self.load_sections()
        self.load_flat_targets()

    def config_text(self) -> str | None:
        if self._config_text is None and self.config.file is not None:
            self._config_text = read_yaml_text(self.config.file)
        return self._config_text

    def load_sections(self) -> None:
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
                self.reader.fail(problem, text, path, base)
                continue
            self.entries.add_toolset(LoadedToolset(toolset, path, None), text, base)
        for i, entry in enumerate(_as_list(data.get("tools"))):
            if isinstance(entry, Mapping) and "ref" in entry:
                loaded = self._ref_or_inline(entry, ("tools", i))
                if loaded is not None and loaded[0] is not None:
                    self.entries.load_tool_file(loaded[0], self._trailmap_of(loaded[0]), in_tools_dir=True)
                continue
            ctx = ToolFileContext(file=file or self.config.config_dir / "trailblaze.yaml", text=self.config_text(),
                                  source=self.workspace_source, kind=None, base=("tools", i))
            try:
                loaded_tool = load_tool(plain_data(entry), ctx, self.host, self.config)
            except Problem as problem:
                self.reader.fail(problem, self.config_text(), file, ("tools", i))
                continue
            except TrailblazeError as exc:
                self.reader.fail_error(exc, file)
                continue
            self.entries.accept(loaded_tool.definitions, loaded_tool.metadata, None)
        targets = data.get("targets")
        if targets is not None:
            self.catalog.enabled_targets = [str(t) for t in _as_list(targets)]

    def _ref_or_inline(self, entry: Any, where: tuple[Any, ...]) -> tuple[Path | None, str | None, Any,
                                                                             tuple[Any, ...]] | None:
        file = self.config.file
        if isinstance(entry, Mapping) and "ref" in entry:
            if len(entry) > 1:
                others = ", ".join(str(k) for k in entry if k != "ref")
                self.reader.fail(Problem(f"a 'ref:' entry may not have other keys ({others})", where),
                                 self.config_text(), file)
                return None
            ref = str(entry["ref"]).lstrip("/")
            path = self.config.config_dir / ref
            if self.reader.watch(path) is None or not path.is_file():
                self.reader.fail(Problem(f"ref '{entry['ref']}' does not exist (paths are relative to "
                                         f"{self.config.config_dir})", (*where, "ref")), self.config_text(), file)
                return None
            if where[0] == "tools":
                return path, None, None, ()
            read = self.reader.read(path)
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
        for path in yaml_files(self.config.config_dir / "targets", self.reader.watch, recursive=False):
            read = self.reader.read(path)
            if read is None:
                continue
            text, data = read
            try:
                target = parse_model(TargetConfig, data, what="target")
                if target.id is None:
                    raise Problem("a target file needs an 'id'")
            except Problem as problem:
                self.reader.fail(problem, text, path)
                continue
            self.entries.add_target(Target(target.id or path.stem, target, None, path), path, ())
        enabled = self.catalog.enabled_targets
        if enabled:
            config_text = self.config_text()
            for i, tid in enumerate(enabled):
                if tid not in self.catalog.targets:
                    known = ", ".join(sorted(self.catalog.targets)) or "none"
                    self.reader.fail(Problem(f"target '{tid}' is not defined by any trailmap or targets/ file "
                                             f"(known: {known})", ("targets", i)), config_text, self.config.file)


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]
