"""Which tools the workbench offers a client: the session's toolbox minus host-only tools (unless
allowed) and the server's own tool names, as MCP descriptors, the toolbox listing and the registry
document."""

from __future__ import annotations

from typing import Any

from ..errors import UnknownToolError
from ..runner.workspace import ToolWorkspace
from ..session import Session, suggest_tool_name
from ..tools.base import ToolDefinition
from .bench_state import deprecated_slice


def __getattr__(name: str) -> Any:
    if name == "ToolOffering":
        return deprecated_slice(__name__, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["SESSION_TOOLS", "ToolOffer"]

SESSION_TOOLS = ("device", "snapshot", "step", "verify", "trail", "toolbox")
"""The server's own tools; a toolbox tool with one of these names is not offered directly."""


class ToolOffer:
    """The tools offered over MCP for a session (or the workspace when none is connected), and the
    copy of their descriptors any thread may read."""

    def __init__(self, ws: ToolWorkspace, *, allow_host_tools: bool = False, target: str | None = None) -> None:
        self.ws = ws
        self.allow_host_tools = allow_host_tools
        self.target = target
        self.tool_descriptors: list[dict[str, Any]] = []
        """The offered device tools as of the last device-thread operation; read by ``tools/list`` without
        waiting for a long call on the device to finish."""
        self._registry_fingerprint: tuple[int, ...] = ()

    def offered_tools(self, session: Session | None) -> list[ToolDefinition]:
        """``session``'s toolbox as the agent sees it (driver-filtered, narrowed by plugins, hidden tools
        left out), minus host-only tools unless the server was started with them allowed."""
        if session is None:
            return []
        from ..session import session_tools

        tools = session_tools(session, for_llm=True)
        if self.allow_host_tools:
            names = {t.name for t in tools}
            tools += [t for t in session_tools(session) if t.requires_host and t.name not in names]
        else:
            tools = [t for t in tools if not t.requires_host]
        return [t for t in tools if t.name not in SESSION_TOOLS]

    def descriptors(self, session: Session | None) -> list[dict[str, Any]]:
        """MCP ``Tool`` shapes of ``offered_tools``, through the descriptor hook like the agent's
        (device thread; ``tool_descriptors`` is the copy any thread may read)."""
        if session is None:
            return []
        return [session.codec.describe(t).mcp() for t in self.offered_tools(session)]

    def refresh(self, session: Session | None, *, force: bool = False) -> bool:
        """Recompute ``tool_descriptors`` (device thread) after anything that can change the toolbox: a
        device connected or ended (``force``), or a call that changed the session's registry
        (``reloadTools`` of a tool server; checked by the identity of its definitions, so an ordinary
        call costs no descriptor work). Returns whether the list changed: clients must be told."""
        fingerprint = tuple(id(t) for t in session.registry) if session is not None else ()
        if not force and fingerprint == self._registry_fingerprint:
            return False
        self._registry_fingerprint = fingerprint
        fresh = self.descriptors(session)
        changed = fresh != self.tool_descriptors
        self.tool_descriptors = fresh
        return changed

    def clear(self) -> None:
        """No device, no device tools (before the device is ended: ``tools/list`` stops offering them)."""
        self.tool_descriptors = []
        self._registry_fingerprint = ()

    def toolbox(self, driver: str | None, search: str | None = None,
                include_hidden: bool = False) -> list[dict[str, Any]]:
        """``trailblaze tools`` for ``driver`` (every driver when None)."""
        from ..listings.toolbox import list_toolbox

        entries = list_toolbox(driver=driver, target=self.target, search=search,
                               include_hidden=include_hidden, workspace=self.ws.config.root)
        if not self.allow_host_tools:
            entries = [e for e in entries if not e["requiresHost"]]
        return [{k: e[k] for k in ("name", "description", "source", "surfaceToLlm", "isRecordable",
                                   "isVerification", "requiresHost", "drivers", "platforms", "toolsets")}
                for e in entries]

    def registry_document(self, session: Session | None) -> dict[str, Any]:
        """``trailblaze://registry``: the shape tool servers publish (Decision 029), for this workspace's
        registry (``session``'s, with its per-session tools, when a device is connected)."""
        from .._version import __version__

        registry = session.registry if session is not None else self.ws.registry
        tools: dict[str, Any] = {}
        groups: dict[str, dict[str, Any]] = {}
        for t in sorted(registry, key=lambda d: d.name):
            if t.requires_host and not self.allow_host_tools:
                continue
            tools[t.name] = {
                "platforms": sorted(t.platforms) if t.platforms is not None else [],
                "drivers": sorted(t.drivers) if t.drivers is not None else [],
                "groups": list(t.toolsets), "exposedToLlm": t.surface_to_llm, "isRecordable": t.is_recordable,
                "isDelegating": t.delegating, "isVerification": t.is_verification, "requiresHost": t.requires_host,
                "source": str(t.source), "sourceInfo": t.source.to_json(),
            }
            for g in t.toolsets:
                groups.setdefault(g, {"description": "", "tools": 0})["tools"] += 1
        return {"tools": tools, "groups": groups, "serverInfo": {"name": "trailblaze", "version": __version__}}

    def offered(self, session: Session, name: str) -> ToolDefinition:
        """The offered tool ``name``, or why a client may not call it."""
        for t in self.offered_tools(session):
            if t.name == name:
                return t
        definition = session.registry.get(name)
        if definition is not None and definition.requires_host and not self.allow_host_tools:
            raise UnknownToolError(f"tool '{name}' runs programs on this machine and is not offered over MCP",
                                   hint="start `trailblaze mcp --allow-host-tools` to allow host-only tools")
        if definition is not None:
            driver = session.driver.key if session.driver is not None else "?"
            raise UnknownToolError(f"tool '{name}' is not offered on driver '{driver}'",
                                   hint="the 'toolbox' tool lists what is")
        raise UnknownToolError(f"unknown tool '{name}'", hint=suggest_tool_name(name, session.registry))
