"""Run results and the JSON summary in upstream's ``CiSummaryReport`` shape (snake_case, add-only).

The runner makes these and the outputs (reports, bundles, the results store) read them, so the model
stands below both; ``trailblaze.runner.results`` re-exports it under the name the runner used first.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import ExitCode
from ..memory import Redactor
from ..session import SessionOutcome

OUTCOME_TO_SUMMARY = {
    SessionOutcome.SUCCEEDED: "PASSED",
    SessionOutcome.SUCCEEDED_WITH_SELF_HEAL: "HEALED",
    SessionOutcome.FAILED: "FAILED",
    SessionOutcome.FAILED_WITH_SELF_HEAL: "FAILED",
    SessionOutcome.CANCELLED: "CANCELLED",
    SessionOutcome.TIMEOUT_REACHED: "TIMEOUT",
    SessionOutcome.MAX_CALLS_LIMIT_REACHED: "MAX_CALLS_REACHED",
    SessionOutcome.ERROR: "ERROR",
    SessionOutcome.SKIPPED: "SKIPPED",
}


def trail_key(path: Path | str) -> str:
    """The name a trail goes by in results, bundles, durations and shards: its path relative to the
    working directory, so every checkout of the same repository agrees."""
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return os.path.relpath(resolved, Path.cwd().resolve()).replace(os.sep, "/")


def trail_status(outcomes: Sequence[SessionOutcome]) -> str:
    """The outcome people act on, from a trail's attempts on one device (first first): the last
    attempt's (PASSED, HEALED, FAILED, ERROR, SKIPPED, CANCELLED, TIMEOUT, MAX_CALLS_REACHED), except that
    a pass after an earlier attempt is FLAKY (only a failure earns a retry). The one rule: a plain run,
    ``run -n``, the pytest plugin and ``merge-reports`` all decide through it (``TrailResult.status``), so
    a flaky trail reads the same in every summary, JUnit file and report."""
    if not outcomes:
        raise ValueError("a trail has at least one attempt")
    last = outcomes[-1]
    return "FLAKY" if last.passed and len(outcomes) > 1 else OUTCOME_TO_SUMMARY[last]


_FAILING_CODES = (ExitCode.TRAIL_FAILED, ExitCode.INFRASTRUCTURE, ExitCode.BAD_INPUT)


def outcome_exit_code(outcome: SessionOutcome, recorded: int = ExitCode.INFRASTRUCTURE) -> ExitCode:
    """What a trail's result adds to the run's exit code, decided by its outcome: a pass or a skip adds
    0 whatever was recorded beside it, any other outcome fails the run. ``recorded`` (the exit code the
    runner set with the outcome) only says *how* it fails — infrastructure (2), bad input (3) or the
    trail (1) — and a recorded 0 (or a code that is none of these) beside a failing outcome counts as the
    code that outcome implies: 1 for a failed trail, 2 for an error or a cancellation. A single run,
    ``run -n``, the pytest plugin and ``merge-reports`` (whose records are outside input) all add up their
    trails through it."""
    if outcome.passed or outcome is SessionOutcome.SKIPPED:
        return ExitCode.SUCCESS
    if recorded in _FAILING_CODES:
        return ExitCode(recorded)
    return ExitCode.INFRASTRUCTURE if outcome in (SessionOutcome.ERROR, SessionOutcome.CANCELLED) \
        else ExitCode.TRAIL_FAILED


INTERRUPTED = "Interrupted"
"""The ``failure_kind`` of a trail a signal ended while it ran, or kept from starting."""


def interrupted_trail(path: Path, title: str, signal_name: str, *, root: Path | None = None,
                      device_label: str | None = None) -> TrailResult:
    """The result of a trail a signal kept from starting: CANCELLED, ``interrupted by SIGTERM: not
    started``. The plain run, ``run -n``'s and ``pytest --trails -n``'s controller all list the trails no
    one started through it, and a trail stopped while it ran gets the same fields through
    ``TrailResult.interrupt``, so an interruption reads the same on every path."""
    now = time.time()
    result = TrailResult(path, title, SessionOutcome.CANCELLED, ExitCode.INFRASTRUCTURE, started_at=now,
                         completed_at=now, root=root, device_label=device_label)
    result.interrupt(signal_name, running=False)
    return result


class ResultIdentity(NamedTuple):
    """What makes one result one: ``result_identity`` builds it; ``trail_run`` is it without the attempt."""

    workspace: str
    trail: str
    device: str
    actor: str
    run_id: str
    attempt: int

    @property
    def trail_run(self) -> tuple[str, str, str, str, str]:
        """The trail's run on one device in one run: every attempt of it shares this."""
        return self.workspace, self.trail, self.device, self.actor, self.run_id


