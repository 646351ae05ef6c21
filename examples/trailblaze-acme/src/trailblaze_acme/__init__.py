"""Example third-party Trailblaze plugin."""

from __future__ import annotations

__version__ = "0.1.0"
