"""The effective tool set of a session: what a target offers on one platform and driver (upstream §3.2).

    toolsets named in the platform's ``tool_sets`` (each filtered by driver and platform)
  ∪ every ``always_enabled`` toolset that matches the driver and platform
  ∪ the platform's and the target's ``tools``
  ∪ the tools the target's own trailmap defines, and those its dependencies export
  − the platform's ``excluded_tools``

A platform that declares no ``tool_sets`` takes them from the ``defaults:`` of its dependencies (closest
first; the framework trailmap ``trailblaze`` is always the last fallback), as upstream consumers do
with ``dependencies: [trailblaze]``. A toolset's members are the names its file lists plus every tool
whose definition names the toolset (class tools' ``toolsets`` attribute).

Without a target (none on the trail, none in ``defaults.target``) nothing is narrowed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from trailblaze import BadInputError, ToolDefinition

from .catalog import Catalog, LoadedToolset, Target, Trailmap
from .models import FRAMEWORK_TRAILMAP, PlatformConfig

ANY = "any"


def _norm(name: str) -> str:
    return re.sub(r"[-_\s]+", "-", name.strip().lower())


def toolset_matches(toolset: LoadedToolset, *, driver: str, platform: str) -> bool:
    """Driver entries may be driver keys (any spelling), platform shorthands or ``all``."""
    cfg = toolset.config
    if cfg.drivers is not None and driver != ANY:
        wanted = {_norm(d) for d in cfg.drivers}
        if "all" not in wanted and _norm(driver) not in wanted and _norm(platform) not in wanted:
            return False
    return cfg.platforms is None or platform == ANY or _norm(platform) in {_norm(p) for p in cfg.platforms}


@dataclass
class EffectiveSet:
    names: set[str]
    toolsets: list[str]


def platform_config(catalog: Catalog, target: Target, platform: str) -> PlatformConfig:
    """The target's config for ``platform``, with unset fields filled from its dependencies' defaults."""
    own = target.config.platform(platform)
    chain = _defaults_chain(catalog, target.trailmap)
    if own.tool_sets is not None or not chain:
        return own
    for trailmap in chain:
        defaults = trailmap.manifest.defaults if trailmap.manifest else {}
        if platform in defaults:
            base = defaults[platform] or PlatformConfig()
            if base.tool_sets is not None:
                return own.model_copy(update={"tool_sets": list(base.tool_sets)})
    return own


def _defaults_chain(catalog: Catalog, trailmap: Trailmap | None) -> list[Trailmap]:
    """Dependencies breadth-first (closest first; at the same depth the later one first), then the framework."""
    out: list[Trailmap] = []
    seen: set[str] = set()
    frontier = list(trailmap.dependencies) if trailmap is not None else []
    while frontier:
        nxt: list[str] = []
        for dep in reversed(frontier):
            found = catalog.trailmaps.get(dep)
            if found is None or found.skipped is not None or dep in seen:
                continue
            seen.add(dep)
            out.append(found)
            nxt.extend(found.dependencies)
        frontier = nxt
    framework = catalog.trailmaps.get(FRAMEWORK_TRAILMAP)
    if framework is not None and framework.skipped is None and FRAMEWORK_TRAILMAP not in seen:
        out.append(framework)
    return out


def _dependency_closure(catalog: Catalog, trailmap: Trailmap | None) -> list[Trailmap]:
    out: list[Trailmap] = []
    seen: set[str] = set()
    stack = list(trailmap.dependencies) if trailmap is not None else []
    while stack:
        dep = stack.pop()
        found = catalog.trailmaps.get(dep)
        if found is None or found.skipped is not None or dep in seen:
            continue
        seen.add(dep)
        out.append(found)
        stack.extend(found.dependencies)
    return out


def exported_names(trailmap: Trailmap, owned: Iterable[str]) -> set[str]:
    """``exports:`` if the manifest has it, else every tool the trailmap owns."""
    if trailmap.manifest is not None and trailmap.manifest.exports is not None:
        return set(trailmap.manifest.exports)
    return set(owned)


def resolve_target(catalog: Catalog, target_id: str) -> Target:
    target = catalog.targets.get(target_id)
    if target is None:
        known = ", ".join(sorted(catalog.targets)) or "none (add a trailmap with a target: block)"
        raise BadInputError(f"unknown target '{target_id}'", hint=f"known targets: {known}")
    if catalog.enabled_targets and target_id not in catalog.enabled_targets:
        raise BadInputError(f"target '{target_id}' is not enabled",
                            hint="add it to 'targets:' in trails/config/trailblaze.yaml")
    return target


def effective_set(catalog: Catalog, target_id: str, *, platform: str, driver: str,
                  tools: Iterable[ToolDefinition]) -> EffectiveSet:
    """The names a session on ``target_id`` offers; ``platform``/``driver`` may be ``any`` (listing)."""
    target = resolve_target(catalog, target_id)
    tools = list(tools)
    declared = target.config.platforms
    if platform == ANY:
        platforms = list(declared) or [ANY]
    elif declared and platform not in declared:
        raise BadInputError(f"target '{target_id}' does not declare platform '{platform}'",
                            hint=f"it declares {', '.join(sorted(declared))}; add '{platform}: {{}}' under "
                                 "target.platforms to run it there")
    else:
        platforms = [platform]
    by_toolset: dict[str, set[str]] = {}
    for definition in tools:
        for ts in definition.toolsets:
            by_toolset.setdefault(ts, set()).add(definition.name)
    names: set[str] = set()
    used: list[str] = []
    owners: dict[str, set[str]] = {}
    for definition in tools:
        if definition.trailmap is not None:
            owners.setdefault(definition.trailmap, set()).add(definition.name)
    for plat in platforms:
        pc = platform_config(catalog, target, plat) if plat != ANY else PlatformConfig()
        if pc.drivers is not None and driver != ANY and _norm(driver) not in {_norm(d) for d in pc.drivers}:
            raise BadInputError(f"target '{target_id}' runs '{plat}' only on drivers {', '.join(pc.drivers)}, "
                                f"not '{driver}'")
        chosen: list[str] = []
        for ts_id in pc.tool_sets or []:
            toolset = catalog.toolsets.get(ts_id)
            if toolset is None or toolset_matches(toolset, driver=driver, platform=plat):
                chosen.append(ts_id)
        for ts_id, toolset in catalog.toolsets.items():
            if toolset.config.always_enabled and ts_id not in chosen and \
                    toolset_matches(toolset, driver=driver, platform=plat):
                chosen.append(ts_id)
        plat_names: set[str] = set()
        for ts_id in chosen:
            toolset = catalog.toolsets.get(ts_id)
            if toolset is not None:
                plat_names.update(toolset.config.tools)
            plat_names.update(by_toolset.get(ts_id, ()))
        plat_names.update(pc.tools or [])
        plat_names.update(target.config.tools or [])
        if target.trailmap is not None:
            plat_names.update(owners.get(target.trailmap.id, ()))
            for dep in _dependency_closure(catalog, target.trailmap):
                plat_names.update(exported_names(dep, owners.get(dep.id, ())))
        plat_names.difference_update(pc.excluded_tools or [])
        names |= plat_names
        used.extend(t for t in chosen if t not in used)
    return EffectiveSet(names, used)
