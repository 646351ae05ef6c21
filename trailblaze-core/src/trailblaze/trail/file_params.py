"""File paths in recorded calls, written relative to the trail that holds them.

A parameter declared ``file_path`` (``web_uploadFile``'s ``paths``) is read relative to the trail file
on replay. Where a call ran without a trail file — a live session, ``trailblaze mcp``, ``trailblaze
step`` — the tool records the absolute files it used, and the one trail writer (``saveback.append_steps``)
turns them relative to the file it writes: the trail then replays from any working directory, and
moves with its fixtures.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..tools.base import ToolCall

if TYPE_CHECKING:
    from ..tools.params import ParameterDefinition
    from ..tools.registry import ToolRegistry


def relative_file_paths(calls: list[ToolCall], registry: ToolRegistry | None, trail_dir: Path) -> list[ToolCall]:
    """``calls`` with each absolute path in a ``file_path`` parameter written relative to ``trail_dir``
    (POSIX separators); relative paths, other arguments and tools this registry does not know are kept."""
    if registry is None:
        return calls
    out = []
    for call in calls:
        definition = registry.get(call.name)
        schema = definition.parameters() if definition is not None else None
        if schema is None or not any(p.file_path for p in schema):
            out.append(call)
            continue
        args = {key: _relative(schema.get(key), value, trail_dir) for key, value in call.args.items()}
        out.append(call if args == call.args else type(call)(call.name, args))
    return out


def _relative(param: ParameterDefinition | None, value: Any, trail_dir: Path) -> Any:
    if param is None or not param.file_path:
        return value
    if isinstance(value, list):
        return [_relative(param, item, trail_dir) for item in value]
    if isinstance(value, str) and os.path.isabs(value):
        return Path(os.path.relpath(value, trail_dir)).as_posix()
    return value


__all__ = ["relative_file_paths"]
