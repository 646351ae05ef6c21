"""Which tool servers a workspace declares, validated once, with ``file:line`` errors.

Two ways in:

* ``mcpServers:`` in ``trails/config/trailblaze.yaml`` (Decision 029): stdio servers (``command`` +
  ``args``, ``workingDir``, ``env``, or a ``script``) that Trailblaze spawns per session, and HTTP
  servers (``transport: http`` + ``url``) that it connects to and never stops.
* ``script:`` declarations in trailmaps and tool files, read by ``trailblaze-yaml-tools`` and handed over
  through the ``trailblaze_script_tools`` hook (see ``SCRIPT_HANDOFF.md`` there).

Relative paths are anchored at the directory of the file that declares them.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from trailblaze import BadInputError, ConfigError, ToolSource, format_validation_error, plain_data

if TYPE_CHECKING:
    from trailblaze import WorkspaceConfig

SECTION = "mcpServers"
DEFAULT_HANDSHAKE_SECONDS = 60.0
DEFAULT_CALL_SECONDS = 600.0
SCRIPT_SUFFIXES = frozenset({".py", ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"})


def default_handshake_seconds() -> float:
    """60 s, or ``TRAILBLAZE_MCP_SUBPROCESS_HANDSHAKE_TIMEOUT_MS`` (upstream's knob)."""
    raw = os.environ.get("TRAILBLAZE_MCP_SUBPROCESS_HANDSHAKE_TIMEOUT_MS")
    if raw:
        try:
            return max(0.001, int(raw) / 1000)
        except ValueError:
            pass
    return DEFAULT_HANDSHAKE_SECONDS


class McpServerEntry(BaseModel):
    """One ``mcpServers`` entry as written."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str | None = Field(None, min_length=1)
    command: str | None = Field(None, min_length=1)
    args: list[str] = []
    working_dir: str | None = Field(None, alias="workingDir")
    env: dict[str, str] = {}
    script: str | None = Field(None, min_length=1)
    transport: Literal["stdio", "http"] | None = None
    url: str | None = None
    headers: dict[str, str] = {}
    handshake_timeout_seconds: float | None = Field(None, gt=0, alias="handshakeTimeoutSeconds")
    call_timeout_seconds: float | None = Field(None, gt=0, alias="callTimeoutSeconds")
    allow_host_callbacks: list[str] = Field([], alias="allowHostCallbacks")
    """Host-only tools (``requiresHost``, e.g. ``exec``) this server may run through a callback."""

    def problem(self) -> tuple[str | None, str] | None:
        """The first semantic problem as ``(key to point at, message)``, or None."""
        if self.transport == "http" and not self.url:
            return "transport", "transport: http needs 'url'"
        given = [k for k in ("command", "script", "url") if getattr(self, k)]
        if len(given) != 1:
            return (given[1] if len(given) > 1 else None,
                    "give exactly one of 'command' (a stdio server), 'script' (a .py/.ts/.js server) or 'url' "
                    "with transport: http" + (f"; got {', '.join(given)}" if given else ""))
        if self.url:
            if self.transport == "stdio":
                return "transport", "'url' needs transport: http (stdio servers take 'command' or 'script')"
            for key, value in (("args", self.args), ("workingDir", self.working_dir), ("env", self.env)):
                if value:
                    return key, f"'{key}' applies to stdio servers, not to an HTTP server (it is not spawned)"
            if not self.url.startswith(("http://", "https://")):
                return "url", f"'url' must start with http:// or https://, got {self.url!r}"
        if self.headers and not self.url:
            return "headers", "'headers' apply to HTTP servers only"
        if self.command and not self.name:
            return None, "a 'command' server needs a 'name'"
        return None


@dataclass(frozen=True)
class ServerSpec:
    """A resolved server declaration: everything needed to spawn or connect it for a session."""

    name: str
    transport: Literal["stdio", "http"]
    source: ToolSource
    command: str | None = None
    args: tuple[str, ...] = ()
    cwd: Path | None = None
    env: tuple[tuple[str, str], ...] = ()
    script: Path | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    handshake_timeout: float | None = None
    call_timeout: float | None = None
    trailmap: str | None = None
    declared: tuple[str, ...] = ()
    """Tool names a ``script:`` declaration already registered (their calls route here; not re-added)."""
    allow_host_callbacks: frozenset[str] = frozenset()
    """Host-only tools this server's callbacks may run (``allowHostCallbacks``); every other one is refused."""
    module_tools: str | None = None
    """For an author module (typed TypeScript tools, upstream descriptor scripts): the JSON list of its
    tools (name, description, inputSchema). The script is then served by ``js/serve_module.mjs``, not run
    as a server."""

    @property
    def key(self) -> str:
        return self.name

    def handshake_seconds(self) -> float:
        return self.handshake_timeout if self.handshake_timeout is not None else default_handshake_seconds()

    def call_seconds(self) -> float:
        return self.call_timeout if self.call_timeout is not None else DEFAULT_CALL_SECONDS


@dataclass
class WorkspaceServers:
    """Every server one workspace declares, in declaration order, keyed by name."""

    specs: dict[str, ServerSpec] = field(default_factory=dict)
    config_loaded: bool = False
    config_error: BadInputError | None = None

    def add(self, spec: ServerSpec) -> ServerSpec:
        existing = self.specs.get(spec.name)
        if existing is not None:
            if existing.script is not None and existing.script == spec.script and existing.transport == spec.transport:
                merged = replace(existing, declared=tuple(dict.fromkeys(existing.declared + spec.declared)))
                self.specs[spec.name] = merged
                return merged
            raise BadInputError(f"MCP server name '{spec.name}' is declared twice: by {existing.source} and by "
                                f"{spec.source}", hint="give one of them another 'name'")
        self.specs[spec.name] = spec
        return spec


_BY_CONFIG: dict[int, WorkspaceServers] = {}


def servers_of(config: WorkspaceConfig) -> WorkspaceServers:
    """The per-workspace server table; lives exactly as long as the ``WorkspaceConfig`` object."""
    key = id(config)
    found = _BY_CONFIG.get(key)
    if found is None:
        found = WorkspaceServers()
        _BY_CONFIG[key] = found
        weakref.finalize(config, _BY_CONFIG.pop, key, None)
    return found


def load_config_servers(config: WorkspaceConfig) -> WorkspaceServers:
    """Validate the ``mcpServers`` section (once per workspace) and add its servers to the table."""
    table = servers_of(config)
    if table.config_error is not None:
        raise table.config_error
    if table.config_loaded:
        return table
    try:
        _load_section(config, table)
    except BadInputError as exc:
        table.config_error = exc
        raise
    table.config_loaded = True
    return table


def _load_section(config: WorkspaceConfig, table: WorkspaceServers) -> None:
    raw = config.data.get(SECTION) if config.data else None
    if raw is None:
        return
    anchor = config.file.parent if config.file is not None else config.root
    items: list[tuple[Any, Any, str | None]]
    if isinstance(raw, Mapping):  # {name: {...}} (the seed's second spelling)
        items = [(key, value, str(key)) for key, value in raw.items()]
    elif isinstance(raw, list):
        items = [(i, value, None) for i, value in enumerate(raw)]
    else:
        raise ConfigError("must be a list of servers (name + command/script, or transport: http + url)",
                          location=config.location(SECTION), key=SECTION)
    for index, value, implied_name in items:
        where = config.location(SECTION, index)
        if not isinstance(value, Mapping):
            raise ConfigError("each server must be a map (name, command, args, ... or transport: http, url)",
                              location=where, key=SECTION)
        data = {k: plain_data(v) for k, v in value.items()}
        if implied_name is not None:
            data.setdefault("name", implied_name)
        try:
            entry = McpServerEntry.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = [x for x in first.get("loc", ()) if isinstance(x, (str, int))]
            location = config.location(SECTION, index, *loc) if loc else where
            message = format_validation_error(exc, owner=f"MCP server {_label(index, data)}").replace("argument", "setting")
            raise ConfigError(message, location=location, key=SECTION) from None
        problem = entry.problem()
        if problem is not None:
            key, message = problem
            location = config.location(SECTION, index, key) if key else where
            raise ConfigError(f"MCP server {_label(index, data)}: {message}", location=location, key=SECTION)
        try:
            table.add(spec_from_entry(entry, anchor=anchor, file=config.file, line=where.line))
        except BadInputError as exc:
            if exc.location is None:
                key = "script" if entry.script else None
                raise ConfigError(exc.message, location=config.location(SECTION, index, key) if key else where,
                                  key=SECTION, hint=exc.hint) from None
            raise


def spec_from_entry(entry: McpServerEntry, *, anchor: Path, file: Path | None, line: int | None,
                    trailmap: str | None = None) -> ServerSpec:
    cwd = _anchored(entry.working_dir, anchor) if entry.working_dir else None
    common: dict[str, Any] = {
        "handshake_timeout": entry.handshake_timeout_seconds, "call_timeout": entry.call_timeout_seconds,
        "trailmap": trailmap, "allow_host_callbacks": frozenset(entry.allow_host_callbacks),
    }
    if entry.url:
        name = entry.name or entry.url
        return ServerSpec(name=name, transport="http", url=entry.url, headers=tuple(entry.headers.items()),
                          source=ToolSource(file=file, line=line, server=name), **common)
    if entry.script:
        script = _anchored(entry.script, anchor)
        check_script(script)
        name = entry.name or script.stem
        return ServerSpec(name=name, transport="stdio", script=script, args=tuple(entry.args),
                          cwd=cwd or script.parent, env=tuple(entry.env.items()),
                          source=ToolSource(file=file, line=line, server=name), **common)
    assert entry.command is not None and entry.name is not None
    return ServerSpec(name=entry.name, transport="stdio", command=entry.command, args=tuple(entry.args),
                      cwd=cwd or anchor, env=tuple(entry.env.items()),
                      source=ToolSource(file=file, line=line, server=entry.name), **common)


def check_script(script: Path) -> None:
    """A script must exist and be a language we can run."""
    if not script.is_file():
        raise BadInputError(f"MCP server script not found: {script}")
    if script.suffix.lower() not in SCRIPT_SUFFIXES:
        raise BadInputError(f"cannot run '{script.name}' as an MCP server: scripts must be .py, .ts or .js "
                            f"({', '.join(sorted(SCRIPT_SUFFIXES))}); use 'command:' for anything else")


def _label(index: Any, data: Mapping[str, Any]) -> str:
    name = data.get("name")
    return f"'{name}'" if isinstance(name, str) and name else f"#{index + 1 if isinstance(index, int) else index}"


def _anchored(path: str, anchor: Path) -> Path:
    p = Path(os.path.expanduser(path))
    return (p if p.is_absolute() else anchor / p).resolve()