def result_identity(*, workspace: str | None, trail: str, device: str | None, actor: str | None,
                    run_id: str | None, attempt: int) -> ResultIdentity:
    """A result's identity wherever results are keyed (a bundle's records, ``merge-reports``, the ``-n``
    controller's merge, the pytest plugin's worker merge): the workspace it ran in (its absolute root),
    the trail's path within that workspace, the device (``-d`` spec), the actor (None until trails have
    actors), the run id and the attempt. A path relative to where a run started is not enough: two
    projects' ``trails/login.trail.yaml``, or one trail run against staging and prod (two runs), are
    different results; the same bundle given twice is the same results."""
    return ResultIdentity(workspace or "", trail, device or "", actor or "", run_id or "", attempt)


STEP_MODES = ("replayed", "agent", "healed", "skipped", "failed")
"""A step's ``status`` (the summary's ``mode``): how it ran, as people read it."""

_RAN_BY = {"replay": "replayed", "noop": "replayed", "ai": "agent", "self-heal": "healed"}
MODEL_MODES = ("agent", "healed")
"""The statuses of steps that went to the model and passed."""


def step_status(mode: str, success: bool) -> str:
    """The one rule from how a step ran (``StepResult.mode``) and whether it passed to its status:
    ``replayed`` (its recording passed), ``agent`` (the model solved a step it had to: no recording for
    the device, ``recordable: false``), ``healed`` (its recording failed and the model solved it),
    ``failed`` (however it ran) or ``skipped`` (an earlier step ended the trail). The run, ``run -n``,
    the pytest plugin and ``merge-reports`` all read it through ``StepResult.status``."""
    if mode == "skipped":
        return "skipped"
    if not success:
        return "failed"
    return _RAN_BY.get(mode, mode)


def call_entries(calls: "Sequence[Any] | None") -> list[dict[str, Any]]:
    """Tool calls as the summary and the bundle list them: ``{"name", "args"}`` each. ``calls`` are
    ``ToolCall`` objects (a run's) or such entries already (a merged bundle's); secrets are taken out
    where the whole document passes the run's redactor."""
    out = []
    for call in calls or ():
        if isinstance(call, Mapping):
            out.append({"name": str(call.get("name", "")), "args": dict(call.get("args") or {})})
        else:
            out.append({"name": call.name, "args": dict(call.args)})
    return out


