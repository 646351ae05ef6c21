"""Expensive things (a browser, a device server) shared by the sessions of one run, per thread.

Starting Chromium costs far more than opening a fresh browser context in it, so a run of many trails
keeps one browser and gives every trail its own context (the pytest-playwright model). Whoever runs
several sessions opens a *reuse scope* (``trailblaze run`` for the trails of one device, the pytest
plugin for the trails of one worker); a driver asks the current scope for its shared resource and
falls back to starting its own when there is none (``trailblaze snapshot``, the authors' test kit),
so behaviour outside a scope is unchanged.

Scopes are per thread on purpose: Playwright's sync API and most device clients are bound to the
thread that started them, and ``trailblaze run -d a -d b`` runs each device in its own thread. A scope
closes what it holds, newest first, in the thread that opened it.

The actors of one trail (``config.actors``) each run on a thread of their own, so a reuse scope cannot
reach across them; ``ActorShare`` is what they share instead: one per trail with actors, on every actor's
session (``session.actor_share``). It only hands out values; a driver whose resource is thread-bound
(a Playwright browser) counts its own users and closes it on the thread that opened it. A run keeps its
actor threads between trails, each with a reuse scope of its own (``runner/crew.py``): values the trails
of the run share go through ``ActorShare.kept`` (held by the run), and what they coordinate is held, and
closed, by those threads' scopes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")

_local = threading.local()


@dataclass
class _Held:
    value: Any
    close: Callable[[], None]


@dataclass
class ReuseScope:
    """What one thread's run shares between its sessions, and how many of each it had to open."""

    held: dict[Hashable, _Held] = field(default_factory=dict)
    opened: dict[Hashable, int] = field(default_factory=dict)
    """How many times each key's factory ran (a crashed browser is reopened: the count says so)."""

    def get(self, key: Hashable, factory: Callable[[], tuple[T, Callable[[], None]]],
            alive: Callable[[T], bool] | None = None) -> T:
        """The value held under ``key``; ``factory`` opens it (returning the value and its closer) the first
        time, and again when ``alive`` says the held one died."""
        held = self.held.get(key)
        if held is not None and alive is not None and not alive(held.value):
            self.held.pop(key, None)
            _quietly(held.close)
            held = None
        if held is None:
            value, close = factory()
            held = self.held[key] = _Held(value, close)
            self.opened[key] = self.opened.get(key, 0) + 1
        result: T = held.value
        return result

    def discard(self, key: Hashable) -> None:
        """Close and forget ``key``'s value (it turned out broken); the next ``get`` opens a new one."""
        held = self.held.pop(key, None)
        if held is not None:
            _quietly(held.close)

    def close(self) -> None:
        """Close everything held, newest first; a closer that fails never stops the others."""
        while self.held:
            _key, held = self.held.popitem()
            _quietly(held.close)


class ActorShare:
    """What the actors of one trail share across their threads: which actors use which driver, and values
    the first of them to ask creates (under a lock) and the others then get.

    A driver decides from ``peers`` whether sharing pays (the web driver opens one Chromium for the web
    actors of a trail, a context each, only when two or more of them use it). Thread-safe."""

    def __init__(self, drivers: dict[str, str], run: ActorShare | None = None) -> None:
        self.drivers = dict(drivers)
        """Actor name -> the key of its driver (``playwright-web``), in the trail's order."""
        self.run = run
        """What the trails of the run share, when the run keeps its actor threads between trails (each
        with a reuse scope of its own): ``kept`` values live there. None: nothing outlives the trail."""
        self._lock = threading.Lock()
        self._values: dict[Hashable, Any] = {}

    def peers(self, driver_key: str) -> list[str]:
        """The actors whose driver is ``driver_key``."""
        return [name for name, key in self.drivers.items() if key == driver_key]

    def get(self, key: Hashable, factory: Callable[[], T]) -> T:
        """The value under ``key``; the first caller's ``factory`` makes it (never twice, whatever the
        threads). Closing it is the caller's business: the share only forgets it with the trail."""
        with self._lock:
            if key not in self._values:
                self._values[key] = factory()
            value: T = self._values[key]
            return value

    def kept(self, key: Hashable, factory: Callable[[], T]) -> T:
        """Like ``get``, for the run's trails: a value the actor threads' reuse scopes hold on to (one
        Chromium for the run's web actors); the trail's own value when the run keeps nothing."""
        return (self.run or self).get(key, factory)

    def renew(self, key: Hashable, broken: T, factory: Callable[[], T]) -> T:
        """Replace the ``kept`` value ``broken`` (a browser that died) with a new one, unless another
        thread did already; the value now under ``key``."""
        target = self.run or self
        with target._lock:
            if target._values.get(key) is broken:
                target._values[key] = factory()
            value: T = target._values[key]
            return value


def current_scope() -> ReuseScope | None:
    """The innermost scope this thread opened, or None (then drivers start and stop their own)."""
    stack: list[ReuseScope] = getattr(_local, "stack", [])
    return stack[-1] if stack else None


@contextmanager
def active(scope: ReuseScope) -> Iterator[ReuseScope]:
    """Make ``scope`` this thread's current one for the block, without closing it afterwards (the pytest
    plugin keeps one scope for a worker's trails and activates it around each trail only)."""
    stack: list[ReuseScope] | None = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    stack.append(scope)
    try:
        yield scope
    finally:
        if stack and stack[-1] is scope:
            stack.pop()
        elif scope in stack:
            stack.remove(scope)


@contextmanager
def reuse_scope() -> Iterator[ReuseScope]:
    """Share expensive resources between the sessions run inside the ``with`` block, in this thread.

    Inside a scope that is already active (``trailblaze_session.run_trail`` in a pytest worker), that
    scope is used and left open: the outer owner closes it."""
    current = current_scope()
    if current is not None:
        yield current
        return
    scope = ReuseScope()
    try:
        with active(scope):
            yield scope
    finally:
        scope.close()


def _quietly(close: Callable[[], None]) -> None:
    try:
        close()
    except Exception:  # noqa: BLE001 - already gone (a crashed browser, a killed server)
        pass


__all__ = ["ActorShare", "ReuseScope", "active", "current_scope", "reuse_scope"]
