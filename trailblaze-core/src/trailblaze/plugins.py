"""The plugin host: loads plugins once per process and offers a typed facade over ``pm.hook``.

Entry points of the group ``trailblaze`` are loaded one at a time, so one broken plugin costs one
stderr line, not the CLI. Switches (environment variables):

* ``TRAILBLAZE_DISABLE_PLUGINS=a,b`` blocks plugins by entry-point name.
* ``TRAILBLAZE_LOAD_PLUGINS=a,b`` loads only these installed plugins (empty string: none).
* ``TRAILBLAZE_STRICT_PLUGINS=1`` turns a plugin that fails to load into a fatal error (exit 2).
* ``TRAILBLAZE_TRACE_PLUGINS=1`` prints every hook call and result to stderr.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pluggy

from . import hookspecs
from ._names import ENTRY_POINT_GROUP, PROJECT_NAME
from ._version import __version__
from .errors import PluginLoadError
from .tools.base import ToolSource

if TYPE_CHECKING:
    from pathlib import Path

    import click

    from .checks import CheckReport
    from .config import WorkspaceConfig
    from .context import ToolContext
    from .driver import DriverRegistry
    from .session import Session, SessionOutcome
    from .tools.base import ToolCall, ToolDefinition, ToolResult
    from .tools.descriptors import ToolDescriptor
    from .tools.registry import ToolRegistry

DEFAULT_PLUGINS: tuple[str, ...] = (
    "trailblaze.builtin.tools",
    "trailblaze.builtin.host_driver",
    "trailblaze.llm.llm_config",
    "trailblaze.llm.openai_provider",
    "trailblaze.llm.anthropic_provider",
    "trailblaze.agent.agent_commands",
)
"""Core modules registered as plugins. In-repo drivers and tool sources are *not* here: they register
through the entry-point group exactly as a third party's plugin does."""


@dataclass
class PluginInfo:
    name: str
    distribution: str | None
    version: str | None
    builtin: bool
    status: str = "ok"
    hooks: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def source(self) -> ToolSource:
        return ToolSource(plugin=self.name, distribution=self.distribution, version=self.version)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "distribution": self.distribution, "version": self.version,
                "builtin": self.builtin, "status": self.status, "hooks": self.hooks}


@cache
def installed_entry_points() -> tuple[EntryPoint, ...]:
    """The ``trailblaze`` entry points, resolved once per process."""
    return tuple(sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name))


def _env_list(name: str) -> list[str] | None:
    raw = os.environ.get(name)
    if raw is None:
        return None
    return [p.strip() for p in raw.split(",") if p.strip()]


