"""The toolbox: the tool listing of ``trailblaze tools``, over ``session_tools`` (re-exported here)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import PluginToolError
from ..plugins import PluginHost
from ..runner.lifecycle import SessionFactory
from ..runner.options import RunOptions
from ..session import session_tools


def list_toolbox(*, driver: str | None = None, target: str | None = None, search: str | None = None,
                 include_hidden: bool = False, workspace: Path | None = None,
                 host: PluginHost | None = None,
                 unbuildable: Callable[[PluginToolError], None] | None = None) -> list[dict[str, Any]]:
    """The entries of ``trailblaze tools``. A tool whose model cannot be built is left out and handed to
    ``unbuildable`` (one broken plugin tool does not hide the others); without it, it raises."""
    # Listing opens a session (plugin session hooks included, the driver never started) so plugins
    # whose tools only exist per session (MCP servers) can list them; ``session.options.listing``
    # tells them no trail will run.
    options = RunOptions(logging=False, report=False, save_recording=False, test_name="listing")
    factory = SessionFactory(options, host=host, show_findings=False)  # listing runs no checks' report
    with factory.open(workspace=workspace, driver=driver, target=target, start_driver=False,
                      listing=True) as lifecycle:
        session = lifecycle.session
        codec = session.codec
        tools = session_tools(session, for_llm=not include_hidden)
    if search:
        needle = search.lower()
        tools = [t for t in tools if needle in t.name.lower() or needle in (t.description or "").lower()]
    entries = []
    for t in tools:
        try:
            d = codec.describe(t)
        except PluginToolError as exc:
            if unbuildable is None:
                raise
            unbuildable(exc)
            continue
        entries.append({
            "name": t.name, "kind": t.kind, "description": t.description, "source": str(t.source),
            "sourceInfo": t.source.to_json(), "surfaceToLlm": t.surface_to_llm, "isRecordable": t.is_recordable,
            "requiresHost": t.requires_host, "isVerification": t.is_verification, "isReadOnly": t.is_read_only, "isCore": t.is_core,
            "delegating": t.delegating,
            "drivers": sorted(t.drivers) if t.drivers is not None else None,
            "platforms": sorted(t.platforms) if t.platforms is not None else None,
            "trailmap": t.trailmap, "toolsets": list(t.toolsets),
            "inputSchema": d.input_schema, "openai": d.openai(), "mcp": d.mcp(),
        })
    return entries
