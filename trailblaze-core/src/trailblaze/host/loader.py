"""Loading plugins: the built-in modules and the ``trailblaze`` entry points, one at a time, each
registered behind its guard (``dispatch.GuardedPlugin``) so a plugin's bug is reported as that plugin's,
plus registration by hand for tests. The switches are listed in ``trailblaze.plugins``."""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
from importlib.metadata import EntryPoint, entry_points
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pluggy
from pluggy import HookimplOpts

from .. import hookspecs
from ..contract.markers import ENTRY_POINT_GROUP, PROJECT_NAME
from .._version import __version__
from ..errors import PluginLoadError
from .dispatch import GuardedPlugin, guarded_plugin
from ..plugin_info import PluginInfo

__all__ = ["DEFAULT_PLUGINS", "PluginLoader", "installed_entry_points"]

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



def _same_distribution(a: str, b: str | None) -> bool:
    return b is not None and a.lower().replace("_", "-") == b.lower().replace("_", "-")


def _switched(info: PluginInfo, switches: Iterable[str]) -> bool:
    """Whether a ``TRAILBLAZE_DISABLE_PLUGINS``/``TRAILBLAZE_LOAD_PLUGINS`` value names ``info``: its
    entry-point name (every distribution's), or ``name@distribution`` (that one only)."""
    for switch in switches:
        name, _, dist = switch.partition("@")
        if name == info.name and (not dist or _same_distribution(dist, info.distribution)):
            return True
    return False


HOOK_NAMES: tuple[str, ...] = tuple(sorted(n for n in dir(hookspecs) if n.startswith("trailblaze_")))


def did_you_mean(name: str) -> str:
    close = difflib.get_close_matches(name, HOOK_NAMES, n=1)
    return f"; did you mean {close[0]}?" if close else ""


