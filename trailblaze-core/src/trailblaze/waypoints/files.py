"""Where a workspace's waypoint files are: ``*.waypoint.yaml`` anywhere under ``trails/config/``.

Kept apart from ``model.py`` (the file model, loading and matching) so that ``trailblaze check`` of a
workspace without waypoints — most of them — only walks the directory and never imports the models.
"""

from __future__ import annotations

import os
from pathlib import Path

SUFFIX = ".waypoint.yaml"


def discover(config_dir: Path) -> list[Path]:
    """The waypoint files under ``config_dir``, sorted; symlinked directories are not followed (a link
    back up the tree would otherwise loop)."""
    found: list[Path] = []
    for directory, _dirs, names in os.walk(config_dir):
        found.extend(Path(directory, name) for name in names
                     if name.endswith(SUFFIX) and os.path.isfile(os.path.join(directory, name)))
    return sorted(found)


__all__ = ["SUFFIX", "discover"]
