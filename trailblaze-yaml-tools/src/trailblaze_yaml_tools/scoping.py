"""Trailmap-scoped naming (seed 003): the advisory ``[TrailmapScopingCheck]``.

* A trailmap id matches ``^[a-z][a-zA-Z0-9]*$``: one lowerCamelCase token, so the first ``_`` of a wire
  name is the boundary between trailmap and tool, unambiguously.
* A tool owned by trailmap X (defined in its directory, listed in its ``target.tools``, or registered by
  a plugin or MCP server with ``trailmap=X``) is named ``X_<localName>``, the local half keeping the
  ``verbNoun`` / ``platform_verbNoun`` shape.
* Names stay within 60 characters, a margin under the 64-character wire limit (which the registry
  already enforces as an error).
* The framework trailmap ``trailblaze`` is exempt: its primitives keep their flat names so every
  existing recording resolves.

Advisories are deduplicated per ``<trailmap id>@<source>`` (the manifest, file, plugin or server they
came from); ``trailblaze check --strict`` turns them into errors.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from trailblaze import CheckReport, SourceLocation, ToolDefinition

from .catalog import Catalog
from .models import FRAMEWORK_TRAILMAP, TRAILMAP_ID

CHECK = "TrailmapScopingCheck"
LOCAL_NAME = re.compile(r"^[a-z][a-zA-Z0-9]*(_[a-z][a-zA-Z0-9]*)*$")
NAME_CEILING = 60


def scoped_name_problem(trailmap_id: str, name: str) -> str | None:
    """Why ``name`` is not a good name for a tool of ``trailmap_id`` (None when it is)."""
    prefix = f"{trailmap_id}_"
    if not name.startswith(prefix):
        head = name.split("_", 1)[0]
        elsewhere = f" (it looks scoped to trailmap '{head}')" if "_" in name and TRAILMAP_ID.match(head) else ""
        return f"should be named {prefix}<localName>{elsewhere}"
    local = name[len(prefix):]
    if not LOCAL_NAME.match(local):
        return f"local name '{local}' should be lowerCamelCase segments joined by '_' (e.g. {prefix}openSettings)"
    return None


def check_scoping(catalog: Catalog, tools: Iterable[ToolDefinition], report: CheckReport) -> None:
    tools = list(tools)
    by_name = {t.name: t for t in tools}
    for trailmap in catalog.active_trailmaps():
        if trailmap.id == FRAMEWORK_TRAILMAP:
            continue
        manifest_location = SourceLocation(trailmap.manifest_file or trailmap.root)
        if not TRAILMAP_ID.match(trailmap.id):
            report.advisory(CHECK, f"trailmap id '{trailmap.id}' should match {TRAILMAP_ID.pattern} (one "
                            "lowerCamelCase word: no '_' or '-') so tool names split at their first '_'",
                            manifest_location, dedupe_key=f"id:{trailmap.label}")
    owned: dict[tuple[str, str], list[str]] = {}
    where: dict[tuple[str, str], SourceLocation] = {}
    seen: set[tuple[str, str]] = set()

    def note(trailmap_id: str, name: str, source_key: str, location: SourceLocation) -> None:
        if (trailmap_id, name) in seen:
            return
        seen.add((trailmap_id, name))
        problems = []
        problem = scoped_name_problem(trailmap_id, name)
        if problem:
            problems.append(f"'{name}' {problem}")
        if len(name) > NAME_CEILING:
            problems.append(f"'{name}' is {len(name)} characters; keep tool names within {NAME_CEILING} (the wire "
                            "limit is 64): shorten the local half")
        if problems:
            key = (trailmap_id, source_key)
            owned.setdefault(key, []).extend(problems)
            where.setdefault(key, location)

    for tool in tools:
        if tool.trailmap is None or tool.trailmap == FRAMEWORK_TRAILMAP:
            continue
        source = tool.source
        location = SourceLocation(source.file, source.line) if source.file is not None else None
        note(tool.trailmap, tool.name, str(source.file) if source.file is not None else str(source),
             location or SourceLocation(None))
    for trailmap in catalog.active_trailmaps():
        if trailmap.id == FRAMEWORK_TRAILMAP or trailmap.manifest is None or trailmap.manifest.target is None:
            continue
        target = trailmap.manifest.target
        listed = list(target.tools or [])
        for platform in target.platforms.values():
            if platform is not None:
                listed.extend(platform.tools or [])
        for name in listed:
            known = by_name.get(name)
            if known is not None and known.trailmap not in (None, trailmap.id):
                continue  # a tool of another trailmap, listed on purpose; its owner's check covers it
            note(trailmap.id, name, str(trailmap.manifest_file), SourceLocation(trailmap.manifest_file))
    for (trailmap_id, source_key), problems in owned.items():
        location = where.get((trailmap_id, source_key))
        # Without a file (a plugin's class tools, an MCP server's tools) the message names the source.
        origin = f" ({source_key})" if location is None or location.file is None else ""
        report.advisory(CHECK, f"trailmap '{trailmap_id}'{origin}: " + "; ".join(problems), location,
                        dedupe_key=f"{trailmap_id}@{source_key}")
