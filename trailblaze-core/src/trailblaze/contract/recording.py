"""What a driver that records a person hands back: the recorded steps and the options it is told.

These are contract types (``Driver.record_actions`` and ``contract.device`` name them), so they stand
here, under everything that uses them; ``trailblaze.recorder`` re-exports them for drivers and plugins.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from .calls import ToolCall


@dataclass
class RecordedStepDraft:
    """One step of a recording: its kind, its text (named after what was done) and its calls."""

    kind: Literal["step", "verify"]
    text: str
    calls: list[ToolCall] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the person did in this step that could not be recorded (a click on a ``<canvas>``, inside a
    closed shadow root): written as comments above the step, so the trail says where it is incomplete."""


@dataclass
class RecordOptions:
    secret_token: str = "password"
    """The memory token written for what is typed into a password field (``{{password}}``)."""
    pause_s: float = 4.0
    """A pause this long between two actions starts a new step (as do a navigation and Enter)."""
    should_stop: Callable[[], bool] = lambda: False
    """Polled while recording: the terminal asked to finish (Ctrl-C)."""
    on_action: Callable[[str], None] | None = None
    """Told one line per recorded action, for the terminal."""
    on_warning: Callable[[str], None] | None = None
    """Told one line per thing that could not be recorded (and per second the page sent more events than
    ``max_events_per_s``), for the terminal."""
    max_events_per_s: int = 20
    """More actions than this in one second are not a person: the rest of that second is dropped, with a
    warning."""
    take_step_name: Callable[[], str | None] = lambda: None
    """Asked before each action: a name the person gave (typed in the terminal) starts a new step
    called that; None keeps going (steps are then named after what they did)."""


__all__ = ["RecordOptions", "RecordedStepDraft"]
