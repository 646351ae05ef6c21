"""Waypoints: named places of an app (``model``: the files' model, loading and matching) and where their
files are (``files``).

The public names of ``trailblaze.waypoints`` resolve lazily from ``model``: ``trailblaze check`` of a
workspace without waypoints imports ``trailblaze.waypoints.files`` (which runs this ``__init__``) and must
not pay for the models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .files import SUFFIX, discover

if TYPE_CHECKING:
    from .model import (DEFAULT_POLL_INTERVAL_MS, DEFAULT_TIMEOUT_MS, ResolvedWaypoint, Waypoint, WaypointCondition, WaypointFileError,
                        WaypointMatch, WaypointVariant, Waypoints, device_classifiers, load_file,
                        load_workspace_waypoints, match, poll)

__all__ = [
    "DEFAULT_POLL_INTERVAL_MS", "DEFAULT_TIMEOUT_MS", "ResolvedWaypoint", "SUFFIX", "Waypoint", "WaypointCondition",
    "WaypointFileError", "WaypointMatch", "WaypointVariant", "Waypoints", "device_classifiers", "discover", "load_file",
    "load_workspace_waypoints", "match", "poll",
]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'trailblaze.waypoints' has no attribute {name!r}")
    from . import model

    value = getattr(model, name)
    globals()[name] = value
    return value