@dataclass
class StepResult:
    index: int
    kind: str
    text: str | None
    mode: str
    """How the runner ran it: ``replay``, ``noop``, ``ai``, ``self-heal``, or ``skipped`` (not run);
    ``status`` is what people read."""
    success: bool
    message: str | None = None
    tool: str | None = None
    duration_ms: int = 0
    llm_call_count: int = 0
    llm_cost_usd: float = 0.0
    llm_tokens: int = 0
    screenshot: str | None = None
    number: int = 0
    """What people call the step: the trailhead is 0, the first trail step is 1."""
    recording: "list[Any] | None" = None
    """The recording the agent generated for this step (``ToolCall`` list), when the agent ran it."""
    reason: str | None = None
    """Why the model ran it: ``no recording for this device``, ``recordable: false``, ``recording failed:
    …``; None for a step that replayed (or was not run)."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    """Input tokens the provider served from its prompt cache (part of ``input_tokens``)."""
    tool_calls: "list[Any] | None" = None
    """The top-level calls it made: the recording's (those that ran, the failing one last) or the
    model's; ``ToolCall`` objects, or ``{"name", "args"}`` entries when rebuilt from a bundle."""
    location: str | None = None
    screen: str | None = None
    recorded: "list[Any] | None" = None
    """For a failed step (``results.failure_prompt``): where it is written (``file:line``), the device's
    screen when it failed (redacted) and its recording for the device (``ToolCall`` list), when it had one."""

    actor: str | None = None
    """The actor whose device ran this step, in a trail with several (``config.actors``)."""
    block: int | None = None
    """The ``trail:`` position of the ``parallel:`` block the step ran in (``TrailStep.block``), so a
    report can show the block's steps side by side (``results.lanes``); None outside one."""

    @property
    def status(self) -> str:
        """``replayed``, ``agent``, ``healed``, ``skipped`` or ``failed`` (``step_status``)."""
        return step_status(self.mode, self.success)

    def summary(self) -> dict[str, Any]:
        """The step in the JSON summary's ``steps`` (unredacted: the run redacts the whole summary)."""
        out = {"index": self.number, "kind": self.kind, "text": self.text,
               "mode": step_status(self.mode, self.success),
               "reason": self.reason, "message": None if self.success else self.message,
               "duration_ms": self.duration_ms, "llm_call_count": self.llm_call_count,
               "llm_tokens": self.llm_tokens, "tokens": {"input": self.input_tokens, "output": self.output_tokens,
                                                         "cached": self.cached_tokens},
               "llm_cost_usd": round(self.llm_cost_usd, 6),
               "tool_calls": call_entries(self.tool_calls) if self.tool_calls else []}
        if self.actor:
            out["actor"] = self.actor
        if self.block is not None:
            out["block"] = self.block
        return out


def step_counts(steps: Sequence[StepResult]) -> dict[str, int]:
    """How many of ``steps`` ended with each status (every status, zero included)."""
    out = dict.fromkeys(STEP_MODES, 0)
    for step in steps:
        status = step_status(step.mode, step.success)
        out[status] = out.get(status, 0) + 1
    return out


@dataclass
class ActorResult:
    """One device of a trail with several (``config.actors``): what it ran on and where its session's
    logs are. The trail has one result; this lists its actors."""

    name: str
    platform: str
    driver: str
    device: str | None = None
    """The device the driver reported (``DeviceInfo.device_id``/``name``), else the ``-d`` binding."""
    endpoint: str | None = None
    session_id: str | None = None
    log_dir: Path | None = None

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "platform": self.platform.upper(), "driver": self.driver, "device": self.device,
                "endpoint": self.endpoint, "session_id": self.session_id,
                "log_dir": str(self.log_dir) if self.log_dir else None}


HEAL_CHECKS = ("proven", "not_proven", "skipped")


@dataclass
class HealCheck:
    """Whether the recordings the agent made in this run (healed or newly solved steps) were proven by
    replaying the trail from its start without the model before they were written back
    (``runner/heal_check.py``): ``proven`` (written into the trail file), ``not_proven`` (the replay
    failed at ``step``/``tool`` with ``message``; saved as ``proposal`` beside the trail instead) or
    ``skipped`` (no replay ran: ``message`` says why; written back only under ``--no-heal-check``)."""

    status: str
    message: str | None = None
    step: int | None = None
    tool: str | None = None
    proposal: Path | None = None
    """The ``*.healed.trail.yaml`` written instead of the trail file (None when the trail file got them)."""
    written: bool = False
    """The recordings were written into the trail file."""
    log_dir: Path | None = None
    """The proving replay's session log."""

    def summary(self) -> dict[str, Any]:
        return {"status": self.status, "message": self.message, "step": self.step, "tool": self.tool,
                "proposal": str(self.proposal) if self.proposal else None, "written": self.written,
                "log_dir": str(self.log_dir) if self.log_dir else None}


