"""The toolbox: which tools a session offers, for ``trailblaze tools`` and for the agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .config import find_workspace, load_workspace
from .driver import DeviceInfo, DriverRegistry
from .logs import SessionLog
from .memory import Memory
from .plugins import PluginHost, get_host
from .session import Session
from .tools.base import ToolDefinition
from .tools.descriptors import describe
from .tools.registry import ToolRegistry


def listing_session(*, driver: str | None, target: str | None, workspace: Path | None,
                    host: PluginHost | None = None) -> Session:
    """A session that is never started: enough context for plugins to filter and describe tools."""
    host = host or get_host()
    root = workspace.resolve() if workspace else find_workspace()
    config = load_workspace(root, host)
    registry = ToolRegistry()
    host.register_tools(registry, config)
    device = DeviceInfo(platform="any", driver="any")
    if driver:
        drivers = DriverRegistry()
        host.register_drivers(drivers)
        cls = drivers.resolve(driver)
        device = DeviceInfo(platform=cls.platform, driver=cls.key, classifiers=list(cls.default_classifiers))
    log_dir = config.root / "logs" / "_listing"
    return Session(id="listing", host=host, workspace=config, registry=registry, memory=Memory(),
                   log=SessionLog(log_dir, "listing", enabled=False), log_dir=log_dir, device=device,
                   target=target, options={"listing": True})


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
                 include_hidden: bool = False, workspace: Path | None = None) -> list[dict[str, Any]]:
    session = listing_session(driver=driver, target=target, workspace=workspace)
    host = session.host
    # Listing runs the session hooks too, so plugins whose tools only exist per session (MCP servers)
    # can list them; ``session.options["listing"]`` tells them no trail will run.
    from .session import SessionOutcome

    try:
        host.session_started(session)
        tools = session_tools(session, for_llm=not include_hidden)
    finally:
        host.session_finished(session, SessionOutcome.SUCCEEDED)
    if search:
        needle = search.lower()
        tools = [t for t in tools if needle in t.name.lower() or needle in (t.description or "").lower()]
    entries = []
    for t in tools:
        d = describe(t, host)
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