class PluginLoader:
    """Owns the ``pluggy.PluginManager`` and what was loaded into it, plugin by plugin."""

    def __init__(self, *, load_entrypoints: bool = True, builtins: Iterable[str] = DEFAULT_PLUGINS,
                 stderr: Callable[[str], None] | None = None) -> None:
        self.pm = pluggy.PluginManager(PROJECT_NAME)
        self.pm.add_hookspecs(hookspecs)
        self._infos: dict[str, PluginInfo] = {}
        self.stderr = stderr or (lambda line: print(line, file=sys.stderr))
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
        disabled = _env_list("TRAILBLAZE_DISABLE_PLUGINS") or []
        allowed = _env_list("TRAILBLAZE_LOAD_PLUGINS")
        found: list[tuple[EntryPoint, PluginInfo]] = []
        for ep in installed_entry_points():
            dist = version = None
            if ep.dist is not None:  # ``.name`` and ``.version`` would each read and parse METADATA
                metadata = ep.dist.metadata
                dist, version = metadata["Name"], metadata["Version"]
            found.append((ep, PluginInfo(ep.name, dist, version, False)))
        found.sort(key=lambda pair: (pair[1].name, (pair[1].distribution or "").lower()))
        declared: dict[str, list[PluginInfo]] = {}
        for _ep, info in found:
            declared.setdefault(info.name, []).append(info)
        for infos in declared.values():
            if len({i.distribution for i in infos}) > 1:
                for info in infos:
                    info.shared_name = True
        loaded: dict[str, PluginInfo] = {}
        for ep, info in found:
            if _switched(info, disabled) or (allowed is not None and not _switched(info, allowed)):
                info.status = "disabled"
                self._infos[info.switch] = info
                if not info.shared_name:
                    self.pm.set_blocked(ep.name)
                continue
            first = loaded.get(info.name)
            if first is not None:
                self._clash(first, info)
                continue
            loaded[info.name] = info
            try:
                obj = ep.load()
            except Exception as exc:  # noqa: BLE001 - a plugin may fail in any way
                self._failed(info, exc)
                continue
            self._register(obj, ep.name, info)

    def _clash(self, first: PluginInfo, other: PluginInfo) -> None:
        """Two distributions declare the entry-point name ``first.name``: the first (by distribution
        name) loads, the other is shown as failed, and one line names both and the switches."""
        err = (f"entry-point name '{other.name}' is also declared by {first.distribution} {first.version}; "
               f"loaded {first.distribution}'s")
        other.fail(f"error: {err}", err)
        self._infos[other.switch] = other
        line = (f"trailblaze: plugin '{other.name}' is declared by two distributions, {first.distribution} "
                f"{first.version} (loaded) and {other.distribution} {other.version} (not loaded) -- keep one with "
                f"TRAILBLAZE_DISABLE_PLUGINS={other.switch} or TRAILBLAZE_DISABLE_PLUGINS={first.switch}")
        if self.strict:
            raise PluginLoadError(line.removeprefix("trailblaze: "),
                                  hint="TRAILBLAZE_STRICT_PLUGINS=1 makes this fatal")
        self.stderr(line)

    def _register(self, obj: Any, name: str, info: PluginInfo) -> None:
        proxy: GuardedPlugin | None = None
        try:
            impls = self._hookimpls(obj, info)
            proxy = guarded_plugin(obj, info, impls)
            self.pm.register(proxy, name=name)
            self.pm.check_pending()
        except Exception as exc:  # noqa: BLE001
            if proxy is not None and self.pm.get_plugin(name) is proxy:
                self.pm.unregister(name=name)
            self._failed(info, exc)
            return
        info.hooks = sorted(h.name for h in self.pm.get_hookcallers(proxy) or [])
        self._infos[name] = info
        for warning in info.warnings:
            self.stderr(f"trailblaze: warning: {warning}")

    def _hookimpls(self, obj: Any, info: PluginInfo) -> dict[str, HookimplOpts]:
        """``obj``'s hook implementations, found as pluggy finds them, in one pass over its attributes
        (pluggy's static lookup of each is most of a plugin's registration). A marked implementation of
        no hook is an error with the closest hook name; a function named like a hook but not marked
        ``@hookimpl`` (so pluggy never calls it) is a warning."""
        impls: dict[str, HookimplOpts] = {}
        for attr in dir(obj):
            opts = self.pm.parse_hookimpl_opts(obj, attr)
            hook = (opts.get("specname") if opts is not None else None) or attr
            known = hook in HOOK_NAMES
            if opts is not None:
                if not known:
                    raise pluggy.PluginValidationError(obj, f"unknown hook '{hook}'{did_you_mean(hook)} "
                                                       "(see `trailblaze plugins --all` and docs/hooks.md)")
                impls[attr] = opts
            elif attr.startswith("trailblaze_") and _is_function(obj, attr):
                why = ("is not marked @trailblaze.hookimpl, so it is never called" if known
                       else f"is not marked @trailblaze.hookimpl and names no hook{did_you_mean(attr)}")
                info.warnings.append(f"plugin '{info.name}': function {attr} {why}")
        return impls

    def _failed(self, info: PluginInfo, exc: BaseException) -> None:
        err = f"{type(exc).__name__}: {exc}".strip().splitlines()[0]
        info.fail(f"error: {err}", err)
        self._infos[info.switch] = info
        dist = f" ({info.distribution} {info.version})" if info.distribution else ""
        line = (f"trailblaze: plugin '{info.name}'{dist} failed to load: {err} "
                f"-- disable it with TRAILBLAZE_DISABLE_PLUGINS={info.switch}")
        if self.strict:
            raise PluginLoadError(line.removeprefix("trailblaze: "),
                                  hint="TRAILBLAZE_STRICT_PLUGINS=1 makes this fatal")
        self.stderr(line)

    def _enable_tracing(self) -> None:
        """pluggy's own call monitoring: every hook passes through ``pm.hook`` (see ``dispatch``)."""
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
        if self.pm.is_blocked(name):  # pluggy would drop it without a word
            raise PluginLoadError(f"plugin '{name}' was not registered: that name is disabled in this process "
                                  "(TRAILBLAZE_DISABLE_PLUGINS / TRAILBLAZE_LOAD_PLUGINS)")
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


def _is_function(obj: Any, attr: str) -> bool:
    static = inspect.getattr_static(obj, attr, None)
    return inspect.isroutine(static) or isinstance(static, (staticmethod, classmethod))
