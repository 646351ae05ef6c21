from __future__ import annotations

PROJECT_NAME = "trailblaze"
"""Project name, hook marker name and entry-point group: one name everywhere."""
ENTRY_POINT_GROUP = PROJECT_NAME
