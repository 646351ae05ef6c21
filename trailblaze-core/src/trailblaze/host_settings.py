"""Driver settings that reach beyond the device: a program to run, a command line, a remote endpoint, a
file path. A driver declares them on its config model, and whoever is not the user — a coding agent
talking to ``trailblaze mcp``, steered perhaps by the page it reads — may not set them.

Declared, not listed: the driver that knows its settings marks them (``Field(..., json_schema_extra=
host_setting(HostKind.PROGRAM))``), so a third-party driver's settings are guarded the same way and the
mark shows in the editor schema (``x-trailblaze-host``). The core keeps no list of other packages' keys.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

HOST_KEY = "x-trailblaze-host"


class HostKind(str, enum.Enum):
    """What a setting reaches on the host."""

    PROGRAM = "program"
    """Names an executable that is started (``browser_path``, ``appium_bin``)."""
    COMMAND_LINE = "command line"
    """Arguments or capabilities that can make a program run something else (``launch_args``)."""
    ENDPOINT = "remote endpoint"
    """A server the driver connects to and sends the session to (``cdp_url``, ``server_url``)."""
    PATH = "path"
    """A file or directory the driver reads, writes or installs (``app``, ``upload_dirs``); a string or a
    list of strings, allowed inside the workspace."""


def host_setting(kind: HostKind) -> dict[str, Any]:
    """The ``json_schema_extra`` that marks a config field as reaching the host."""
    return {HOST_KEY: kind.value}


def host_settings(model: type[BaseModel]) -> dict[str, HostKind]:
    """The marked fields of ``model``, by field name and by alias."""
    out: dict[str, HostKind] = {}
    for name, info in model.model_fields.items():
        extra = info.json_schema_extra
        if isinstance(extra, dict) and isinstance(extra.get(HOST_KEY), str):
            kind = HostKind(extra[HOST_KEY])
            out[name] = kind
            if info.alias:
                out[info.alias] = kind
    return out


def refused_settings(model: type[BaseModel], options: Mapping[str, Any], workspace: Path) -> list[str]:
    """One line per option in ``options`` that reaches the host (a path only when it leaves
    ``workspace``); empty when every option is the device's own business."""
    marked = host_settings(model)
    refused: list[str] = []
    for key, value in options.items():
        kind = marked.get(key)
        if kind is None or value in (None, "", [], {}):
            continue
        paths = [value] if isinstance(value, str) else value if isinstance(value, list) else None
        if kind is HostKind.PATH and paths is not None and all(isinstance(p, str) for p in paths):
            reasons = [r for r in (path_outside(p, workspace) for p in paths) if r is not None]
            if reasons:
                refused.append(f"'{key}' ({reasons[0]})")
        else:
            refused.append(f"'{key}' (names a {kind.value})")
    return refused


def path_outside(value: str, workspace: Path) -> str | None:
    """Why ``value`` is not a path inside ``workspace`` (None when it is)."""
    if "://" in value:
        return "a URL: a remote endpoint"
    if value.startswith("~"):
        return "a home-directory path"
    if "$" in value:
        return "an environment reference, expanded later"
    root = workspace.resolve()
    path = Path(value)
    resolved = (path if path.is_absolute() else root / path).resolve()
    if not resolved.is_relative_to(root):
        return f"a path outside the workspace {root}"
    return None


__all__ = ["HOST_KEY", "HostKind", "host_setting", "host_settings", "path_outside", "refused_settings"]
