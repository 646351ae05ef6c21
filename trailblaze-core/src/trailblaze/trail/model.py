"""The in-memory model of a trail, shared by both YAML formats and by the runner.

The parser (``parser.py``) fills these; the runner only reads them. Every element keeps the
``SourceLocation`` it came from, so an error found at run time (an unknown tool, a bad argument) can
still point at ``file:line:column``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import SourceLocation
from ..tools.base import ToolCall
from . import classifiers as _classifiers
from .actors import Actor

StepKind = Literal["step", "verify", "tools", "trailhead"]
ArgType = Literal["string", "integer", "boolean", "array", "object"]


@dataclass
class TrailArg:
    """A declared trail parameter (``config.args``)."""

    name: str
    type: ArgType = "string"
    description: str | None = None
    required: bool = True
    default: Any = None
    has_default: bool = False


@dataclass
class TrailConfig:
    id: str | None = None
    title: str | None = None
    description: str | None = None
    priority: str | None = None
    target: str | None = None
    devices: dict[str, str] = field(default_factory=dict)
    """classifier → driver name (upstream enum name or our driver key)."""
    skip: dict[str, str] = field(default_factory=dict)
    """classifier → reason; a v1 scalar ``skip`` is stored under ``"*"``."""
    tags: list[str] = field(default_factory=list)
    context: str | None = None
    memory: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    args: dict[str, TrailArg] = field(default_factory=dict)
    retries: int | None = None
    """How often a failed run of this trail is retried; overrides ``--retries`` (not in upstream's config,
    whose ``maxRetries`` is a step's AI budget; named as Playwright's ``retries``)."""
    platform: str | None = None
    """v1-only hint."""
    driver: str | None = None
    """v1 scalar driver pin."""
    drivers: dict[str, dict[str, Any]] = field(default_factory=dict)
    """driver key or alias → settings for this trail (over the workspace's ``drivers:``, under ``-o``);
    validated by the driver's config model when the driver is built. Not an upstream key."""
    driver_locations: dict[str, SourceLocation] = field(default_factory=dict)
    """Where each ``drivers`` entry (``name``) and each of its settings (``name.setting``) is written."""
    setup: list[Path] = field(default_factory=list)
    """Trails replayed from their recordings before this one runs (a sign-in, say), resolved against
    this trail's directory; not steps of this trail (see ``runner/setup.py``). Not an upstream key."""
    actors: dict[str, Actor] = field(default_factory=dict)
    """``actors:`` (our extension, see ``trail/actors.py``): name → device; empty for a single-device trail."""
    actor_locations: dict[str, SourceLocation] = field(default_factory=dict)
    """Where each actor is declared (its name)."""
    written: dict[str, Any] = field(default_factory=dict)
    """The ``config`` map as written (plain data), for outputs that copy it (``recording.trail.yaml``)
    without reading the trail file a second time."""

    def skip_reason(self, classifiers: list[str] | None) -> str | None:
        """The trimmed non-blank skip reason for this device, else None (blank = not skipped)."""
        if not self.skip:
            return None
        if "*" in self.skip:
            reason = self.skip["*"].strip()
            return reason or None
        if not classifiers:
            for reason in self.skip.values():
                if reason and reason.strip():
                    return reason.strip()
            return None
        found = _classifiers.resolve(self.skip, classifiers)
        if found is None:
            return None
        reason = (found[1] or "").strip()
        return reason or None

    def driver_for(self, classifiers: list[str] | None) -> str | None:
        if self.devices:
            if classifiers:
                found = _classifiers.resolve(self.devices, classifiers)
                if found is not None:
                    return found[1]
            elif len(self.devices) == 1:
                return next(iter(self.devices.values()))
        return self.driver


@dataclass
class TrailStep:
    """A step (``step:``), a verification (``verify:``), a v1 ``tools:`` block or the trailhead.

    ``recordings`` is None when the step has no ``recording`` at all (solve with AI on every device);
    a classifier mapped to ``[]`` is a deliberate no-op for that device.
    """

    kind: StepKind
    text: str | None
    recordings: dict[str, list[ToolCall]] | None = None
    recordable: bool = True
    max_retries: int | None = None
    location: SourceLocation = field(default_factory=SourceLocation)
    tool_locations: dict[str, list[SourceLocation]] = field(default_factory=dict)
    """Per classifier, the location of each recorded call (for run-time errors)."""
    index: int = 0
    """Position in ``Trail.steps``; the trailhead is step 0 when present. Event logs carry it as
    ``stepIndex`` (upstream's field)."""
    number: int = 1
    """The one number people see for this step, everywhere (progress, errors, summary, report, JUnit,
    screenshot names, what drivers are told): 1-based, the trailhead 0. Set with ``index`` by
    ``number_steps``, the only place it is computed."""
    source_path: tuple[str | int, ...] = ()
    """Where the step sits in the YAML document (``("trail", 3)``, ``(2, "prompts", 0)``), for
    save-back and for locating errors found at run time."""
    actor: str | None = None
    """The actor (``config.actors``) whose device runs this step; None in a single-device trail."""
    block: int | None = None
    """The ``trail:`` position of the ``parallel:`` block this step belongs to; None outside one."""

    def recording_for(self, classifiers: list[str]) -> tuple[str, list[ToolCall]] | None:
        """The ``(classifier, calls)`` that applies to this device, or None → needs the agent.

        ``tools`` blocks (v1) are forced: they apply to every device.
        """
        if self.recordings is None:
            return None
        if self.kind == "tools" and "*" in self.recordings:
            return "*", self.recordings["*"]
        found = _classifiers.resolve(self.recordings, classifiers)
        if found is None and "*" in self.recordings:
            return "*", self.recordings["*"]  # a v1 file holds one device's recording, keyed "*"
        return found


def number_steps(steps: list[TrailStep], *, start: int = 0) -> list[TrailStep]:
    """Give each step its ``index`` (from ``start``) and its ``number``: 1-based, and a trailhead (always
    the first step) is 0, so the first ``step:`` is 1 with or without one. Returns ``steps``."""
    offset = 0 if steps and steps[0].kind == "trailhead" else 1
    for i, step in enumerate(steps, start):
        step.index = i
        step.number = i + offset
    return steps


def step_groups(steps: list[TrailStep]) -> list[list[TrailStep]]:
    """The steps as the runner takes them: a step outside ``parallel:`` is a group of its own; the steps
    of one ``parallel:`` block (``TrailStep.block``) form one group, run at the same time per actor."""
    groups: list[list[TrailStep]] = []
    for step in steps:
        if step.block is not None and groups and groups[-1][0].block == step.block:
            groups[-1].append(step)
        else:
            groups.append([step])
    return groups


def actors_of(trail: Trail) -> list[Actor | None]:
    """The actors a run of ``trail`` opens a session for: the declared ones, or the one implicit actor
    (None: its device and driver are chosen as for any single-device trail)."""
    return list(trail.config.actors.values()) or [None]


@dataclass
class Trail:
    path: Path
    format: Literal["unified", "v1"]
    config: TrailConfig
    steps: list[TrailStep]
    """All runnable steps in order, the trailhead first when there is one."""
    text: str = ""
    warnings: list[str] = field(default_factory=list)
    """Lenient-decoding notes (e.g. an unknown ``config`` key that was ignored), one line each."""

    @property
    def trailhead(self) -> TrailStep | None:
        return self.steps[0] if self.steps and self.steps[0].kind == "trailhead" else None

    @property
    def has_recordings(self) -> bool:
        return any(s.recordings for s in self.steps)

    def recorded_tool_names(self) -> set[str]:
        """Every tool a recording of this trail calls directly (any device)."""
        return {call.name for s in self.steps for calls in (s.recordings or {}).values() for call in calls}

    @property
    def name(self) -> str:
        if self.config.title:
            return self.config.title
        if self.config.id:
            return self.config.id
        stem = self.path.name
        for suffix in (".trail.yaml", ".yaml", ".yml"):
            if stem.endswith(suffix):
                stem = stem[: -len(suffix)]
                break
        if stem == "trail":
            return self.path.parent.name
        return stem
