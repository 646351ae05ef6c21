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


__all__ = ["ReuseScope", "active", "current_scope", "reuse_scope"]