@dataclass(slots=True)
class TrailResult:
    """One trail's result on one device: its last attempt, the earlier ones in ``attempts``.

    Slotted: with 33 fields it is past the 30 keys CPython lets the instances of a class share, so
    each result kept a whole dict of its own (17 MB over 10,000 trails, and 1 % of their merge)."""

    path: Path
    title: str
    outcome: SessionOutcome
    exit_code: ExitCode
    session_id: str | None = None
    log_dir: Path | None = None
    message: str | None = None
    failure_kind: str | None = None
    steps: list[StepResult] = field(default_factory=list)
    classifier: str | None = None
    platform: str | None = None
    driver: str | None = None
    target: str | None = None
    execution_mode: str = "UNKNOWN"
    started_at: float = field(default_factory=time.time)
    completed_at: float | None = None
    llm_call_count: int = 0
    llm_cost_usd: float = 0.0
    llm_tokens: int = 0
    has_recorded_steps: bool = False
    skip_reason: str | None = None
    trail_id: str | None = None
    log_entries: list[dict[str, Any]] = field(default_factory=list)
    artifacts: dict[str, str] = field(default_factory=dict)
    root: Path | None = None
    """The workspace root the trail ran in (JUnit names are relative to it)."""
    device_label: str | None = None
    """The ``-d`` device spec this trail ran on, when one was given (names the JUnit test case)."""
    attempts: list[TrailResult] = field(default_factory=list)
    """The earlier attempts of this trail on this device, first first (``--retries``); this result is
    the last attempt. Each has its own session, log directory and artifacts."""
    quarantined: bool = False
    """Listed in the workspace's ``quarantine:`` (or tagged ``quarantine``): reported, never fails the run."""
    endpoint: str | None = None
    """The remote endpoint (Playwright server, Appium server) it ran against, when one was used."""
    tags: list[str] = field(default_factory=list)
    last_pass: str | None = None
    """When this trail last passed on this device before this run, from the run history (for the failure
    prompt); None when the history has no pass or was not read."""
    actors: list[ActorResult] = field(default_factory=list)
    """The devices of a trail with several (``config.actors``), in declaration order; empty otherwise."""
    heal_check: HealCheck | None = None
    """What became of the recordings the agent made in this attempt (None: it made none to save)."""

    @property
    def passed(self) -> bool:
        return self.outcome.passed

    @property
    def attempt(self) -> int:
        """1-based number of this (the last) attempt."""
        return len(self.attempts) + 1

    @property
    def flaky(self) -> bool:
        """Passed on a retry after a failed attempt."""
        return self.passed and bool(self.attempts)

    @property
    def status(self) -> str:
        """The outcome people act on: PASSED, FLAKY, HEALED, FAILED, ERROR, SKIPPED, CANCELLED (and
        upstream's TIMEOUT / MAX_CALLS_REACHED, which count as failed)."""
        return trail_status([a.outcome for a in self.attempts] + [self.outcome] if self.attempts else (self.outcome,))

    def log_dir_of(self, actor: str | None = None, *, session: str | None = None) -> Path | None:
        """The folder a file name in the logs is relative to (a screenshot, a trace, an evidence file):
        in a trail with actors, that of the actor named, or of the actor whose session wrote the entry
        (its ``session`` id), since each actor logs to its own folder (``<trail>/<actor>/``), so two
        actors' ``step_3.png`` never collide; otherwise the trail's."""
        for entry in self.actors:
            if (actor is not None and entry.name == actor) or (session is not None and entry.session_id == session):
                return entry.log_dir or self.log_dir
        return self.log_dir

    def interrupt(self, signal_name: str, *, running: bool = True, step: str | None = None) -> None:
        """End this result as ``signal_name`` left it: CANCELLED, exit 2, failure kind ``Interrupted``, and
        a reason that says how far it got: ``interrupted by SIGTERM while running step 2 "…"`` (``step``:
        the step it was in, when it had reached one), ``… while running``, or ``…: not started``."""
        self.outcome, self.exit_code = SessionOutcome.CANCELLED, ExitCode.INFRASTRUCTURE
        self.failure_kind = INTERRUPTED
        where = (f" while running {step}" if running and step else " while running" if running
                 else ": not started")
        self.message = f"interrupted by {signal_name}{where}"

    def summary(self) -> dict[str, Any]:
        """The trail's row in the JSON summary (unredacted: the run redacts the whole summary). Each
        value is worked out once: a merge builds 10,000 of these."""
        done = self.completed_at or time.time()
        source = str(self.path)
        outcome = self.outcome
        # One loop over the steps, and no comprehension over a trail's single attempt: each comprehension
        # is a function call in Python 3.11.
        steps: list[dict[str, Any]] = []
        llm_steps: list[dict[str, Any]] = []
        for s in self.steps:
            steps.append(s.summary())
            if s.llm_call_count:
                llm_steps.append({"step": s.number, "llm_call_count": s.llm_call_count, "llm_tokens": s.llm_tokens,
                                  "llm_cost_usd": round(s.llm_cost_usd, 6)})
        attempts = [a.attempt_summary() for a in self.attempts] if self.attempts else []
        attempts.append(self.attempt_summary())
        row = {
            "session_id": self.session_id or "",
            "title": self.title,
            "test_key": self.trail_id or source,
            "platform": (self.platform or "").upper(),
            "execution_mode": self.execution_mode,
            "trail_source": source,
            "device_classifier": self.classifier or "",
            "app_id": self.target or "",
            "app_version_name": None,
            "app_version_code": None,
            "outcome": self.status,
            "failure_reason": self.message if not outcome.passed and outcome is not SessionOutcome.SKIPPED else None,
            "failure_stack": None,
            "failure_kind": self.failure_kind,
            "device_log_excerpt": None,
            "has_recorded_steps": self.has_recorded_steps,
            "recording_skip_reason": self.skip_reason,
            "duration_ms": int((done - self.started_at) * 1000),
            "llm_call_count": self.llm_call_count,
            "llm_cost_usd": round(self.llm_cost_usd, 6),
            "llm_tokens": self.llm_tokens,
            "llm_steps": llm_steps,
            "steps": steps,
            "step_modes": step_counts(self.steps),
            "started_at": _iso(self.started_at),
            "started_at_epoch_ms": int(self.started_at * 1000),
            "completed_at": _iso(done),
            "completed_at_epoch_ms": int(done * 1000),
            "accessibility_truncation": None,
            "driver": self.driver or "",
            "device": self.device_label,
            "log_dir": str(self.log_dir) if self.log_dir else None,
            "attempt": self.attempt,
            "attempts": attempts,
            "quarantined": self.quarantined,
        }
        if self.actors:
            row["actors"] = [a.summary() for a in self.actors]
        if self.heal_check is not None:
            row["heal_check"] = self.heal_check.summary()
        return row

    def attempt_summary(self) -> dict[str, Any]:
        """One attempt in the summary's ``attempts`` list: enough to find its evidence."""
        done = self.completed_at or time.time()
        return {"outcome": OUTCOME_TO_SUMMARY[self.outcome], "failure_reason": None if self.passed else self.message,
                "failure_kind": self.failure_kind, "duration_ms": int((done - self.started_at) * 1000),
                "session_id": self.session_id or "", "log_dir": str(self.log_dir) if self.log_dir else None}


