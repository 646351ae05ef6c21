"""Waypoints: named places of an app, each recognised by selectors that must (and must not) be on screen.

The file format is upstream's v2 (``WaypointDefinition.kt``, ``WaypointDefinitionSerializer.kt``): one
``*.waypoint.yaml`` per place anywhere under ``trails/config/`` (upstream keeps them in a trailmap's
``waypoints/``), with ``id``, ``description``, ``route`` and one block per device classifier::

    id: shop/cart
    description: The cart page. Distinct from shop/checkout.
    web:
      route: /cart.html
      required:
        - selector: {web: {ariaRole: heading, ariaNameRegex: Your cart}}
      forbidden:
        - {description: an empty cart, selector: {web: {cssSelector: .empty}}}

Matching follows ``WaypointMatcher.kt`` and ``ResolvedWaypoint.kt``: the device's classifiers are
expanded as upstream's ``TrailblazeClassifierLineage`` does (``[android, tablet]`` → ``android-tablet``,
``android``, ``tablet``); a waypoint with no block on that chain does not match this device; otherwise
``route``, ``required`` and ``forbidden`` are each taken from the closest block that has one (an empty
list counts as none), so a specific block holding only a ``route`` keeps its family's conditions. A
``{{target.appId}}`` left in a selector (no app id known) fails closed. Every ``required`` condition needs
at least ``minCount`` elements and every ``forbidden`` one none. Elements are counted by the driver
(``Driver.count_matches``), i.e. by the one selector resolver each driver already uses for its tools.

Unknown keys in a file are ignored, as upstream's lenient decoding does, each with one warning naming
its line (``lenient.py``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import BadInputError, SourceLocation
from ..selectors import NodeSelector, parse_selector
from .files import SUFFIX, discover
from .lenient import drop_unknown_keys
from .templates import APP_ID_PLACEHOLDER, expand

if TYPE_CHECKING:
    from ..config import WorkspaceConfig
    from ..contract.device import DeviceDriver, DeviceInfo

RESERVED = ("id", "description", "route")
_V1_KEYS = frozenset({"required", "forbidden", "platforms"})
_ID = re.compile(r"^[^/\s]+(/[^/\s]+)+$")
DEFAULT_TIMEOUT_MS = 5_000
DEFAULT_POLL_INTERVAL_MS = 250


class WaypointCondition(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: str | None = None
    minCount: int = Field(1, ge=1)
    selector: NodeSelector

    @field_validator("selector", mode="before")
    @classmethod
    def _selector(cls, value: Any) -> NodeSelector:
        return parse_selector(value, owner="selector")

    def describe(self) -> str:
        label = self.description or self.selector.describe().removeprefix("nodeSelector ")
        return label + (f" (at least {self.minCount})" if self.minCount > 1 else "")


class WaypointVariant(BaseModel):
    model_config = ConfigDict(extra="forbid")

    route: str | None = None
    required: list[WaypointCondition] = Field(default_factory=list)
    forbidden: list[WaypointCondition] = Field(default_factory=list)
    example: dict[str, Any] | None = None


@dataclass(frozen=True)
class ResolvedWaypoint:
    """A waypoint flattened for one device: each field from the closest block that declares it
    (upstream ``ResolvedWaypoint``)."""

    id: str
    classifier: str
    """The most specific classifier of the chain it was resolved for."""
    description: str | None
    route: str | None
    required: list[WaypointCondition]
    forbidden: list[WaypointCondition]
    example: dict[str, Any] | None


@dataclass
class Waypoint:
    id: str
    description: str | None
    route: str | None
    blocks: dict[str, WaypointVariant]
    file: Path | None = None
    warnings: list[tuple[str, SourceLocation]] = field(default_factory=list)
    """Keys the file has that a waypoint does not (ignored, as upstream does): message and where."""

    def resolve(self, chain: Sequence[str]) -> ResolvedWaypoint | None:
        """This waypoint for a device whose classifier chain (most specific first) is ``chain``; None when
        no block is on it. Per field, replace-not-merge: the closest ``route``, the closest non-empty
        ``required`` and ``forbidden`` lists, the closest ``example``."""
        variants = [self.blocks[c] for c in chain if c in self.blocks]
        if not variants:
            return None
        return ResolvedWaypoint(
            id=self.id, classifier=chain[0], description=self.description,
            route=next((v.route for v in variants if v.route), None) or self.route,
            required=next((v.required for v in variants if v.required), []),
            forbidden=next((v.forbidden for v in variants if v.forbidden), []),
            example=next((v.example for v in variants if v.example is not None), None))

    def block_for(self, classifiers: Iterable[str]) -> WaypointVariant | None:
        """The closest block for a device (its classifiers, most specific first)."""
        for classifier in classifiers:
            if classifier in self.blocks:
                return self.blocks[classifier]
        return None

    def route_for(self, classifiers: Iterable[str]) -> str | None:
        """The closest block's ``route`` that has one, else the top-level default."""
        return next((self.blocks[c].route for c in classifiers if c in self.blocks and self.blocks[c].route),
                    None) or self.route


