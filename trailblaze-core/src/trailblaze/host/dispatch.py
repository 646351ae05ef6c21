"""One attributed dispatch: every hook is called through pluggy, and each plugin's part is known.

The host registers with pluggy, in each plugin's place, a ``GuardedPlugin``: an object whose hook
functions are the plugin's own behind a guard, with the original's signature and ``@hookimpl`` options
(``functools.wraps`` carries both). pluggy therefore orders, wraps (``wrapper=True``/``hookwrapper=True``),
calls (``tryfirst``/``trylast``, ``firstresult``) and traces (``add_hookcall_monitoring``) every hook
as it would without the host, and no ``HookImpl`` is touched.

The guard does two things:

* a plugin's bug becomes that plugin's failure by name (``PluginHookError``: plugin, distribution,
  version, hook, error, and the switch that disables it); a ``TrailblazeError`` passes through, since a
  plugin raising one means it. A wrapper is guarded for what it raises itself, not for the inner call's
  exception that pluggy throws into it and that merely passes through.
* while the host has a ``Ledger`` open for the hook being called, the guard tells it which plugin is
  running (so a registry credits what is added meanwhile to that plugin), what it returned (so a result
  is credited to its plugin), and, for hooks whose contract isolates plugins from each other
  (``trailblaze_session_finished``), records a failure instead of raising it so the others still run.

Not guarded: the ``trailblaze_execute_tool`` implementations that answer, whose exceptions the
dispatcher turns into the failure of the tool being called (a tool's bug fails its step); they are
registered as they are, so the per-call hot path pays nothing for the guard.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from pluggy import HookimplOpts

from ..errors import PluginHookError, TrailblazeError
from ..plugin_info import PluginInfo

UNGUARDED_HOOKS = frozenset({"trailblaze_execute_tool"})

LEDGERED_HOOKS = frozenset({
    "trailblaze_register_tools", "trailblaze_register_drivers", "trailblaze_register_llm_providers",
    "trailblaze_trailmap_dirs", "trailblaze_config_sections", "trailblaze_session_started",
    "trailblaze_session_finished", "trailblaze_register_commands", "trailblaze_output_options",
    "trailblaze_write_run_outputs",
})
"""The hooks the host calls with a ``Ledger``. Only their guards look for one: the others (the contract
hooks every decoded, described, encoded or executed call passes) keep the guard they always had."""

_OPEN: ContextVar[Ledger | None] = ContextVar("trailblaze_hook_ledger", default=None)


@dataclass(eq=False)
class Ledger:
    """One attributed hook call: the guards of the plugins answering ``hook`` note here who did what.

    ``enter``/``leave`` bracket each plugin's turn (a wrapper's turns before and after its ``yield``
    included); ``results`` pairs each non-None result with its plugin (a wrapper that adds items to the
    result list is credited with those); with ``isolate`` a failure goes to ``errors`` and the call goes
    on with the next plugin."""

    hook: str
    isolate: bool = False
    enter: Callable[[PluginInfo], None] | None = None
    leave: Callable[[PluginInfo], None] | None = None
    results: list[tuple[PluginInfo, Any]] = field(default_factory=list)
    errors: list[tuple[PluginInfo, TrailblazeError]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.hook not in LEDGERED_HOOKS:
            raise ValueError(f"{self.hook} is not in dispatch.LEDGERED_HOOKS: its guards would not see the ledger")

    @contextmanager
    def open(self) -> Iterator[Ledger]:
        token = _OPEN.set(self)
        try:
            yield self
        finally:
            _OPEN.reset(token)

    def credited(self, found: list[Any]) -> list[tuple[PluginInfo, Any]]:
        """``found`` (what pluggy returned, wrappers applied), each item with the plugin that produced it."""
        owners = {id(result): info for info, result in self.results}
        return [(owners[id(item)], item) for item in found if id(item) in owners]

    def _turn(self, info: PluginInfo, step: Callable[[], Any]) -> Any:
        if self.enter is not None:
            self.enter(info)
        try:
            return step()
        finally:
            if self.leave is not None:
                self.leave(info)

    def _failed(self, info: PluginInfo, exc: BaseException) -> None:
        """Raise ``exc`` as the plugin's failure, or (isolated) record it and return."""
        error = exc if isinstance(exc, TrailblazeError) else plugin_failed(info, self.hook, exc)
        if not self.isolate:
            if error is exc:
                raise exc
            raise error from exc
        if error is not exc:
            error.__cause__ = exc  # what ``--debug`` shows behind the one line
        self.errors.append((info, error))


def _ledger_for(hook: str) -> Ledger | None:
    ledger = _OPEN.get()
    return ledger if ledger is not None and ledger.hook == hook else None


def plugin_failed(info: PluginInfo, hook: str, exc: BaseException) -> PluginHookError:
    """Mark ``info`` as failed and build the one-line error naming it."""
    err = (f"{type(exc).__name__}: {exc}".strip().splitlines() or [type(exc).__name__])[0]
    info.fail(f"error: {hook}: {err}", err)
    dist = f" ({info.distribution} {info.version})" if info.distribution else ""
    return PluginHookError(f"plugin '{info.name}'{dist} failed in {hook}: {err} "
                           f"-- disable it with TRAILBLAZE_DISABLE_PLUGINS={info.switch}",
                           plugin=info.name, hook=hook)


