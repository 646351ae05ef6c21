"""Deprecated module: ``ArtifactDriver`` was the artifacts layer of ``PlaywrightDriver``.

The driver now holds its parts: ``screenshots.Screenshots``, ``trace.TraceRecorder``,
``video.ScreencastRecorder`` and ``evidence.WebEvidence``. ``ArtifactDriver`` names the driver itself for
one minor version, with a ``DeprecationWarning``; ``TRACE_FILE`` and ``scrub_zip`` live in ``trace``.
Nothing in the package imports this module, so its lazy import of the driver closes no circle.
"""

from __future__ import annotations

import warnings
from typing import Any

from .screenshots import Screenshots
from .trace import TRACE_FILE, scrub_zip


def __getattr__(name: str) -> Any:
    """``ArtifactDriver`` was a layer of ``PlaywrightDriver`` (screenshots, trace, video, evidence); the
    driver now holds those as parts, and the name is the driver itself for one minor version."""
    if name == "ArtifactDriver":
        warnings.warn("trailblaze_driver_web.artifacts.ArtifactDriver is deprecated: use "
                      "trailblaze_driver_web.driver.PlaywrightDriver", DeprecationWarning, stacklevel=2)
        from .driver import PlaywrightDriver

        return PlaywrightDriver
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["TRACE_FILE", "Screenshots", "scrub_zip"]
