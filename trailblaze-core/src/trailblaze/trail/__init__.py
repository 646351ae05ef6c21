"""Trails: the unified and legacy v1 YAML formats, classifier lineage and saving recordings back."""

from __future__ import annotations

from .model import Trail, TrailArg, TrailConfig, TrailStep

__all__ = ["Trail", "TrailArg", "TrailConfig", "TrailStep"]