@dataclass
class RunResult:
    redactor: Redactor
    """The run's one redaction point (see ``redact``); required, so no output is built without it."""
    trails: list[TrailResult] = field(default_factory=list)
    summary_path: Path | None = None
    report_path: Path | None = None
    markdown_path: Path | None = None
    """The Markdown summary (``run --markdown``), once written."""
    output_dir: Path | None = None
    interrupted: str | None = None
    """The signal that interrupted the run (``SIGINT``, ``SIGTERM``, ``SIGHUP``), or None."""
    fail_on_flaky: bool = False
    """``--fail-on-flaky``: a FLAKY trail makes the run exit 1."""
    history: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """(trail id, device) → statuses of its recent runs, oldest first, this one included (the results store)."""

    def redact(self, value: Any) -> Any:
        """``value`` with every secret of the run replaced by ``***``: pass every output through it
        (summary, report, JUnit XML, console lines). Strings, dicts, lists and tuples are walked, so
        a whole rendered document can be passed at once."""
        return self.redactor(value)

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.worst([self._exit_code(t) for t in self.trails])

    def _exit_code(self, trail: TrailResult) -> ExitCode:
        if trail.quarantined:
            return ExitCode.SUCCESS  # reported, but it does not fail the build
        if trail.flaky and self.fail_on_flaky:
            return ExitCode.TRAIL_FAILED
        return outcome_exit_code(trail.outcome, trail.exit_code)

    def counts(self) -> tuple[int, int, int]:
        passed = sum(1 for t in self.trails if t.passed)
        skipped = sum(1 for t in self.trails if t.outcome is SessionOutcome.SKIPPED)
        return passed, len(self.trails) - passed - skipped, skipped

    @property
    def cancelled(self) -> int:
        """Trails an interruption stopped or kept from starting (counted as failed in ``counts``)."""
        return sum(1 for t in self.trails if t.outcome is SessionOutcome.CANCELLED)

    def _all_attempts(self) -> list[TrailResult]:
        return [a for t in self.trails for a in (*t.attempts, t)]

    def statuses(self) -> dict[str, int]:
        """How many trails ended with each ``TrailResult.status``."""
        out: dict[str, int] = {}
        for trail in self.trails:
            status = trail.status
            out[status] = out.get(status, 0) + 1
        return out

    def results_line(self) -> str:
        """``Results: P passed, F failed, S skipped (…)``: see ``results_line``."""
        return results_line(self.counts(), self.statuses(), quarantined=sum(1 for t in self.trails if t.quarantined),
                            cancelled=self.cancelled, interrupted=self.interrupted, steps=self.step_modes())

    def step_modes(self) -> dict[str, int]:
        """How the trails' steps ran (``step_counts``), over each trail's result (its last attempt)."""
        return step_counts([s for t in self.trails for s in t.steps])

    def summary(self) -> dict[str, Any]:
        """The JSON summary, redacted."""
        devices = sorted({t.driver for t in self.trails if t.driver})
        targets = sorted({t.target for t in self.trails if t.target})
        metadata: dict[str, Any] = {"target_app": ", ".join(targets) or None, "build_type": None, "devices": devices}
        if self.interrupted:
            metadata["interrupted_by"] = self.interrupted
        every = self._all_attempts()
        metadata["llm_call_count"] = sum(t.llm_call_count for t in every)
        metadata["llm_tokens"] = sum(t.llm_tokens for t in every)
        metadata["llm_cost_usd"] = round(sum(t.llm_cost_usd for t in every), 6)
        metadata["statuses"] = self.statuses()
        return self.redact({"metadata": metadata, "results": [t.summary() for t in self.trails]})  # type: ignore[no-any-return]


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def results_line(counts: tuple[int, int, int], statuses: Mapping[str, int], *, quarantined: int = 0,
                 cancelled: int = 0, interrupted: str | None = None, steps: Mapping[str, int] | None = None) -> str:
    """``Results: P passed, F failed, S skipped`` (flaky and healed trails count as passed, errors as
    failed), then what those numbers hold: ``(2 flaky, 1 healed, 1 error, 1 quarantined)``. One line for a
    run in one process and for ``run -n``'s merged workers (``statuses``: trails by ``TrailResult.status``).
    When a step went to the model, ``steps`` (``step_counts``) adds how many replayed and how many the
    model solved: ``; steps: 4 replayed, 2 by the model (1 agent, 1 healed)``; a run that only replayed
    keeps the line as it always was."""
    passed, failed, skipped = counts
    line = f"Results: {passed} passed, {failed} failed, {skipped} skipped"
    parts = []
    if interrupted:
        parts.append(f"{cancelled} cancelled: interrupted by {interrupted}")
    for status in ("FLAKY", "HEALED", "ERROR"):
        if statuses.get(status):
            parts.append(f"{statuses[status]} {status.lower()}")
    if quarantined:
        parts.append(f"{quarantined} quarantined")
    return line + (f" ({', '.join(parts)})" if parts else "") + _steps_clause(steps or {})


def _steps_clause(steps: Mapping[str, int]) -> str:
    to_model = sum(steps.get(m, 0) for m in MODEL_MODES)
    if not to_model:
        return ""
    split = ", ".join(f"{steps[m]} {m}" for m in MODEL_MODES if steps.get(m))
    return f"; steps: {steps.get('replayed', 0)} replayed, {to_model} by the model ({split})"
