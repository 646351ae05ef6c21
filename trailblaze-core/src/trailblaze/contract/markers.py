"""The project's one name and the two pluggy markers of the contract, in a module that imports nothing
of the core.

``hookimpl`` is public as ``trailblaze.hookimpl``; modules inside the core import it from here rather
than from the package, whose ``__init__`` re-exports the contract types and would close a circle.
"""

from __future__ import annotations

import pluggy

PROJECT_NAME = "trailblaze"
"""Project name, hook marker name and entry-point group: one name everywhere."""
ENTRY_POINT_GROUP = PROJECT_NAME

hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
"""Marker for hook implementations: ``@trailblaze.hookimpl``."""

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
"""Marker for the hook specifications of ``trailblaze.hookspecs``."""

__all__ = ["hookimpl", "hookspec"]
