"""Every tool a workspace can offer, for commands that read files instead of running them.

``trailblaze check`` and ``trailblaze schema`` need the tools a run would have: the registered ones and
those the declared MCP servers serve. Those servers only list their tools once started, so this runs the
session hooks on a listing session (as ``trailblaze tools`` does) and stops them again on every path.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import load_workspace
from ..tools.registry import ToolRegistry

if TYPE_CHECKING:
    from ..config import WorkspaceConfig
    from ..plugins import PluginHost
    from ..tools.codec import ToolCodec


@contextmanager
def workspace_tools(root: Path | None, host: PluginHost, *,
                    start_servers: bool = True) -> Iterator[tuple[WorkspaceConfig, ToolRegistry, ToolCodec]]:
    """``(config, registry, codec)``, the codec decoding over that registry as a run would; with
    ``start_servers``, the registry includes the tool servers' tools."""
    if not start_servers:
        config = load_workspace(root, host)
        registry = ToolRegistry()
        host.register_tools(registry, config)
        yield config, registry, host.codec(registry)
        return
    from ..runner.lifecycle import SessionFactory
    from ..runner.options import RunOptions

    # The one session lifecycle, driver never started: plugins' session hooks start the declared tool
    # servers (which then list their tools) and are told to finish on every path. Not a listing for the
    # user (plugins print their file problems when listing); the caller reports findings itself.
    options = RunOptions(logging=False, report=False, save_recording=False, test_name="learning-tools")
    factory = SessionFactory(options, host=host, show_findings=False, load_drivers=False)
    with factory.open(workspace=root, start_driver=False) as lifecycle:
        session = lifecycle.session
        yield session.workspace, session.registry, session.codec
