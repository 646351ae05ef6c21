"""The plugin host: loads plugins once per process and offers a typed facade over ``pm.hook``.

Entry points of the group ``trailblaze`` are loaded one at a time, so one broken plugin costs one
stderr line, not the CLI. Switches (environment variables):

* ``TRAILBLAZE_DISABLE_PLUGINS=a,b`` blocks plugins by entry-point name.
* ``TRAILBLAZE_LOAD_PLUGINS=a,b`` loads only these installed plugins (empty string: none).
* ``TRAILBLAZE_STRICT_PLUGINS=1`` turns a plugin that fails to load into a fatal error (exit 2).
* ``TRAILBLAZE_TRACE_PLUGINS=1`` prints every hook call and result to stderr.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any, NoReturn

import pluggy

from . import hookspecs
from ._names import ENTRY_POINT_GROUP, PROJECT_NAME
from ._version import __version__
from .errors import PluginHookError, PluginLoadError, TrailblazeError
from .plugin_queries import PluginInfo
from .tools.base import ToolSource
from .tools.codec import ToolCodec

if TYPE_CHECKING:
    from pathlib import Path

    import click

    from .checks import CheckReport
    from .config import WorkspaceConfig
    from .context import ToolContext
    from .driver import DriverRegistry
    from .session import Session, SessionOutcome
    from .llm.registry import LlmProviderRegistry
    from .targets import TargetInfo
    from .tools.base import ToolCall, ToolDefinition, ToolResult
    from .tools.descriptors import ToolDescriptor
    from .tools.registry import ToolRegistry

DEFAULT_PLUGINS: tuple[str, ...] = (
    "trailblaze.builtin.contract",
    "trailblaze.builtin.tools",
    "trailblaze.builtin.host_driver",
    "trailblaze.llm.llm_config",
    "trailblaze.llm.openai_provider",
    "trailblaze.llm.anthropic_provider",
    "trailblaze.agent.agent_client",
)
"""Core modules registered as plugins. In-repo drivers and tool sources are *not* here: they register
through the entry-point group exactly as a third party's plugin does."""


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
        self._execute_hook = self.pm.hook.trailblaze_execute_tool  # on every tool call: one lookup, once
        self._infos: dict[str, PluginInfo] = {}
        self._llm_providers: LlmProviderRegistry | None = None
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
            dist = version = None
            if ep.dist is not None:  # ``.name`` and ``.version`` would each read and parse METADATA
                metadata = ep.dist.metadata
                dist, version = metadata["Name"], metadata["Version"]
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
        self._guard_impls(obj, info)

    def _guard_impls(self, obj: Any, info: PluginInfo) -> None:
        """Make every hook implementation of ``obj`` fail as the plugin's failure, by name.

        A plugin's bug (``from missing_sdk import ...`` inside ``trailblaze_register_drivers``) then
        reads "plugin 'x' (dist 1.0) failed in trailblaze_register_drivers: ModuleNotFoundError: ...
        -- disable it with TRAILBLAZE_DISABLE_PLUGINS=x" (exit 2), and ``trailblaze plugins`` shows the
        plugin as ``error: ...``. ``TrailblazeError``s pass through: a plugin raising one means it.
        Wrappers are guarded on every hook for what they raise themselves (not for the inner call's
        exception passing through them): a third-party execute wrapper's bug is the plugin's failure
        (exit 2, named), not the tool's (exit 1), so in CI it cannot pass for an app regression.
        Not guarded: the ``trailblaze_execute_tool`` implementations that answer, whose exceptions the
        dispatcher turns into the failure of the tool being called (a tool's bug fails its step)."""
        for caller in self.pm.get_hookcallers(obj) or []:
            for impl in caller.get_hookimpls():
                if impl.plugin is not obj:
                    continue
                # pluggy marks ``function`` final for its users; the host owns these impls.
                if impl.hookwrapper or impl.wrapper:
                    setattr(impl, "function", self._guarded_wrapper(info, caller.name, impl.function))  # noqa: B010
                elif caller.name not in _UNGUARDED_HOOKS:
                    setattr(impl, "function", self._guarded(info, caller.name, impl.function))  # noqa: B010

    def _guarded(self, info: PluginInfo, hook: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except TrailblazeError:
                raise
            except Exception as exc:  # noqa: BLE001 - whatever a plugin raises is reported as its own
                raise self.hook_failed(info, hook, exc) from exc
        return guarded

    def _guarded_wrapper(self, info: PluginInfo, hook: str,
                         fn: Callable[..., Any]) -> Callable[..., Generator[Any, Any, Any]]:
        """A wrapper's generator, relayed step by step so an exception it raises itself is told apart
        from the inner call's exception that pluggy throws into it and that merely passes through."""
        @functools.wraps(fn)
        def guarded(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
            thrown: BaseException | None = None
            try:
                gen = fn(*args, **kwargs)
                value = next(gen)
                while True:
                    try:
                        sent = yield value
                    except BaseException as exc:  # the inner call's error, handed on as is
                        thrown = exc
                        value = gen.throw(exc)
                    else:
                        thrown = None
                        value = gen.send(sent)
            except StopIteration as stop:
                return stop.value
            except TrailblazeError:
                raise
            except Exception as exc:  # noqa: BLE001 - whatever a plugin raises is reported as its own
                if exc is thrown:
                    raise
                raise self.hook_failed(info, hook, exc) from exc
        return guarded

    def hook_failed(self, info: PluginInfo, hook: str, exc: BaseException) -> PluginHookError:
        """Mark ``info`` as failed and build the one-line error naming it (see ``_guard_impls``)."""
        err = (f"{type(exc).__name__}: {exc}".strip().splitlines() or [type(exc).__name__])[0]
        info.status = f"error: {hook}: {err}"
        info.error = err
        dist = f" ({info.distribution} {info.version})" if info.distribution else ""
        return PluginHookError(f"plugin '{info.name}'{dist} failed in {hook}: {err} "
                               f"-- disable it with TRAILBLAZE_DISABLE_PLUGINS={info.name}",
                               plugin=info.name, hook=hook)

    def probe(self) -> None:
        """Run the cheap discovery hooks into scratch registries, so ``trailblaze plugins`` can show a
        plugin that imports or registers something broken as ``error`` instead of ``ok``: the same
        failure ``tools``, ``check`` and ``run`` then stop on (exit 2). Tools are registered plugin by
        plugin against the current workspace (an empty one when there is none or its config does not
        load), so one broken plugin does not hide the next; a workspace's own bad input (a broken tool
        file) is not a plugin's failure."""
        from pathlib import Path

        from .config import WorkspaceConfig, find_workspace, load_workspace
        from .driver import DriverRegistry
        from .tools.registry import ToolRegistry

        for step in (lambda: self.register_drivers(DriverRegistry()), self.config_sections, self.trailmap_dirs):
            try:
                step()
            except PluginHookError:
                pass  # the guard recorded it on the plugin's status
        try:
            root = find_workspace()
            workspace = load_workspace(root, self) if root is not None else WorkspaceConfig(root=Path.cwd())
        except TrailblazeError:
            workspace = WorkspaceConfig(root=Path.cwd())
        for info, fn, argnames in self._impls("trailblaze_register_tools"):
            registry = ToolRegistry()
            kwargs = {"registry": registry, "config": workspace, "host": self}
            try:
                with registry.contributing(info.source):
                    fn(**{k: kwargs[k] for k in argnames})
            except TrailblazeError:
                pass  # a PluginHookError is on the plugin's status; bad input belongs to the workspace

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
            if impl.hookwrapper or impl.wrapper:
                continue  # wrappers wrap ``pm.hook`` calls; a per-plugin call has nothing to wrap
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
            with registry.contributing(info.source):
                fn(**{k: {"registry": registry}[k] for k in argnames})

    def config_sections(self) -> dict[str, tuple[type[Any], PluginInfo]]:
        sections: dict[str, tuple[type[Any], PluginInfo]] = {}
        for info, result in self._call_each("trailblaze_config_sections"):
            for key, model in (result or {}).items():
                sections[key] = (model, info)
        return sections

    def json_schemas(self) -> dict[str, dict[str, Any]]:
        """Every plugin's editor schemas (``trailblaze_json_schemas``), merged; later plugins win a key."""
        schemas: dict[str, dict[str, Any]] = {}
        for _info, result in self._call_each("trailblaze_json_schemas"):
            schemas.update(result or {})
        return schemas

    def codec(self, registry: "ToolRegistry | None" = None) -> ToolCodec:
        """The codec that decodes, encodes and describes ``registry``'s calls through this host's plugins:
        every reader of trails takes one, so every command answers the contract hooks alike."""
        return ToolCodec(self, registry)

    # The four contract calls. The core's built-in plugin (``builtin.contract``) answers each last, so
    # a None here only happens on a host built without it; it is then an error, not a silent default.
    def tool_descriptor(self, definition: "ToolDefinition", provider: str | None = None) -> "ToolDescriptor":
        found: ToolDescriptor | None = self.pm.hook.trailblaze_tool_descriptor(definition=definition, provider=provider)
        return found if found is not None else self._unanswered("trailblaze_tool_descriptor", definition.name)

    def decode_tool(self, name: str, args: dict[str, Any], registry: "ToolRegistry | None") -> "ToolCall":
        found: ToolCall | None = self.pm.hook.trailblaze_decode_tool(name=name, args=args, registry=registry)
        return found if found is not None else self._unanswered("trailblaze_decode_tool", name)

    def encode_tool(self, call: "ToolCall") -> dict[str, Any]:
        found: dict[str, Any] | None = self.pm.hook.trailblaze_encode_tool(call=call)
        return found if found is not None else self._unanswered("trailblaze_encode_tool", call.name)

    def execute_tool(self, call: "ToolCall", definition: "ToolDefinition", prepared: Any,
                     context: "ToolContext") -> "ToolResult | list[ToolCall]":
        found: ToolResult | list[ToolCall] | None = self._execute_hook(
            call=call, definition=definition, prepared=prepared, context=context)
        return found if found is not None else self._unanswered("trailblaze_execute_tool", call.name)

    def _unanswered(self, hook: str, name: str) -> NoReturn:
        from .errors import InfrastructureError

        raise InfrastructureError(f"no plugin answered {hook} for tool '{name}'",
                                  hint="the core's builtin.contract plugin answers it; was this host built without it?")

    def target_info(self, target: str, config: "WorkspaceConfig") -> "TargetInfo | None":
        found: TargetInfo | None = self.pm.hook.trailblaze_target_info(target=target, config=config)
        return found

    def filter_tools(self, session: "Session", tools: "list[ToolDefinition]") -> "list[ToolDefinition]":
        kept = list(tools)
        for result in self.pm.hook.trailblaze_filter_tools(session=session, tools=list(tools)):
            if result is not None:
                names = {d.name for d in result}
                kept = [d for d in kept if d.name in names]
        return kept

    def check_tools(self, registry: "ToolRegistry", report: "CheckReport", config: "WorkspaceConfig") -> None:
        self.pm.hook.trailblaze_check_tools(registry=registry, report=report, config=config)

    def session_started(self, session: "Session", *, started: list[str] | None = None) -> None:
        """Call each plugin's hook in hook order, appending its name to ``started`` *before* the call,
        so that a plugin failing halfway is still told the session finished (see ``runner.lifecycle``)."""
        for info, fn, argnames in reversed(self._impls("trailblaze_session_started")):
            if started is not None:
                started.append(info.name)
            fn(**{k: {"session": session}[k] for k in argnames})

    def session_finished(self, session: "Session", outcome: "SessionOutcome", *,
                         only: Sequence[str] | None = None) -> list[str]:
        """Call every implementation (or those of the plugins in ``only``, last started first) even if
        one raises; return the errors as lines."""
        errors = []
        impls = self._impls("trailblaze_session_finished")
        if only is not None:
            order = {name: i for i, name in enumerate(only)}
            impls = sorted((i for i in impls if i[0].name in order), key=lambda i: -order[i[0].name])
        for info, fn, argnames in impls:
            kwargs = {"session": session, "outcome": outcome}
            try:
                fn(**{k: kwargs[k] for k in argnames})
            except PluginHookError as exc:
                errors.append(exc.message)
            except Exception as exc:  # noqa: BLE001 - a TrailblazeError raised by the plugin itself
                errors.append(f"plugin '{info.name}' failed in trailblaze_session_finished: {exc}")
        return errors

    def register_commands(self, cli: "click.Group") -> None:
        """Plugins add commands; they never replace one that exists (a built-in such as ``run``, or an
        earlier plugin's), so what ``trailblaze run`` means does not depend on what is installed."""
        for info, fn, argnames in self._impls("trailblaze_register_commands"):
            existing = dict(cli.commands)
            try:
                fn(**{k: {"cli": cli}[k] for k in argnames})
            except PluginHookError as exc:
                self._stderr(f"trailblaze: {exc.message}")
            except Exception as exc:  # noqa: BLE001
                self._stderr(f"trailblaze: plugin '{info.name}' failed to add its commands: {exc}")
            for name, command in existing.items():
                if cli.commands.get(name) is not command:
                    cli.commands[name] = command
                    self._stderr(f"trailblaze: plugin '{info.name}' tried to replace the command '{name}'; "
                                 "kept the existing one")

    def register_llm_providers(self, registry: Any) -> None:
        for info, fn, argnames in self._impls("trailblaze_register_llm_providers"):
            with registry.contributing(info.source):
                fn(**{k: {"registry": registry}[k] for k in argnames})

    def llm_providers(self) -> "LlmProviderRegistry":
        """The LLM provider types this host's plugins register, built on first use."""
        if self._llm_providers is None:
            from .llm.registry import LlmProviderRegistry

            registry = LlmProviderRegistry()
            self.register_llm_providers(registry)
            self._llm_providers = registry
        return self._llm_providers


_UNGUARDED_HOOKS = frozenset({"trailblaze_execute_tool"})

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


__all__ = [
    "PluginHost", "PluginInfo", "get_host", "set_host",
]
