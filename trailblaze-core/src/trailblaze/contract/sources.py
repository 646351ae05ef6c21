"""Who contributed an entry to a registry (tools, drivers, LLM provider types).

Every registry records its contributors the same way; the three registries live in three layers (the
tool model, the driver contract, the LLM providers), so the shared part sits below all of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ToolSource:
    """Who contributed a tool, so listings and conflicts can name it."""

    plugin: str | None = None
    distribution: str | None = None
    version: str | None = None
    file: Path | str | None = None
    server: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        parts: list[str] = []
        if self.file is not None:
            where = str(self.file)
            if self.line is not None:
                where += f":{self.line}"
            parts.append(f"file {where}")
        if self.server is not None:
            parts.append(f"MCP server '{self.server}'")
        if self.plugin is not None:
            dist = f" ({self.distribution} {self.version})" if self.distribution else ""
            parts.append(f"plugin '{self.plugin}'{dist}")
        return ", ".join(parts) if parts else "unknown source"

    def to_json(self) -> dict[str, Any]:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in
                {"plugin": self.plugin, "distribution": self.distribution, "version": self.version,
                 "file": self.file, "server": self.server, "line": self.line}.items() if v is not None}


class Contributions:
    """How every registry (tools, drivers, LLM provider types) records which plugin contributed an entry.

    The plugin host calls each plugin's registration hook inside ``registry.contributing(source)``;
    whatever the registry adds meanwhile is attributed to ``current_source``, so conflicts and listings
    name the plugin without plugins having to say who they are."""

    _current_source: ToolSource | None = None

    @contextmanager
    def contributing(self, source: ToolSource) -> Iterator[None]:
        previous = self._current_source
        self._current_source = source
        try:
            yield
        finally:
            self._current_source = previous

    @property
    def current_source(self) -> ToolSource | None:
        return self._current_source


__all__ = ["Contributions", "ToolSource"]
