"""Which tools the workbench offers a client: the session's toolbox minus host-only tools (unless
allowed) and the server's own tool names, as MCP descriptors, the toolbox listing and the registry
document."""

from __future__ import annotations

from typing import Any

from ..errors import UnknownToolError
from ..tools.base import ToolDefinition
from .bench_state import BenchState

__all__ = ["SESSION_TOOLS", "ToolOffering"]

SESSION_TOOLS = ("device", "snapshot", "step", "verify", "trail", "toolbox")
"""The server's own tools; a toolbox tool with one of these names is not offered directly."""


class ToolOffering(BenchState):
    """The tools offered over MCP for the connected session (or the workspace when none is)."""

    def offered_tools(self) -> list[ToolDefinition]:
        """The connected session's toolbox as the agent sees it (driver-filtered, narrowed by plugins,
        hidden tools left out), minus host-only tools unless the server was started with them allowed."""
        c = self.connected
        if c is None:
            return []
        from ..listings.session_tools import session_tools

        tools = session_tools(c.session, for_llm=True)
        if self.settings.allow_host_tools:
            names = {t.name for t in tools}
            tools += [t for t in session_tools(c.session) if t.requires_host and t.name not in names]
        else:
            tools = [t for t in tools if not t.requires_host]
        return [t for t in tools if t.name not in SESSION_TOOLS]

    def descriptors(self) -> list[dict[str, Any]]:
        """MCP ``Tool`` shapes of ``offered_tools``, through the descriptor hook like the agent's
        (device thread; ``tool_descriptors`` is the copy any thread may read)."""
        c = self.connected
        if c is None:
            return []
        return [c.session.codec.describe(t).mcp() for t in self.offered_tools()]

    def refresh_tools(self, *, force: bool = False) -> bool:
        """Recompute ``tool_descriptors`` (device thread) after anything that can change the toolbox: a
        device connected or ended (``force``), or a call that changed the session's registry
        (``reloadTools`` of a tool server; checked by the identity of its definitions, so an ordinary
        call costs no descriptor work). Returns whether the list changed: clients must be told."""
        registry = self.connected.session.registry if self.connected is not None else None
        fingerprint = tuple(id(t) for t in registry) if registry is not None else ()
        if not force and fingerprint == self._registry_fingerprint:
            return False
        self._registry_fingerprint = fingerprint
        fresh = self.descriptors()
        changed = fresh != self.tool_descriptors
        self.tool_descriptors = fresh
        return changed

    def toolbox(self, search: str | None = None, include_hidden: bool = False) -> list[dict[str, Any]]:
        """``trailblaze tools`` for the connected driver (or every driver when none is connected)."""
        from ..listings.toolbox import list_toolbox

        driver = self.connected.driver.key if self.connected is not None else None
        entries = list_toolbox(driver=driver, target=self.settings.target, search=search,
                               include_hidden=include_hidden, workspace=self.ws.config.root)
        if not self.settings.allow_host_tools:
            entries = [e for e in entries if not e["requiresHost"]]
        return [{k: e[k] for k in ("name", "description", "source", "surfaceToLlm", "isRecordable",
                                   "isVerification", "requiresHost", "drivers", "platforms", "toolsets")}
                for e in entries]

    def registry_document(self) -> dict[str, Any]:
        """``trailblaze://registry``: the shape tool servers publish (Decision 029), for this workspace's
        registry (the connected session's, with its per-session tools, when a device is connected)."""
        from .._version import __version__

        registry = self.connected.session.registry if self.connected is not None else self.ws.registry
        tools: dict[str, Any] = {}
        groups: dict[str, dict[str, Any]] = {}
        for t in sorted(registry, key=lambda d: d.name):
            if t.requires_host and not self.settings.allow_host_tools:
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

    def _offered(self, name: str) -> ToolDefinition:
        c = self._require()
        for t in self.offered_tools():
            if t.name == name:
                return t
        definition = c.session.registry.get(name)
        if definition is not None and definition.requires_host and not self.settings.allow_host_tools:
            raise UnknownToolError(f"tool '{name}' runs programs on this machine and is not offered over MCP",
                                   hint="start `trailblaze mcp --allow-host-tools` to allow host-only tools")
        if definition is not None:
            raise UnknownToolError(f"tool '{name}' is not offered on driver '{c.driver.key}'",
                                   hint="the 'toolbox' tool lists what is")
        from ..session import suggest_tool_name

        raise UnknownToolError(f"unknown tool '{name}'", hint=suggest_tool_name(name, c.session.registry))