class WaypointFileError(BadInputError):
    """A waypoint file that does not load (exit 3), with the file, line and key."""


@dataclass
class Waypoints:
    """The waypoints of a workspace, and the files that did not load."""

    by_id: dict[str, Waypoint] = field(default_factory=dict)
    errors: list[WaypointFileError] = field(default_factory=list)

    @property
    def warnings(self) -> list[tuple[str, SourceLocation]]:
        """Every loaded file's ignored keys, one entry per key."""
        return [w for waypoint in self.by_id.values() for w in waypoint.warnings]

    def get(self, waypoint_id: str) -> Waypoint | None:
        return self.by_id.get(waypoint_id)


def load_file(path: Path) -> Waypoint:
    """One waypoint file; a ``WaypointFileError`` names the file, line and key of the first problem."""
    from ..yamlio import load_fast, locate_in_text, read_text

    text = read_text(path)
    data = load_fast(text, path)
    if not isinstance(data, dict):
        raise WaypointFileError("a waypoint file is a map with 'id' and per-classifier blocks",
                                location=SourceLocation(path, 1, 1))

    def fail(message: str, key_path: tuple[Any, ...]) -> WaypointFileError:
        return WaypointFileError(message, location=locate_in_text(text, key_path, path))

    waypoint_id = data.get("id")
    if not isinstance(waypoint_id, str) or not waypoint_id.strip():
        raise fail("'id': a waypoint needs a non-blank string id like <trailmap>/<place>", ("id",))
    if not _ID.match(waypoint_id):
        raise fail(f"'id': waypoint id '{waypoint_id}' must have two or more non-blank '/'-separated "
                   "segments", ("id",))
    blocks: dict[str, WaypointVariant] = {}
    warnings: list[tuple[str, SourceLocation]] = []
    for key, value in data.items():
        key = str(key)
        if key in RESERVED:
            if key != "id" and value is not None and not isinstance(value, str):
                raise fail(f"'{key}': must be a string", (key,))
            continue
        if key in _V1_KEYS:
            raise fail(f"'{key}': the v1 top-level '{key}:' is not accepted; move required/forbidden under a "
                       "classifier block (web:, android:, ios:) and drop platforms:", (key,))
        value, unknown = drop_unknown_keys(value, WaypointVariant, (key,))
        for key_path in unknown:
            warnings.append((f"unknown key '{'.'.join(str(p) for p in key_path)}' in waypoint '{waypoint_id}' is "
                             "ignored", locate_in_text(text, key_path, path)))
        try:
            blocks[key] = WaypointVariant.model_validate(value if value is not None else {})
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = tuple(err.get("loc", ()))
            where = ".".join(str(p) for p in (key, *loc))
            message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
            raise fail(f"'{where}': {message}", (key, *loc)) from None
    description, route = data.get("description"), data.get("route")
    return Waypoint(waypoint_id, description, route, blocks, path, warnings)


def load_workspace_waypoints(config: WorkspaceConfig, files: list[Path] | None = None) -> Waypoints:
    """Every waypoint file under ``trails/config/`` (or ``files``, already discovered there); a broken
    file is kept as an error, the rest load."""
    found = Waypoints()
    for path in discover(config.config_dir) if files is None else files:
        try:
            waypoint = load_file(path)
        except BadInputError as exc:
            if not isinstance(exc, WaypointFileError):
                exc = WaypointFileError(exc.message, location=exc.location or SourceLocation(path))
            found.errors.append(exc)
            continue
        other = found.by_id.get(waypoint.id)
        if other is not None:
            found.errors.append(WaypointFileError(f"waypoint '{waypoint.id}' is also defined in {other.file}",
                                                  location=SourceLocation(path, 1, 1)))
            continue
        found.by_id[waypoint.id] = waypoint
    return found


