"""The device endpoint pool: which Playwright server, Appium server or hub each worker drives.

A pool comes from ``--endpoint URL`` (pytest: ``--trailblaze-endpoint``; one pool for every driver) or,
when none is given, from the workspace's ``endpoints:`` in ``trailblaze.yaml`` — one list for every
driver, or one per driver (named by key, alias or platform), so a run of web and Android trails gives
each worker its own browser server *and* its own Appium server. xdist worker ``gwK`` takes entry ``K``
of the pool (modulo its size: a replacement for a crashed worker takes a dead worker's); without
workers, the ``K``-th ``-d`` device takes entry ``K``. ``check_pool_sizes`` refuses a pool smaller
than the number of workers before any starts, so no endpoint serves two workers at once.

An entry of a Selenium Grid hub (``grid+http://hub:4444``) may say how many sessions it holds at once
(``grid+http://hub:4444#slots=3``): it stands for that many entries, one per worker, so a hub with three
slots serves three workers and a pool too small for ``-n`` is refused as for the other kinds. The
driver receives the entry without its slot count; the ``grid+`` prefix tells it the URL is a hub.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BadInputError, ConfigError

GRID_PREFIX = "grid+"
"""The prefix of a pool entry that is a Selenium Grid hub (``grid+http://hub:4444``)."""
SLOTS_SUFFIX = "#slots="

if TYPE_CHECKING:
    from ..config import WorkspaceConfig
    from ..driver import Driver, DriverRegistry


def configured_pool(ws: WorkspaceConfig, cls: type[Driver], drivers: DriverRegistry) -> list[str]:
    """``cls``'s pool from ``ws``'s ``endpoints:`` (empty when it has none); a pool for a driver name no
    installed driver answers to is bad input at its line (a typo must not silently drop the pool)."""
    pools = ws.endpoints
    if pools is None:
        return []
    chosen: list[str] = []
    for name, pool in pools.pools().items():
        if name is None:
            return expand_slots(pool)
        named = drivers.get(name)
        if named is None:
            raise ConfigError(f"'endpoints.{name}': no installed driver is called '{name}'",
                              location=ws.location("endpoints", name),
                              hint=f"installed drivers: {', '.join(drivers.keys())}")
        if named is cls:
            chosen = pool
    return expand_slots(chosen)


def expand_slots(pool: Sequence[str]) -> list[str]:
    """Each entry once per slot it holds (``grid+URL#slots=N``: N times, without the count); entries of
    other kinds, and a hub without a count, hold one. A count that is not a positive whole number is bad
    input naming the entry."""
    expanded: list[str] = []
    for entry in pool:
        url, sep, count = entry.partition(SLOTS_SUFFIX)
        if not sep:
            expanded.append(entry)
            continue
        if not url.startswith(GRID_PREFIX):
            raise BadInputError(f"endpoint '{entry}': only a Selenium Grid hub ({GRID_PREFIX}URL) has slots",
                                hint=f"write {GRID_PREFIX}{url}{SLOTS_SUFFIX}{count or 'N'}, or drop {SLOTS_SUFFIX}N")
        if not count.isdigit() or int(count) < 1:
            raise BadInputError(f"endpoint '{entry}': the slot count must be a whole number of at least 1",
                                hint=f"e.g. {url}{SLOTS_SUFFIX}2")
        expanded.extend([url] * int(count))
    return expanded


def plain_devices(specs: Sequence[str]) -> list[str]:
    """The ``-d`` values that name devices to run every trail on (not ``ACTOR=DEVICE`` bindings)."""
    return [spec for spec in specs if "=" not in spec]


def actor_bindings(specs: Sequence[str]) -> dict[str, str]:
    """The ``-d ACTOR=DEVICE`` bindings: actor name → device spec (``alice=android/emulator-5554``)."""
    out: dict[str, str] = {}
    for spec in specs:
        name, sep, device = spec.partition("=")
        if not sep:
            continue
        name, device = name.strip(), device.strip()
        if not name or not device:
            raise BadInputError(f"-d {spec}: an actor binding is ACTOR=PLATFORM[/ID]", hint="e.g. -d alice=web")
        if name in out:
            raise BadInputError(f"-d {spec}: actor '{name}' is bound twice ({name}={out[name]})")
        out[name] = device
    return out


def slot(worker: str | None, device: str | None, devices: Sequence[str]) -> int:
    """The pool entry a worker (``gwK``: ``K``), else a ``-d`` device (its position), takes."""
    worker = worker or ""
    if worker.startswith("gw") and worker[2:].isdigit():
        return int(worker[2:])
    if device is not None and device in devices:
        return list(devices).index(device)
    return 0


def check_pool_sizes(workers: int, given: Sequence[str], paths: Sequence[str]) -> None:
    """Before ``-n N`` starts: at least N endpoints in ``--endpoint``, else in every pool of the
    workspace's ``endpoints:`` (the workspace of the first path, as the run will find it)."""
    hint = "one endpoint per worker: no endpoint serves two workers at once"
    if given:
        given = expand_slots(given)
        if len(given) < workers:
            raise BadInputError(f"{workers} workers need at least {workers} endpoints (--endpoint given {len(given)})",
                                hint=hint)
        return
    from ..config import find_workspace, load_workspace

    root = find_workspace(Path(paths[0]) if paths else None)
    if root is None:
        return
    ws = load_workspace(root, only="endpoints")
    pools = ws.endpoints
    for name, pool in (pools.pools().items() if pools is not None else ()):
        where = ["endpoints", name] if name is not None else ["endpoints"]
        try:
            pool = expand_slots(pool)
        except BadInputError as exc:
            raise ConfigError(exc.message, location=ws.location(*where), hint=exc.hint) from None
        if len(pool) < workers:
            raise ConfigError(f"{workers} workers need at least {workers} endpoints "
                              f"('{'.'.join(where)}' has {len(pool)})", location=ws.location(*where), hint=hint)


__all__ = ["GRID_PREFIX", "actor_bindings", "check_pool_sizes", "configured_pool", "expand_slots", "plain_devices",
           "slot"]
