"""Loading plugins: the built-in modules and the ``trailblaze`` entry points, one at a time, each hook
implementation guarded so a plugin's bug is reported as that plugin's, plus registration by hand and
the per-plugin hook calls the facade (``plugins.PluginHost``) is built on. The switches are listed in
``trailblaze.plugins``."""

from __future__ import annotations

import functools
import importlib
from importlib.metadata import EntryPoint, entry_points
import os
import sys
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

from . import hookspecs
from .contract.markers import ENTRY_POINT_GROUP, PROJECT_NAME
from ._version import __version__
from .errors import PluginHookError, PluginLoadError, TrailblazeError
from .plugin_queries import PluginInfo

if TYPE_CHECKING:
    from .llm.registry import LlmProviderRegistry

__all__ = ["DEFAULT_PLUGINS", "PluginLoader"]

DEFAULT_PLUGINS: tuple[str, ...] = (
    "trailblaze.builtin.contract",
    "trailblaze.builtin.tools",
    "trailblaze.builtin.host_driver",
    "trailblaze.llm.llm_config",
    "trailblaze.llm.openai_provider",
    "trailblaze.llm.anthropic_provider",
    "trailblaze.agent.agent_client",
    "trailblaze.builtin.outputs",
)
"""Core modules registered as plugins. In-repo drivers and tool sources are *not* here: they register
through the entry-point group exactly as a third party's plugin does. Named, not imported, so a plugin
above the runner (``builtin.outputs``, the report writers) is reached only through its hooks;
``tests/test_import_rule.py`` draws these names as arrows all the same, so none hides a circle."""


def _env_list(name: str) -> list[str] | None:
    raw = os.environ.get(name)
    if raw is None:
        return None
    return [p.strip() for p in raw.split(",") if p.strip()]



@functools.cache
def installed_entry_points() -> tuple[EntryPoint, ...]:
    """The ``trailblaze`` entry points, resolved once per process."""
    return tuple(sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name))

class PluginLoader:
    """Owns the ``pluggy.PluginManager`` and what was loaded into it; ``PluginHost`` adds the hook calls."""

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


_UNGUARDED_HOOKS = frozenset({"trailblaze_execute_tool"})
