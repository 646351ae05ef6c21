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

Matching follows ``WaypointMatcher.kt``: the block of the closest classifier of the device (its
classifier list, most specific first, then its platform) is used; a waypoint without such a block does
not match this device; every ``required`` condition needs at least ``minCount`` elements and every
``forbidden`` one none. Elements are counted by the driver (``Driver.count_matches``), i.e. by the one
selector resolver each driver already uses for its tools.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import BadInputError, SourceLocation
from ..selectors import NodeSelector, parse_selector
from .files import SUFFIX, discover

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


@dataclass
class Waypoint:
    id: str
    description: str | None
    route: str | None
    blocks: dict[str, WaypointVariant]
    file: Path | None = None

    def block_for(self, classifiers: Iterable[str]) -> WaypointVariant | None:
        """The closest block for a device (its classifiers, most specific first)."""
        for classifier in classifiers:
            if classifier in self.blocks:
                return self.blocks[classifier]
        return None

    def route_for(self, classifiers: Iterable[str]) -> str | None:
        block = self.block_for(classifiers)
        return block.route if block is not None and block.route else self.route


class WaypointFileError(BadInputError):
    """A waypoint file that does not load (exit 3), with the file, line and key."""


@dataclass
class Waypoints:
    """The waypoints of a workspace, and the files that did not load."""

    by_id: dict[str, Waypoint] = field(default_factory=dict)
    errors: list[WaypointFileError] = field(default_factory=list)

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
    for key, value in data.items():
        key = str(key)
        if key in RESERVED:
            if key != "id" and value is not None and not isinstance(value, str):
                raise fail(f"'{key}': must be a string", (key,))
            continue
        if key in _V1_KEYS:
            raise fail(f"'{key}': the v1 top-level '{key}:' is not accepted; move required/forbidden under a "
                       "classifier block (web:, android:, ios:) and drop platforms:", (key,))
        try:
            blocks[key] = WaypointVariant.model_validate(value if value is not None else {})
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = tuple(err.get("loc", ()))
            where = ".".join(str(p) for p in (key, *loc))
            message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
            raise fail(f"'{where}': {message}", (key, *loc)) from None
    description, route = data.get("description"), data.get("route")
    return Waypoint(waypoint_id, description, route, blocks, path)


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

    def explain(self) -> str:
        if self.no_block:
            return f"waypoint '{self.waypoint}' has no block for this device's classifiers"
        parts = [f"required {c.describe()} is missing (found {n})" for c, n in self.missing]
        parts += [f"forbidden {c.describe()} is present ({n})" for c, n in self.present]
        return "; ".join(parts) or "matched"


def device_classifiers(device: DeviceInfo) -> list[str]:
    """Most specific first, then the platform (``web``), as upstream's ``classifierFor`` falls back."""
    out = [c for c in device.classifiers]
    if device.platform not in out:
        out.append(device.platform)
    return out


def match(waypoint: Waypoint, driver: DeviceDriver, classifiers: list[str]) -> WaypointMatch:
    block = waypoint.block_for(classifiers)
    if block is None:
        return WaypointMatch(waypoint.id, False, no_block=True)
    result = WaypointMatch(waypoint.id, True)
    for condition in block.required:
        count = driver.count_matches(condition.selector)
        if count < condition.minCount:
            result.missing.append((condition, count))
    for condition in block.forbidden:
        count = driver.count_matches(condition.selector)
        if count > 0:
            result.present.append((condition, count))
    result.matched = not result.missing and not result.present
    return result


def poll(waypoint: Waypoint, driver: DeviceDriver, classifiers: list[str], *, timeout_ms: int,
         poll_interval_ms: int, sleep: Callable[[float], None] = time.sleep) -> WaypointMatch:
    """``WaypointAssertion.poll``: re-evaluate until it matches or ``timeout_ms`` passes; the last result."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        result = match(waypoint, driver, classifiers)
        if result.matched or result.no_block:
            return result
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return result
        sleep(min(poll_interval_ms / 1000, remaining))


__all__ = [
    "DEFAULT_POLL_INTERVAL_MS", "DEFAULT_TIMEOUT_MS", "SUFFIX", "Waypoint", "WaypointCondition",
    "WaypointFileError", "WaypointMatch", "WaypointVariant", "Waypoints", "device_classifiers", "discover", "load_file",
    "load_workspace_waypoints", "match", "poll",
]
