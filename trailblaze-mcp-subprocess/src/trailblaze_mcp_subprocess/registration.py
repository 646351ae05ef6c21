"""Which of a server's tools a session registers, and as what: the ``McpToolDefinition`` built from the
listed tool and its Trailblaze metadata (``_meta`` and the ``trailblaze://registry`` resource), tools
filtered out for this device or agent mode, tools a ``script:`` file declared, and the changes a
``reloadTools`` brings."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from trailblaze import BadInputError, ToolSource

from .definitions import McpToolDefinition, sanitize_schema
from .meta import ToolMeta, filter_reason, merge, parse_tool_meta
from .running import RunningServer
from .wire import ListedTool

UNAVAILABLE_META = "trailblaze/unavailable"
"""``_meta`` key of a listed tool whose module could not load (``js/serve_module.mjs``): the reason."""

if TYPE_CHECKING:
    from trailblaze import Session

    from .config import ServerSpec


def register_all(session: Session, specs: list[ServerSpec], servers: dict[str, RunningServer]) -> None:
    """Register every started server's tools, in declaration order (collisions are reported
    deterministically), and log what each server serves."""
    registry = session.registry
    for spec in specs:
        rs = servers[spec.name]
        listed = {t.name for t in rs.tools}
        missing = [n for n in spec.declared if n not in listed]
        if missing:
            raise BadInputError(f"{rs.label} does not serve tool(s) {', '.join(missing)} that "
                                f"{spec.source} declares (it lists: {', '.join(sorted(listed)) or 'none'})")
        for tool in rs.tools:
            if tool.name in spec.declared:
                adopt_declared(session, rs, tool)
                continue
            definition = tool_definition(session, rs, tool)
            if definition is None:
                continue
            registry.add(definition)
            rs.registered.append(tool.name)
        session.log.write("McpServerStartedLog", {
            "server": spec.name, "transport": spec.transport,
            "command": list(rs.launch.argv) if rs.launch else None, "url": spec.url,
            "runtime": rs.launch.runtime if rs.launch else None,
            "pid": rs.process.pid if rs.process else None,
            "serverInfo": {"name": rs.conn.hello.name, "version": rs.conn.hello.version} if rs.conn else None,
            "tools": [t.name for t in rs.tools], "registered": rs.registered, "skipped": rs.skipped,
        })


def adopt_declared(session: Session, rs: RunningServer, tool: ListedTool) -> None:
    """A tool a ``script:`` file declared: already registered; take the server's schema if it gave none, and
    the reason its module could not load if it says so."""
    existing = session.registry.get(tool.name)
    if isinstance(existing, McpToolDefinition) and existing.input_schema is None and tool.input_schema:
        existing = replace(existing, input_schema=sanitize_schema(tool.input_schema))
        session.registry.replace(existing)
    unavailable = tool.meta.get(UNAVAILABLE_META)
    if isinstance(existing, McpToolDefinition) and isinstance(unavailable, str):
        # The module failed to load: its calls fail, and ``check`` reports it for the trails calling it.
        session.registry.replace(replace(existing, meta={**existing.meta, UNAVAILABLE_META: unavailable}))
    rs.registered.append(tool.name)


def _meta_for(rs: RunningServer, tool: ListedTool) -> ToolMeta:
    reg = rs.registry.tools.get(tool.name) if rs.registry is not None else None
    return merge(parse_tool_meta(tool.meta), reg)


def tool_definition(session: Session, rs: RunningServer, tool: ListedTool) -> McpToolDefinition | None:
    """The tool as this session registers it, or None (with the reason in ``rs.skipped``) when its
    metadata filters it out."""
    meta = _meta_for(rs, tool)
    device = session.device
    any_device = device.driver == "any"
    reason = filter_reason(meta, driver=None if any_device else device.driver,
                           platform=None if any_device else device.platform,
                           host_agent=session.options.agent_mode != "ondevice")
    if reason is not None:
        rs.skipped[tool.name] = reason
        return None
    toolsets = tuple(dict.fromkeys(([meta.toolset] if meta.toolset else []) + list(meta.groups)))
    extra_meta = dict(tool.meta)
    if rs.registry is not None:
        for group in meta.groups:
            info = rs.registry.groups.get(group)
            if info is not None:
                extra_meta.setdefault("trailblaze/groups", {})[group] = {
                    "description": info.description, "defaultEnabled": info.default_enabled}
    spec = rs.spec
    return McpToolDefinition(
        name=tool.name, description=tool.description,
        source=ToolSource(file=spec.script if spec.script is not None else spec.source.file,
                          line=None if spec.script is not None else spec.source.line, server=spec.name),
        surface_to_llm=meta.surface, is_recordable=meta.recordable, requires_host=meta.host_only,
        is_read_only=tool.read_only, delegating=bool(meta.is_delegating),
        platforms=frozenset(p.lower() for p in meta.supported_platforms) or None,
        drivers=frozenset(meta.supported_drivers) or None,
        trailmap=spec.trailmap, toolsets=toolsets, meta=extra_meta,
        server=spec.name, input_schema=sanitize_schema(tool.input_schema))


def update_registered(session: Session, rs: RunningServer, name: str) -> tuple[list[str], list[str]]:
    """After ``rs.tools`` was listed again: drop vanished tools, register new ones, replace changed ones
    (the tools a ``script:`` file declared stay). Returns (added, removed)."""
    registry = session.registry
    added: list[str] = []
    removed: list[str] = []
    listed = {t.name: t for t in rs.tools}
    for old in list(rs.registered):
        if old not in listed and old not in rs.spec.declared:
            registry.remove(old)
            rs.registered.remove(old)
            removed.append(old)
    rs.skipped = {}
    for tool in rs.tools:
        if tool.name in rs.spec.declared:
            continue
        definition = tool_definition(session, rs, tool)
        current = registry.get(tool.name)
        if tool.name in rs.registered:
            if definition is None:
                registry.remove(tool.name)
                rs.registered.remove(tool.name)
                removed.append(tool.name)
            elif isinstance(current, McpToolDefinition) and current.server == name:
                registry.replace(definition)
            continue
        if definition is None:
            continue
        registry.add(definition)
        rs.registered.append(tool.name)
        added.append(tool.name)
    return added, removed
