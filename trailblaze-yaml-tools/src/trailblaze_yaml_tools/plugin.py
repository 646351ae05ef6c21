"""The ``yaml_tools`` plugin: hook implementations only; the work lives in the modules they call.

* ``trailblaze_register_tools`` — every tool of the workspace's catalog (trailmaps, packaged trailmaps,
  ``trailblaze.yaml``); a name another source also registers fails with one message naming both.
* ``trailblaze_config_sections`` — claims ``tools``, ``toolsets`` and ``targets`` of ``trailblaze.yaml``.
* ``trailblaze_trailmap_dirs`` — ships the framework trailmap ``trailblaze`` (platform defaults).
* ``trailblaze_filter_tools`` — narrows a session to its target's effective tool set.
* ``trailblaze_check_tools`` — file errors, trailmap problems, tool bodies, trailmap-scoping advisories.
* ``trailblaze_tool_descriptor`` — describes YAML tools (with shortcut/trailhead metadata for MCP).
* ``trailblaze_execute_tool`` — runs a YAML tool: its body, with the arguments substituted, as calls.
* ``trailblaze_session_started`` — applies metadata-only files to tools registered per session, and
  prints file errors when ``trailblaze tools`` lists (no check runs there).
* ``trailblaze_target_info`` — a target as its trailmap declares it (app ids, web base URL, and the
  ``system_prompt_file`` text the LLM agent gets), read by drivers and the agent as ``session.target_info``.
* ``trailblaze_json_schemas`` — editor schemas of tool files, trailmaps, toolsets and our sections.

The catalog (its models, cache and readers) is imported by the hooks that read a workspace, not here: a
command that loads every plugin without reading a workspace (``merge-reports``, ``--help``) must not pay
for it. Nor is ``definitions``: two hooks ask on every tool call whether a definition is a YAML tool, and
none can be before that module is imported (``_yaml_tool``).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze import (CheckReport, PluginHost, Session, TargetInfo, ToolCall, ToolContext,
                            ToolDefinition, ToolDescriptor, ToolRegistry, WorkspaceConfig)

    from .catalog import Catalog
    from .definitions import YamlToolDefinition

PACKAGED_TRAILMAPS = Path(__file__).parent / "trailmaps"
_DEFINITIONS = f"{__package__}.definitions"


def _yaml_tool(definition: ToolDefinition) -> YamlToolDefinition | None:
    """``definition`` if it is a YAML tool: a dictionary lookup, not an import, on every tool call."""
    module = sys.modules.get(_DEFINITIONS)
    if module is not None and isinstance(definition, module.YamlToolDefinition):
        return cast("YamlToolDefinition", definition)
    return None


@hookimpl
def trailblaze_config_sections() -> dict[str, type[Any]]:
    # Plain ``list``: the core checks nothing more; this plugin validates each entry with its location.
    return {"tools": list, "toolsets": list, "targets": list}


@hookimpl
def trailblaze_trailmap_dirs() -> list[Path]:
    return [PACKAGED_TRAILMAPS]


@hookimpl(trylast=True)  # after the others: metadata-only files annotate tools other plugins register
def trailblaze_register_tools(registry: ToolRegistry, config: WorkspaceConfig, host: PluginHost) -> None:
    # imported here: loading the plugin for merge-reports/--help must not pay for the catalog
    from .catalog import catalog_for

    catalog = catalog_for(config, host, registry.current_source)
    for definition in catalog.definitions:
        registry.add(definition)
    _apply_metadata(catalog, registry)


def _apply_metadata(catalog: Catalog, registry: ToolRegistry) -> list[str]:
    """Attach metadata-only files to their tools; return the names not (yet) registered."""
    missing = []
    for item in catalog.metadata:
        definition = registry.get(item.name)
        if definition is None:
            missing.append(item.name)
            continue
        if all(definition.meta.get(k) == v for k, v in item.meta.items()):
            continue
        registry.replace(replace(definition, meta={**definition.meta, **item.meta}))
    return missing


@hookimpl
def trailblaze_filter_tools(session: Session, tools: list[ToolDefinition]) -> list[ToolDefinition] | None:
    from .catalog import cached_catalog  # imported here, as in trailblaze_register_tools
    from .toolsets import effective_set

    config = session.workspace
    target = session.target or config.defaults.target
    if not target:
        return None
    catalog = cached_catalog(config)  # loaded when this workspace's tools were registered
    if catalog is None:
        return None
    if target not in catalog.targets and not session.options.listing:
        # Upstream trails may name an app id or URL as their target: with no trailmap for it, a run
        # offers every tool. Asking `trailblaze tools --target` for an unknown id is an error instead.
        return None
    device = session.device
    names = effective_set(catalog, target, platform=device.platform, driver=device.driver,
                          tools=session.registry).names
    return [t for t in tools if t.name in names]


@hookimpl
def trailblaze_check_tools(registry: ToolRegistry, report: CheckReport, config: WorkspaceConfig) -> None:
    from .catalog import cached_catalog  # imported here, as in trailblaze_register_tools
    from .checks import check_waypoints, run_checks

    catalog = cached_catalog(config)
    if catalog is None:
        return  # nothing of ours was registered for this workspace
    missing = _apply_metadata(catalog, registry)
    run_checks(catalog, registry, report, metadata_missing=missing)
    check_waypoints(config, registry, report)


@hookimpl
def trailblaze_json_schemas() -> dict[str, dict[str, Any]]:
    from .schemas import json_schemas

    return json_schemas()


@hookimpl
def trailblaze_tool_descriptor(definition: ToolDefinition) -> ToolDescriptor | None:
    if _yaml_tool(definition) is None:
        return None
    from trailblaze import default_descriptor

    descriptor = default_descriptor(definition)
    extra = {f"trailblaze/{k}": definition.meta[k] for k in ("shortcut", "trailhead") if k in definition.meta}
    return replace(descriptor, meta={**descriptor.meta, **extra}) if extra else descriptor


@hookimpl
def trailblaze_execute_tool(definition: ToolDefinition, prepared: Any, context: ToolContext) -> list[ToolCall] | None:
    tool = _yaml_tool(definition)
    return None if tool is None else tool.expansion(prepared, context)


@hookimpl
def trailblaze_session_started(session: Session) -> None:
    from .catalog import cached_catalog  # imported here, as in trailblaze_register_tools

    catalog = cached_catalog(session.workspace)
    if catalog is None:
        return
    _apply_metadata(catalog, session.registry)
    if session.options.listing:
        for error in catalog.errors:
            print(f"trailblaze: error: {error}", file=sys.stderr)
        for advisory in catalog.advisories:
            where = f"{advisory.location}: " if advisory.location and advisory.location.file else ""
            print(f"{where}warning: [{advisory.check}] {advisory.message}", file=sys.stderr)


@hookimpl
def trailblaze_target_info(target: str, config: WorkspaceConfig) -> TargetInfo | None:
    """The target as its trailmap (or ``targets:`` entry) declares it; ``system_prompt_file`` is read here."""
    from .catalog import cached_catalog  # imported here, as in trailblaze_register_tools

    catalog = cached_catalog(config)
    found = catalog.targets.get(target) if catalog is not None else None
    if found is None:
        return None
    from trailblaze import PlatformTarget, TargetInfo

    cfg = found.config
    prompt: str | None = None
    if cfg.system_prompt_file and found.file is not None:
        from .toolfile import resolve_relative

        try:
            prompt = resolve_relative(cfg.system_prompt_file, found.file).read_text(encoding="utf-8").strip() or None
        except OSError:
            prompt = None  # the catalog's checks report a missing file with its location
    platforms = {name.lower(): PlatformTarget(app_ids=list(p.app_ids or []), base_url=p.base_url)
                 for name, p in cfg.platforms.items() if p is not None}
    manifest = found.trailmap.manifest if found.trailmap is not None else None
    validation = manifest.trail_validation if manifest is not None else None
    exempt = validation.exempt.strip() if validation is not None and validation.exempt else None
    return TargetInfo(id=found.id, display_name=cfg.display_name, platforms=platforms, system_prompt=prompt,
                      validation_exempt=exempt or None)
