"""What a workspace's catalog holds: its trailmaps, tool definitions, toolsets, targets and the problems
found loading them (``catalog.py`` loads it; ``cache.py`` keeps it between invocations)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from trailblaze import SourceLocation, ToolDefinition, ToolSource, TrailblazeError

from .models import TargetConfig, ToolSetConfig, TrailmapManifest
from .toolfile import MetadataTool


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