def guard(info: PluginInfo, hook: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (a plain implementation) failing as ``info``'s failure, noted in the hook's ledger."""
    if hook not in LEDGERED_HOOKS:
        @functools.wraps(fn)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except TrailblazeError:
                raise
            except Exception as exc:  # noqa: BLE001 - whatever a plugin raises is reported as its own
                raise plugin_failed(info, hook, exc) from exc
        return guarded

    @functools.wraps(fn)
    def ledgered(*args: Any, **kwargs: Any) -> Any:
        ledger = _ledger_for(hook)
        if ledger is None:  # called past the host's facade (``pm.hook`` directly)
            try:
                return fn(*args, **kwargs)
            except TrailblazeError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise plugin_failed(info, hook, exc) from exc
        try:
            result = ledger._turn(info, lambda: fn(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001
            ledger._failed(info, exc)
            return None
        if result is not None:
            ledger.results.append((info, result))
        return result
    return ledgered


def guard_wrapper(info: PluginInfo, hook: str, fn: Callable[..., Any], *,
                  old_style: bool) -> Callable[..., Generator[Any, Any, Any]]:
    """A wrapper's generator (``wrapper=True``, or ``hookwrapper=True`` when ``old_style``), relayed
    step by step: each step is the plugin's turn in the ledger, and an exception the wrapper raises
    itself is told apart from the inner call's exception that pluggy throws into it."""
    if hook not in LEDGERED_HOOKS:
        return _guard_plain_wrapper(info, hook, fn)

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
        ledger = _ledger_for(hook)

        def turn(step: Callable[[], Any]) -> Any:
            return step() if ledger is None else ledger._turn(info, step)

        thrown: BaseException | None = None
        sent: Any = None
        yielded = False
        try:
            gen = turn(lambda: fn(*args, **kwargs))
            value = turn(lambda: next(gen))
            while True:
                try:
                    yielded = True
                    sent = yield value
                except BaseException as exc:  # the inner call's error, handed on as is
                    thrown = exc
                    value = turn(lambda: gen.throw(exc))
                else:
                    thrown = None
                    value = turn(lambda: gen.send(sent))
        except StopIteration as stop:
            if ledger is not None and not old_style:
                _credit_added(ledger, info, sent, stop.value)
            return stop.value
        except Exception as exc:  # noqa: BLE001 - whatever a plugin raises is reported as its own
            if exc is thrown:
                raise
            if ledger is None:
                if isinstance(exc, TrailblazeError):
                    raise
                raise plugin_failed(info, hook, exc) from exc
            ledger._failed(info, exc)  # isolated: the call goes on as if this wrapper were not there
        if not yielded:
            sent = yield None
        if thrown is not None:
            raise thrown
        return None if old_style else sent
    return guarded


def _guard_plain_wrapper(info: PluginInfo, hook: str,
                         fn: Callable[..., Any]) -> Callable[..., Generator[Any, Any, Any]]:
    """``guard_wrapper`` for a hook called without a ledger (``trailblaze_execute_tool`` wrappers run on
    every tool call): the generator relayed as it is, no turn to note."""
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
            raise plugin_failed(info, hook, exc) from exc
    return guarded


def _credit_added(ledger: Ledger, info: PluginInfo, before: Any, after: Any) -> None:
    """A wrapper that returns a result list with items of its own is credited with those."""
    if after is before or not isinstance(after, list):
        return
    known = {id(item) for item in before} if isinstance(before, list) else set()
    ledger.results.extend((info, item) for item in after if id(item) not in known)


class GuardedPlugin:
    """What the host registers with pluggy in a plugin's place: the plugin's hook implementations,
    each behind its guard (see the module docstring). ``plugin`` is the object that was registered."""

    def __init__(self, plugin: object) -> None:
        self.plugin = plugin

    def __repr__(self) -> str:
        return f"<guarded {self.plugin!r}>"

    def __dir__(self) -> list[str]:
        """Only what was set on this proxy: pluggy looks for hook implementations among ``dir()``, and
        each name it looks at costs a static lookup (``object``'s own attributes are never hooks)."""
        return list(vars(self))


def guarded_plugin(plugin: object, info: PluginInfo, impls: Mapping[str, HookimplOpts]) -> GuardedPlugin:
    """``plugin``'s hook implementations (``impls``: attribute name to pluggy's options, found by
    ``pm.parse_hookimpl_opts`` as pluggy finds them) set on a ``GuardedPlugin`` under the same names."""
    proxy = GuardedPlugin(plugin)
    for attr, opts in impls.items():
        fn = getattr(plugin, attr)
        hook = opts.get("specname") or attr
        if opts.get("wrapper") or opts.get("hookwrapper"):
            fn = guard_wrapper(info, hook, fn, old_style=bool(opts.get("hookwrapper")))
        elif hook not in UNGUARDED_HOOKS:
            fn = guard(info, hook, fn)
        setattr(proxy, attr, fn)
    return proxy


__all__ = ["LEDGERED_HOOKS", "UNGUARDED_HOOKS", "GuardedPlugin", "Ledger", "guarded_plugin", "plugin_failed"]
