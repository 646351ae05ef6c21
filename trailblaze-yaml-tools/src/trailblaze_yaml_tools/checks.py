"""What ``trailblaze check`` (and every ``trailblaze run``, before the first step) learns from this plugin.

Errors: tool, toolset, target and trailmap files that do not load; YAML tool bodies that call a tool with
arguments its schema rejects (of the trails that reach that tool, or of every check with ``--strict``:
see ``CheckReport.tool_error``); tool bodies and metadata files naming tools nobody registers, when the
registry is complete (``trailblaze check`` started the MCP servers). Advisories: those same names when
the servers were not started (they may serve them), skipped trailmaps, removed manifest keys,
exports and toolsets that name nothing, and the trailmap-scoping rules of seed 003.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze import CheckReport, SourceLocation, ToolRegistry, has_tokens, suggest_tool_name

from .catalog import Catalog
from .definitions import YamlToolDefinition
from .problems import Problem, located
from .scoping import check_scoping

if TYPE_CHECKING:
    from trailblaze import WorkspaceConfig


def run_checks(catalog: Catalog, registry: ToolRegistry, report: CheckReport, *,
               metadata_missing: Sequence[str] = ()) -> None:
    for error in catalog.errors:
        message = error.message + (f" ({error.hint})" if error.hint else "")
        if error.key:
            message = f"'{error.key}': {message}"
        report.error("YamlTools", message, error.location)
    for advisory in catalog.advisories:
        report.advisory(advisory.check, advisory.message, advisory.location, dedupe_key=advisory.dedupe_key)
    for item in catalog.metadata:
        if item.name in metadata_missing:
            report.unknown_tool("ToolMetadata", f"'{item.name}' has shortcut/trailhead metadata but no source "
                                f"registers a tool with that name; {suggest_tool_name(item.name, registry)}",
                                SourceLocation(item.file, item.line), dedupe_key=str(item.file))
    _check_bodies(registry, report)
    _check_target_tools(catalog, registry, report)
    _check_exports_and_toolsets(catalog, registry, report)
    check_scoping(catalog, registry, report)


def _callers(registry: ToolRegistry) -> dict[str, set[str]]:
    """Tool name → the YAML tools whose bodies reach it, directly or through other YAML tools."""
    direct: dict[str, set[str]] = {}
    for definition in registry:
        if isinstance(definition, YamlToolDefinition):
            for name in definition.body.tool_names:
                direct.setdefault(name, set()).add(definition.name)
    closed: dict[str, set[str]] = {}
    for name in direct:
        seen: set[str] = set()
        stack = list(direct[name])
        while stack:
            caller = stack.pop()
            if caller not in seen:
                seen.add(caller)
                stack.extend(direct.get(caller, ()))
        closed[name] = seen
    return closed


def _check_bodies(registry: ToolRegistry, report: CheckReport) -> None:
    callers: dict[str, set[str]] | None = None
    for definition in registry:
        if not isinstance(definition, YamlToolDefinition):
            continue
        for i, name in enumerate(definition.body.tool_names):
            if name not in registry:
                report.unknown_tool("YamlToolBody", f"tool '{definition.name}' calls unknown tool '{name}'; "
                                    f"{suggest_tool_name(name, registry)}",
                                    _call_location(definition, i, name), dedupe_key=f"{definition.name}->{name}")
        if definition.is_read_only:
            for i, name in enumerate(definition.body.tool_names):
                target = registry.get(name)
                if target is not None and not (target.is_read_only or target.is_verification):
                    report.error("YamlToolBody", f"tool '{definition.name}' says is_read_only but calls '{name}', "
                                 "which may change the app (its source does not mark it read-only)",
                                 _call_location(definition, i, name))
        for i, name, args in definition.body.constant_calls():
            target = registry.get(name)
            if target is None or has_tokens(args):
                continue
            try:
                target.prepare(dict(args))
            except ValueError as exc:
                if callers is None:
                    callers = _callers(registry)
                reaching = {definition.name, *callers.get(definition.name, ())}
                report.tool_error(reaching, "YamlToolBody", f"tool '{definition.name}' calls '{name}' with "
                                  f"arguments it rejects: {exc}", _call_location(definition, i, name))


def check_waypoints(config: WorkspaceConfig, registry: ToolRegistry, report: CheckReport) -> None:
    """Waypoint files that do not load, and shortcut/trailhead ``from``/``to`` naming no waypoint.

    A broken waypoint file matters only to ``assertWaypoint``: an error of the trails that call it (or of
    ``check --strict``), a warning otherwise. An unknown ``from``/``to`` is checked only once the
    workspace has waypoint files at all (upstream workspaces without any still name their places)."""
    from trailblaze import discover_waypoint_files

    files = discover_waypoint_files(config.config_dir)
    if not files:
        return  # nothing to load and no from/to to check: the waypoint models stay unimported
    from trailblaze import load_workspace_waypoints

    waypoints = load_workspace_waypoints(config, files)
    for error in waypoints.errors:
        report.tool_error({"assertWaypoint"}, "Waypoints", error.message, error.location)
    for message, where in waypoints.warnings:
        report.advisory("Waypoints", message, where)
    if not waypoints.by_id and not waypoints.errors:
        return
    for definition in registry:
        for kind in ("shortcut", "trailhead"):
            block = definition.meta.get(kind) if isinstance(definition.meta, dict) else None
            if not isinstance(block, dict):
                continue
            for end in ("from", "to"):
                name = block.get(end)
                if isinstance(name, str) and waypoints.get(name) is None:
                    location = _meta_location(definition, (kind, end))
                    known = some_of(waypoints.by_id, name)
                    report.advisory("Waypoints", f"{kind} '{definition.name}' {end}: '{name}' names no "
                                    f"waypoint (closest known: {known})", location,
                                    dedupe_key=f"{definition.name}:{end}")


def some_of(names: Iterable[str], near: str, limit: int = 5) -> str:
    """At most ``limit`` of ``names``, the closest to ``near`` first, then how many more: an upstream
    workspace holds hundreds of waypoint ids, and a warning is one line."""
    import difflib

    every = sorted(set(names))
    if not every:
        return "none"
    shown = difflib.get_close_matches(near, every, n=limit, cutoff=0.0)
    more = len(every) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def _meta_location(definition: object, key_path: tuple[str, ...]) -> SourceLocation | None:
    file = getattr(definition, "file", None)
    if not isinstance(file, Path) or not file.is_file():
        return None
    from trailblaze import locate_in_yaml

    try:
        return locate_in_yaml(file.read_text(encoding="utf-8"), key_path, file)
    except OSError:
        return SourceLocation(file)


def _call_location(definition: YamlToolDefinition, index: int, name: str) -> SourceLocation:
    file = definition.file
    if file is None or file.suffix not in (".yaml", ".yml") or not file.is_file():
        return SourceLocation(file)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError:
        return SourceLocation(file)
    if not file.name.endswith(("tool.yaml", "tool.yml", "shortcut.yaml", "shortcut.yml", "trailhead.yaml",
                               "trailhead.yml")):
        return SourceLocation(file)
    return located(Problem("", ("tools", index, name)), text, file).location or SourceLocation(file)


def _check_target_tools(catalog: Catalog, registry: ToolRegistry, report: CheckReport) -> None:
    """A name in a target's ``tools:`` (or a platform's) that no source registers: upstream resolves these
    names into the runtime tool list, so a typo (or a tool kind this workspace cannot load) would only
    surface as an unknown tool mid-run."""
    for target in catalog.targets.values():
        lists: list[tuple[tuple[str | int, ...], list[str]]] = [(("tools",), list(target.config.tools or []))]
        for platform_name, platform in target.config.platforms.items():
            if platform is not None:
                lists.append((("platforms", platform_name, "tools"), list(platform.tools or [])))
        for key_path, names in lists:
            for i, name in enumerate(names):
                if name in registry:
                    continue
                report.unknown_tool("TargetTools", f"target '{target.id}' lists tool '{name}', which no "
                                    f"source registers; {suggest_tool_name(name, registry)}",
                                    _target_location(target.file, (*key_path, i)),
                                    dedupe_key=f"{target.id}:{name}")


def _target_location(file: Path | None, key_path: tuple[str | int, ...]) -> SourceLocation | None:
    if file is None or not file.is_file():
        return SourceLocation(file) if file is not None else None
    from trailblaze import locate_in_yaml

    try:
        text = file.read_text(encoding="utf-8")
    except OSError:
        return SourceLocation(file)
    for prefix in (("target",), ()):
        location = locate_in_yaml(text, (*prefix, *key_path), file)
        if location.line is not None and location.line > 1:
            return location
    return SourceLocation(file)


def _check_exports_and_toolsets(catalog: Catalog, registry: ToolRegistry, report: CheckReport) -> None:
    for trailmap in catalog.active_trailmaps():
        manifest = trailmap.manifest
        if manifest is None or manifest.exports is None:
            continue
        owned = {d.name for d in registry if d.trailmap == trailmap.id} | set(trailmap.tool_names)
        for name in manifest.exports:
            if name not in owned:
                report.advisory("TrailmapExports", f"trailmap '{trailmap.id}' exports '{name}', which it does not "
                                "define", SourceLocation(trailmap.manifest_file), dedupe_key=f"{trailmap.label}:{name}")
    declared_members = {ts for d in registry for ts in d.toolsets}
    for target in catalog.targets.values():
        names = []
        for platform in target.config.platforms.values():
            if platform is not None:
                names.extend(platform.tool_sets or [])
        for ts in names:
            if ts not in catalog.toolsets and ts not in declared_members:
                report.advisory("Toolsets", f"target '{target.id}' uses toolset '{ts}', which no toolset file or "
                                "tool defines", SourceLocation(target.file), dedupe_key=f"{target.id}:{ts}")
