"""Fixtures for the YAML tools plugin: a fresh plugin host with the plugin, and workspaces on disk."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trailblaze_yaml_tools.plugin as yaml_plugin
from trailblaze.checks import CheckReport
from trailblaze.config import WorkspaceConfig, load_workspace
from trailblaze.plugins import PluginHost
from trailblaze.session import Session
from trailblaze.testing import finish_session, installed_host, make_session, new_host
from trailblaze.tools.registry import ToolRegistry
from trailblaze_yaml_tools.catalog import Catalog, catalog_for


@pytest.fixture
def host() -> Iterator[PluginHost]:
    """Core built-ins, the in-memory test driver and this plugin; no installed entry points."""
    h = new_host()
    h.register(yaml_plugin, "yaml_tools")
    with installed_host(h):
        yield h


WriteFiles = Callable[..., Path]


@pytest.fixture
def write(tmp_path: Path) -> WriteFiles:
    """``write({"trails/config/x.yaml": "..."}, root=...)``: dedented files under the workspace root."""

    def _write(files: dict[str, str], root: Path | None = None) -> Path:
        base = root or tmp_path / "ws"
        for rel, text in files.items():
            path = base / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        (base / "trails" / "config").mkdir(parents=True, exist_ok=True)
        cfg = base / "trails" / "config" / "trailblaze.yaml"
        if not cfg.exists():
            cfg.write_text("defaults: {}\n", encoding="utf-8")
        return base

    return _write


class Workspace:
    """A loaded workspace: its config, a registry filled by every plugin of ``host``, and sessions."""

    def __init__(self, host: PluginHost, root: Path) -> None:
        self.host = host
        self.root = root
        self.config: WorkspaceConfig = load_workspace(root, host)
        self.registry = ToolRegistry()
        host.register_tools(self.registry, self.config)
        self.codec = host.codec(self.registry)
        self._sessions: list[Session] = []

    @property
    def catalog(self) -> Catalog:
        return catalog_for(self.config, self.host)

    @property
    def errors(self) -> list[str]:
        """Each file error as the one line the CLI prints."""
        return [str(e) for e in self.catalog.errors]

    def check(self, *, strict: bool = False) -> CheckReport:
        report = CheckReport(strict=strict)
        self.host.check_tools(self.registry, report, self.config)
        return report

    def session(self, **kwargs: Any) -> Session:
        session = make_session(self.host, root=self.root, workspace=self.config, **kwargs)
        self._sessions.append(session)
        return session

    def close(self) -> None:
        for session in self._sessions:
            finish_session(session)


@pytest.fixture
def load(host: PluginHost) -> Iterator[Callable[[Path], Workspace]]:
    opened: list[Workspace] = []

    def _load(root: Path) -> Workspace:
        ws = Workspace(host, root)
        opened.append(ws)
        return ws

    yield _load
    for ws in opened:
        ws.close()


def tool_file(name: str, body: str, trailmap: str = "demo") -> dict[str, str]:
    return {f"trails/config/trailmaps/{trailmap}/tools/{name}.tool.yaml": body}


@pytest.fixture
def tool() -> Callable[..., dict[str, str]]:
    return tool_file
