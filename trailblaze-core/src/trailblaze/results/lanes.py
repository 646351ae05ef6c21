"""How a trail with actors reads in a report: its steps as rows, a ``parallel:`` block's steps side by
side in one lane per actor. The run's report and ``merge-reports``' page both lay their steps out
through ``step_rows`` and name the devices through ``actor_label``, so the two never disagree about
which steps ran at the same time or who ran them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar


class LaneStep(Protocol):
    """What the layout reads of a step: ``StepResult`` (a run's) and ``StepRecord`` (a bundle's) both have it."""

    @property
    def actor(self) -> str | None: ...

    @property
    def block(self) -> int | None: ...


S = TypeVar("S", bound=LaneStep)


@dataclass
class StepRow(Generic[S]):
    """One row of a trail's steps: a single step (``block`` None, one lane), or the steps of one
    ``parallel:`` block (``block``: its position in ``trail:``), one lane per actor in the order the
    block names them."""

    block: int | None
    lanes: dict[str, list[S]] = field(default_factory=dict)

    @property
    def parallel(self) -> bool:
        return self.block is not None


def step_rows(steps: Sequence[S]) -> list[StepRow[S]]:
    """``steps`` (in trail order) as rows: consecutive steps of the same ``parallel:`` block share a row,
    every other step is a row of its own. A step without an actor (a single-device trail) has the lane
    ``""``."""
    rows: list[StepRow[S]] = []
    for step in steps:
        if step.block is None or not rows or rows[-1].block != step.block:
            rows.append(StepRow(step.block))
        rows[-1].lanes.setdefault(step.actor or "", []).append(step)
    return rows


def actor_label(actor: Any) -> str:
    """``alice: playwright-native on chromium`` for an actor of a result (``ActorResult``) or a bundle
    (``ActorRecord``): its name, driver and the device it ran on."""
    device = f" on {actor.device}" if getattr(actor, "device", None) else ""
    return f"{actor.name}: {actor.driver}{device}"


__all__ = ["LaneStep", "StepRow", "actor_label", "step_rows"]