class PluginHost:
    """Owns the ``pluggy.PluginManager``; every hook call in the code base goes through a method here."""

    def __init__(self, *, load_entrypoints: bool = True, builtins: Iterable[str] = DEFAULT_PLUGINS,
                 stderr: Callable[[str], None] | None = None) -> None:
        self.pm = pluggy.PluginManager(PROJECT_NAME)
        self.pm.add_hookspecs(hookspecs)
        self._infos: dict[str, PluginInfo] = {}
        self._stderr = stderr or (lambda line: print(line, file=sys.stderr))
        self.strict = os.environ.get("TRAILBLAZE_STRICT_PLUGINS") == "1"
        self.trace = os.environ.get("TRAILBLAZE_TRACE_PLUGINS") == "1"
        if self.trace:
            self._enable_tracing()
        for module_name in builtins:
            module = importlib.import_module(module_name)
            short = module_name.rsplit(".", 1)[-1]
            self._register(module, f"builtin.{short}", PluginInfo(f"builtin.{short}", "trailblaze", __version__, True))
        if load_entrypoints:
            self._load_entrypoints()

    # -- loading ------------------------------------------------------------------------------
    def _load_entrypoints(self) -> None:
        disabled = set(_env_list("TRAILBLAZE_DISABLE_PLUGINS") or [])
        allowed = _env_list("TRAILBLAZE_LOAD_PLUGINS")
        for ep in installed_entry_points():
            dist = ep.dist.name if ep.dist is not None else None
            version = ep.dist.version if ep.dist is not None else None
            info = PluginInfo(ep.name, dist, version, False)
            if ep.name in disabled or (allowed is not None and ep.name not in allowed):
                info.status = "disabled"
                self._infos[ep.name] = info
                self.pm.set_blocked(ep.name)
                continue
            try:
                obj = ep.load()
            except Exception as exc:  # noqa: BLE001 - a plugin may fail in any way
                self._failed(info, exc)
                continue
            self._register(obj, ep.name, info)

    def _register(self, obj: Any, name: str, info: PluginInfo) -> None:
        try:
            self.pm.register(obj, name=name)
            self._check_pending(name)
        except Exception as exc:  # noqa: BLE001
            if self.pm.get_plugin(name) is not None:
                self.pm.unregister(name=name)
            self._failed(info, exc)
            return
        info.hooks = sorted(h.name for h in self.pm.get_hookcallers(obj) or [])
        self._infos[name] = info

    def _check_pending(self, name: str) -> None:
        plugin = self.pm.get_plugin(name)
        for attr in dir(plugin):
            if attr.startswith("trailblaze_") and not hasattr(self.pm.hook, attr):
                raise pluggy.PluginValidationError(
                    plugin, f"unknown hook '{attr}' (misspelled? see `trailblaze plugins --all` and docs/hooks.md)")
        self.pm.check_pending()

    def _failed(self, info: PluginInfo, exc: BaseException) -> None:
        err = f"{type(exc).__name__}: {exc}".strip().splitlines()[0]
        info.status = f"error: {err}"
        info.error = err
        self._infos[info.name] = info
        dist = f" ({info.distribution} {info.version})" if info.distribution else ""
        line = (f"trailblaze: plugin '{info.name}'{dist} failed to load: {err} "
                f"-- disable it with TRAILBLAZE_DISABLE_PLUGINS={info.name}")
        if self.strict:
            raise PluginLoadError(line.removeprefix("trailblaze: "),
                                  hint="TRAILBLAZE_STRICT_PLUGINS=1 makes this fatal")
        self._stderr(line)

    def _enable_tracing(self) -> None:
        def before(hook_name: str, impls: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
            names = ", ".join(i.plugin_name for i in impls)
            print(f"[trailblaze trace] {hook_name} -> [{names}]", file=sys.stderr)

        def after(outcome: Any, hook_name: str, impls: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
            exc = outcome.exception
            result = f"raised {exc!r}" if exc else f"returned {outcome.get_result()!r}"[:200]
            print(f"[trailblaze trace] {hook_name} {result}", file=sys.stderr)

        self.pm.add_hookcall_monitoring(before, after)

    # -- registration for tests and embedding -------------------------------------------------
    def register(self, plugin: Any, name: str | None = None) -> str:
        """Register a plugin object (module or instance) by hand, e.g. for one test."""
        name = name or getattr(plugin, "__name__", None) or type(plugin).__name__
        info = PluginInfo(name, None, None, False)
        self._register(plugin, name, info)
        if info.error:
            raise PluginLoadError(f"plugin '{name}' failed to register: {info.error}")
        return name

    def unregister(self, name: str) -> None:
        if self.pm.get_plugin(name) is not None:
            self.pm.unregister(name=name)
        self._infos.pop(name, None)

    # -- introspection ------------------------------------------------------------------------
    def plugins(self, *, include_builtins: bool = False) -> list[PluginInfo]:
        return [i for i in self._infos.values() if include_builtins or not i.builtin]

    def info(self, name: str) -> PluginInfo | None:
        return self._infos.get(name)

    def _impls(self, hook_name: str) -> list[tuple[PluginInfo, Callable[..., Any], list[str]]]:
        caller = getattr(self.pm.hook, hook_name)
        out = []
        for impl in caller.get_hookimpls():
            info = self._infos.get(impl.plugin_name) or PluginInfo(impl.plugin_name, None, None, False)
            out.append((info, impl.function, list(impl.argnames)))
        if self.trace:
            # Per-plugin calls bypass pluggy's monitoring, so trace them here.
            names = ", ".join(i.name for i, _, _ in out)
            print(f"[trailblaze trace] {hook_name} -> [{names}] (called per plugin)", file=sys.stderr)
        return out

    def _call_each(self, hook_name: str, **kwargs: Any) -> list[tuple[PluginInfo, Any]]:
        results = []
        for info, fn, argnames in self._impls(hook_name):
            results.append((info, fn(**{k: kwargs[k] for k in argnames})))
        return results

    # -- typed facade -------------------------------------------------------------------------
    def register_tools(self, registry: "ToolRegistry", config: "WorkspaceConfig") -> None:
        for info, fn, argnames in self._impls("trailblaze_register_tools"):
            kwargs = {"registry": registry, "config": config, "host": self}
            with registry.contributing(info.source):
                fn(**{k: kwargs[k] for k in argnames})

    def trailmap_dirs(self) -> "list[tuple[ToolSource, Path]]":
        """Packaged trailmap roots, each with the plugin that ships it (for messages and attribution)."""
        from pathlib import Path

        out: list[tuple[ToolSource, Path]] = []
        for info, result in self._call_each("trailblaze_trailmap_dirs"):
            for path in result or []:
                out.append((info.source, Path(path)))
        return out

    def script_tools(self, spec: Any, config: "WorkspaceConfig") -> "list[ToolDefinition] | None":
        return self.pm.hook.trailblaze_script_tools(spec=spec, config=config)  # type: ignore[no-any-return]

    def register_drivers(self, registry: "DriverRegistry") -> None:
        for info, fn, argnames in self._impls("trailblaze_register_drivers"):
            registry._current_source = info.source
            try:
                fn(**{k: {"registry": registry}[k] for k in argnames})
            finally:
                registry._current_source = None

    def config_sections(self) -> dict[str, tuple[type[Any], PluginInfo]]:
        sections: dict[str, tuple[type[Any], PluginInfo]] = {}
        for info, result in self._call_each("trailblaze_config_sections"):
            for key, model in (result or {}).items():
                sections[key] = (model, info)
        return sections

    def tool_descriptor(self, definition: "ToolDefinition") -> "ToolDescriptor | None":
        return self.pm.hook.trailblaze_tool_descriptor(definition=definition)  # type: ignore[no-any-return]

    def decode_tool(self, name: str, args: dict[str, Any], registry: "ToolRegistry | None") -> "ToolCall | None":
        return self.pm.hook.trailblaze_decode_tool(name=name, args=args, registry=registry)  # type: ignore[no-any-return]

    def encode_tool(self, call: "ToolCall") -> dict[str, Any] | None:
        return self.pm.hook.trailblaze_encode_tool(call=call)  # type: ignore[no-any-return]

    def execute_tool(self, call: "ToolCall", definition: "ToolDefinition", prepared: Any,
                     context: "ToolContext") -> "ToolResult | list[ToolCall] | None":
        return self.pm.hook.trailblaze_execute_tool(  # type: ignore[no-any-return]
            call=call, definition=definition, prepared=prepared, context=context)

    @property
    def has_execute_impls(self) -> bool:
        return bool(self.pm.hook.trailblaze_execute_tool.get_hookimpls())

    @property
    def has_encode_impls(self) -> bool:
        return bool(self.pm.hook.trailblaze_encode_tool.get_hookimpls())

    def filter_tools(self, session: "Session", tools: "list[ToolDefinition]") -> "list[ToolDefinition]":
        kept = list(tools)
        for result in self.pm.hook.trailblaze_filter_tools(session=session, tools=list(tools)):
            if result is not None:
                names = {d.name for d in result}
                kept = [d for d in kept if d.name in names]
        return kept

    def check_tools(self, registry: "ToolRegistry", report: "CheckReport", config: "WorkspaceConfig") -> None:
        self.pm.hook.trailblaze_check_tools(registry=registry, report=report, config=config)

    def session_started(self, session: "Session") -> None:
        self.pm.hook.trailblaze_session_started(session=session)

    def session_finished(self, session: "Session", outcome: "SessionOutcome") -> list[str]:
        """Call every implementation even if one raises; return the errors as lines."""
        errors = []
        for info, fn, argnames in self._impls("trailblaze_session_finished"):
            kwargs = {"session": session, "outcome": outcome}
            try:
                fn(**{k: kwargs[k] for k in argnames})
            except Exception as exc:  # noqa: BLE001
                errors.append(f"plugin '{info.name}' failed while finishing the session: {exc}")
        return errors

    def register_commands(self, cli: "click.Group") -> None:
        """Plugins add commands; they never replace one that exists (a built-in such as ``run``, or an
        earlier plugin's), so what ``trailblaze run`` means does not depend on what is installed."""
        for info, fn, argnames in self._impls("trailblaze_register_commands"):
            existing = dict(cli.commands)
            try:
                fn(**{k: {"cli": cli}[k] for k in argnames})
            except Exception as exc:  # noqa: BLE001
                self._stderr(f"trailblaze: plugin '{info.name}' failed to add its commands: {exc}")
            for name, command in existing.items():
                if cli.commands.get(name) is not command:
                    cli.commands[name] = command
                    self._stderr(f"trailblaze: plugin '{info.name}' tried to replace the command '{name}'; "
                                 "kept the existing one")

    def register_llm_providers(self, registry: Any) -> None:
        for info, fn, argnames in self._impls("trailblaze_register_llm_providers"):
            fn(**{k: {"registry": registry}[k] for k in argnames})

    def agent_prompts(self, session: "Session") -> list[str]:
        results = self.pm.hook.trailblaze_agent_prompts(session=session)
        return [r for r in results if isinstance(r, str) and r.strip()]


_HOST: PluginHost | None = None


def get_host() -> PluginHost:
    """The process-wide host; plugins are discovered on first use and never again."""
    global _HOST
    if _HOST is None:
        _HOST = PluginHost()
    return _HOST


def set_host(host: PluginHost | None) -> PluginHost | None:
    """Swap the process-wide host (tests). Returns the previous one."""
    global _HOST
    previous, _HOST = _HOST, host
    return previous


def import_module_lazily(name: str) -> ModuleType:
    return importlib.import_module(name)
