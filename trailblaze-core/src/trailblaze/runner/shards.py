"""Splitting a suite across CI machines: ``--shard I/N`` over trail × device pairs, balanced by time.

Every machine computes the same partition from the same inputs (the pairs and, optionally, a durations
file), so no coordinator is needed: shard ``I`` keeps the pairs the partition gives it, and every pair
lands in exactly one shard for any ``N``. With durations from an earlier run (a result bundle, a merged
report or a JSON summary: ``--durations``), pairs are placed longest first on the shard with the least
time so far (the classic LPT rule, within 4/3 of the best split); a pair the file does not know counts as
the median of the known ones. Without durations every pair weighs the same, which is a round-robin over
the sorted pairs (shard sizes differ by at most one).

A pair is named by its trail's path relative to the working directory and the device spec given with
``-d`` (empty for the trail's own driver), so every checkout of the same repository agrees.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import BadInputError
from ..results.model import trail_key

SHARD_HELP = ("Run only shard I of N (1-based): trail × device pairs split deterministically, balanced by "
              "--durations when given, by count otherwise; every pair lands in exactly one shard.")


@dataclass(frozen=True)
class Shard:
    index: int
    """1-based."""
    total: int

    def __str__(self) -> str:
        return f"{self.index}/{self.total}"


def parse_shard(text: str, flag: str = "--shard") -> Shard:
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise BadInputError(f"{flag} expects I/N with 1 <= I <= N, got '{text}'")
    return Shard(int(match.group(1)), int(match.group(2)))


def pair_key(path: Path | str, device: str | None = None) -> str:
    """The name of a trail × device pair every machine computes the same way."""
    trail = trail_key(path)
    return f"{trail}@{device}" if device else trail


def partition(keys: Iterable[str], total: int, durations: Mapping[str, float] | None = None) -> list[list[str]]:
    """``total`` lists holding every key exactly once, balanced by ``durations`` (seconds) when known."""
    unique = sorted(set(keys))
    known = [durations[k] for k in unique if durations and k in durations]
    fallback = statistics.median(known) if known else 1.0
    weight = {k: (durations[k] if durations and k in durations else fallback) for k in unique}
    shards: list[list[str]] = [[] for _ in range(total)]
    loads = [0.0] * total
    for key in sorted(unique, key=lambda k: (-weight[k], k)):
        target = min(range(total), key=lambda i: (loads[i], len(shards[i]), i))
        shards[target].append(key)
        loads[target] += weight[key]
    return shards


def select(keys: Sequence[str], shard: Shard, durations: Mapping[str, float] | None = None) -> set[str]:
    """The keys shard ``shard`` runs."""
    return set(partition(keys, shard.total, durations)[shard.index - 1])


def durations_for(keys: Iterable[tuple[str, str]], known: Mapping[str, float]) -> dict[str, float]:
    """``(pair key, trail key)`` → seconds: the pair's own time, else the trail's on any device."""
    out: dict[str, float] = {}
    for pair, trail in keys:
        if pair in known:
            out[pair] = known[pair]
        elif trail in known:
            out[pair] = known[trail]
    return out
