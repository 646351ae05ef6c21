"""The toolbox: which tools a session offers, for ``trailblaze tools`` and for the agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .plugins import PluginHost
from .runner.lifecycle import SessionFactory
from .runner.options import RunOptions
from .session import Session
from .tools.base import ToolDefinition


def session_tools(session: Session, *, for_llm: bool = False, verification_only: bool = False) -> list[ToolDefinition]:
    """The tools this session offers: supported by its driver, narrowed by plugins (toolsets)."""
    device = session.device
    any_device = device.driver == "any"
    tools = session.registry.for_device(driver=None if any_device else device.driver,
                                        platform=None if any_device else device.platform)
    if for_llm:
        tools = [t for t in tools if t.surface_to_llm]
    if verification_only:
        tools = [t for t in tools if t.is_verification]
    return session.host.filter_tools(session, tools)


def list_toolbox(*, driver: str | None = None, target: str | None = None, search: str | None = None,
                 include_hidden: bool = False, workspace: Path | None = None,
                 host: PluginHost | None = None) -> list[dict[str, Any]]:
    # Listing opens a session (plugin session hooks included, the driver never started) so plugins
    # whose tools only exist per session (MCP servers) can list them; ``session.options["listing"]``
    # tells them no trail will run.
    options = RunOptions(logging=False, report=False, save_recording=False, test_name="listing")
    factory = SessionFactory(options, host=host, show_findings=False)  # listing runs no checks' report
    with factory.open(workspace=workspace, driver=driver, target=target, start_driver=False,
                      extra={"listing": True}) as lifecycle:
        session = lifecycle.session
        codec = session.codec
        tools = session_tools(session, for_llm=not include_hidden)
    if search:
        needle = search.lower()
        tools = [t for t in tools if needle in t.name.lower() or needle in (t.description or "").lower()]
    entries = []
    for t in tools:
        d = codec.describe(t)
        entries.append({
            "name": t.name, "kind": t.kind, "description": t.description, "source": str(t.source),
            "sourceInfo": t.source.to_json(), "surfaceToLlm": t.surface_to_llm, "isRecordable": t.is_recordable,
            "requiresHost": t.requires_host, "isVerification": t.is_verification, "delegating": t.delegating,
            "drivers": sorted(t.drivers) if t.drivers is not None else None,
            "platforms": sorted(t.platforms) if t.platforms is not None else None,
            "trailmap": t.trailmap, "toolsets": list(t.toolsets),
            "inputSchema": d.input_schema, "openai": d.openai(), "mcp": d.mcp(),
        })
    return entries
