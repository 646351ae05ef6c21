"""Classifier lineage (upstream ``TrailblazeClassifierLineage``): which recording key applies.

Device classifiers arrive broad-first (``["android", "phone"]``). The compound ``android-phone`` is
expanded by dropping trailing ``-segments`` (``android-phone-37 → android-phone → android``), then each
original segment's own chain is appended, the most specific (last) segment first. The first element
present in a map wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

T = TypeVar("T")


def lineage(classifiers: Sequence[str]) -> list[str]:
    """Most specific first: ``["android", "phone"]`` → ``["android-phone", "android", "phone"]``."""
    parts = [c.strip().lower() for c in classifiers if c and c.strip()]
    if not parts:
        return []
    chain: list[str] = []
    compound = "-".join(parts)
    segments = compound.split("-")
    for end in range(len(segments), 0, -1):
        key = "-".join(segments[:end])
        if key not in chain:
            chain.append(key)
    for part in reversed(parts):
        sub = part.split("-")
        for end in range(len(sub), 0, -1):
            key = "-".join(sub[:end])
            if key not in chain:
                chain.append(key)
    return chain


def resolve(mapping: Mapping[str, T] | None, classifiers: Sequence[str]) -> tuple[str, T] | None:
    """The ``(key, value)`` of the closest classifier present in ``mapping``, or None."""
    if not mapping:
        return None
    lowered = {k.lower(): k for k in mapping}
    for key in lineage(classifiers):
        if key in lowered:
            original = lowered[key]
            return original, mapping[original]
    return None