# -- matching ----------------------------------------------------------------------------------------
@dataclass
class WaypointMatch:
    waypoint: str
    matched: bool
    missing: list[tuple[WaypointCondition, int]] = field(default_factory=list)
    """Required conditions with fewer elements than they need (and how many there were)."""
    present: list[tuple[WaypointCondition, int]] = field(default_factory=list)
    """Forbidden conditions that matched (and how many)."""
    no_block: bool = False
    unresolved_template: bool = False
    """A selector still holds ``{{target.appId}}`` (no app id known): not evaluated, not matched."""

    def explain(self) -> str:
        if self.no_block:
            return f"waypoint '{self.waypoint}' has no block for this device's classifiers"
        if self.unresolved_template:
            return (f"waypoint '{self.waypoint}' has a selector with {APP_ID_PLACEHOLDER} and the session's target "
                    "names no app id for this platform, so it is not evaluated")
        parts = [f"required {c.describe()} is missing (found {n})" for c, n in self.missing]
        parts += [f"forbidden {c.describe()} is present ({n})" for c, n in self.present]
        return "; ".join(parts) or "matched"


def device_classifiers(device: DeviceInfo) -> list[str]:
    """The device's classifier chain, most specific first: its classifiers (broad first, or its platform
    when it reports none) expanded as upstream's ``TrailblazeClassifierLineage.resolutionChain``, then the
    platform when the chain does not hold it already."""
    from ..trail.classifiers import lineage

    out = lineage(device.classifiers or [device.platform])
    if device.platform not in out:
        out.append(device.platform)
    return out


def match(waypoint: Waypoint, driver: DeviceDriver, classifiers: Sequence[str], *,
          app_ids: Sequence[str] = ()) -> WaypointMatch:
    """Match ``waypoint`` on the driver's current screen for a device whose classifier chain (most specific
    first, see :func:`device_classifiers`) is ``classifiers``; ``app_ids`` fill ``{{target.appId}}``."""
    resolved = waypoint.resolve(list(classifiers))
    if resolved is None:
        return WaypointMatch(waypoint.id, False, no_block=True)
    required = [_expanded(c, app_ids) for c in resolved.required]
    forbidden = [_expanded(c, app_ids) for c in resolved.forbidden]
    if any(left for _c, _s, left in (*required, *forbidden)):
        return WaypointMatch(waypoint.id, False, unresolved_template=True)
    result = WaypointMatch(waypoint.id, True)
    for condition, selector, _left in required:
        count = driver.count_matches(selector)
        if count < condition.minCount:
            result.missing.append((condition, count))
    for condition, selector, _left in forbidden:
        count = driver.count_matches(selector)
        if count > 0:
            result.present.append((condition, count))
    result.matched = not result.missing and not result.present
    return result


def _expanded(condition: WaypointCondition, app_ids: Sequence[str]) -> tuple[WaypointCondition, NodeSelector, bool]:
    selector, left = expand(condition.selector, app_ids)
    return condition, selector, left


def poll(waypoint: Waypoint, driver: DeviceDriver, classifiers: Sequence[str], *, timeout_ms: int,
         poll_interval_ms: int, sleep: Callable[[float], None] = time.sleep,
         app_ids: Sequence[str] = ()) -> WaypointMatch:
    """``WaypointAssertion.poll``: re-evaluate until it matches or ``timeout_ms`` passes; the last result."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        result = match(waypoint, driver, classifiers, app_ids=app_ids)
        if result.matched or result.no_block or result.unresolved_template:
            return result
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return result
        sleep(min(poll_interval_ms / 1000, remaining))


__all__ = [
    "DEFAULT_POLL_INTERVAL_MS", "DEFAULT_TIMEOUT_MS", "SUFFIX", "ResolvedWaypoint", "Waypoint", "WaypointCondition",
    "WaypointFileError", "WaypointMatch", "WaypointVariant", "Waypoints", "device_classifiers", "discover", "load_file",
    "load_workspace_waypoints", "match", "poll",
]
