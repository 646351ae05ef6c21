"""One trail inside a run, from its file to its result: loaded, retried, its driver chosen and built,
its session opened, its steps run (``runner/replay.py``) and closed through ``SessionLifecycle`` on
every exit path, its outcome recorded on the trail result."""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..driver import Driver
from ..errors import BadInputError, ConfigError, ExitCode, TrailblazeError
from ..results.model import TrailResult
from ..session import Session, SessionOutcome
from . import interrupt
from .crew import ActorCrew, actor_driver
from .handoff import StepFailed
from .lifecycle import Device, SessionFactory, SessionLifecycle, ToolWorkspace, log_trail_started
from .outputs import RunOutputs
from .replay import StepLoop, StepRunState, step_name

if TYPE_CHECKING:
    from ..trail.model import Trail
    from .progress import Progress


class TrailRunner:
    """Runs one trail at a time for a run: sessions from ``factory``, steps by ``steps``, the session's
    log artifacts by ``outputs``, lines to ``progress``."""

    def __init__(self, factory: SessionFactory, steps: StepLoop, outputs: RunOutputs, progress: Progress) -> None:
        self.factory = factory
        self.options = factory.options
        self.steps = steps
        self.outputs = outputs
        self.progress = progress
        self.crew = ActorCrew(factory, steps, progress)
        """Runs the trails that declare actors (several devices)."""
        self._prover: TrailRunner | None = None
        """Runs the proving replays (replay only, quiet), made when first needed."""

    def print_tracebacks(self, items: Sequence[str | BaseException]) -> None:
        """With ``--debug`` (any position) or ``TRAILBLAZE_DEBUG=1``: the tracebacks behind a trail's
        one-line error (a tool's own exception, a plugin's, a device lost), redacted, on stderr."""
        if self.options.debug:
            for item in items:
                text = item if isinstance(item, str) else "".join(traceback.format_exception(item))
                sys.stderr.write(self.factory.redactor(text))

    # -- the trail ----------------------------------------------------------------------------
    def run_trail(self, path: Path, device: Device | None = None) -> TrailResult | None:
        """Run the trail file ``path`` (on ``device``), with its retries; None when its tags leave it out.

        An interruption (``KeyboardInterrupt``) goes on up, carrying the trail's result so far as
        ``trail_result`` (CANCELLED, its earlier attempts with it), placed like any other result."""
        try:
            result = self._run_trail(path, device)
        except KeyboardInterrupt as exc:
            stopped = getattr(exc, "trail_result", None)
            if isinstance(stopped, TrailResult):
                self._place(stopped, path, device)
            raise
        if result is not None:
            self._place(result, path, device)
            cls = self.factory.drivers.get(result.driver) if result.driver else None
            if result.actors:  # each actor has its own endpoint; the trail's is its first actor's
                result.endpoint = result.actors[0].endpoint
                return result
            try:
                result.endpoint = self.factory.endpoint(device, cls, self.factory.workspace_for(path).config)
            except ConfigError:  # a bad 'endpoints:' is the trail's error already (make_driver)
                result.endpoint = None
        return result

    def _place(self, result: TrailResult, path: Path, device: Device | None) -> None:
        """Where ``result`` ran: its device and workspace (both part of the result's identity)."""
        result.device_label = device.spec if device is not None else None
        result.root = result.root or self.factory.workspace_for(path).config.root

    def _run_trail(self, path: Path, device: Device | None) -> TrailResult | None:
        from ..trail.parser import load_trail

        started = time.time()
        ws = self.factory.workspace_for(path)
        try:
            if ws.error is not None:
                raise ws.error
            if ws.check.errors:
                # docs/yaml-tools.md: a run refuses to start with broken tool files (no device is started).
                raise BadInputError(f"not started: the workspace's tool files have {len(ws.check.errors)} error(s) "
                                    "(listed under 'workspace checks')", hint="fix them; `trailblaze check` lists them")
            trail = load_trail(path, codec=ws.codec)
        except TrailblazeError as exc:
            return self.early_result(path, path.name, exc, started)
        if self.options.tags and not set(self.options.tags) & set(trail.config.tags):
            return None
        from .retries import retry_budget, run_attempts

        first = [started]

        def attempt() -> TrailResult:
            return self.run_loaded_trail(trail, ws, device, started=first.pop() if first else None)

        result = run_attempts(attempt, retry_budget(trail.config.retries, self.options.retries), self._retrying)
        result.quarantined = ws.config.quarantine.covers(root=ws.config.root, path=path,
                                                         trail_id=trail.config.id, tags=trail.config.tags)
        result.tags = list(trail.config.tags)
        return result

    def _retrying(self, failed: TrailResult, number: int) -> None:
        reason = (failed.message or failed.outcome.value).splitlines()[0]
        self.progress.note(f"  ↻ attempt {number} of {failed.title} (attempt {number - 1}: "
                           f"{failed.status.lower()}: {reason})")

    def run_loaded_trail(self, trail: "Trail", ws: ToolWorkspace, device: Device | None = None, *,
                         started: float | None = None) -> TrailResult:
        """Run a trail already in memory (``trailblaze step``/``verify`` build a one-step trail)."""
        path = trail.path
        started = time.time() if started is None else started
        if not trail.steps:
            self.progress.trail_skipped(str(path), "config-only document: no steps to run")
            return TrailResult(path, trail.name, SessionOutcome.SKIPPED, ExitCode.SUCCESS, started_at=started,
                               completed_at=time.time(), skip_reason="no steps", trail_id=trail.config.id)
        for warning in trail.warnings:
            self.progress.note(f"  ! {warning}")
        if trail.config.actors:
            return self.run_actors(trail, ws, started)
        try:
            driver_cls = self.factory.driver_for_trail(trail, ws.config, device)
        except TrailblazeError as exc:
            return self.early_result(path, trail.name, exc, started)
        reason = trail.config.skip_reason(list(driver_cls.default_classifiers) or None)
        if reason:
            return self._skipped(trail, reason, started, driver=driver_cls.key, platform=driver_cls.platform)
        try:
            bound = self._bound_args(trail, ws)
            driver = self.factory.make_driver(driver_cls, ws.config, device, trail=trail)
        except TrailblazeError as exc:
            return self.early_result(path, trail.name, exc, started)
        return self.run_session(trail, ws, driver, bound, started, device)

    def run_actors(self, trail: "Trail", ws: ToolWorkspace, started: float) -> TrailResult:
        """A trail with several devices (``config.actors``): its drivers built and checked before any
        starts, then run by the crew (``runner/crew.py``)."""
        try:
            for actor in trail.config.actors.values():
                cls = actor_driver(self.factory, actor, trail, ws.config)
                reason = trail.config.skip_reason(list(cls.default_classifiers) or [actor.platform])
                if reason:
                    return self._skipped(trail, reason, started)
            bound = self._bound_args(trail, ws)
            members = self.crew.prepare(trail, ws)
        except TrailblazeError as exc:
            return self.early_result(trail.path, trail.name, exc, started)
        result = self.crew.run(trail, ws, members, bound, started)
        if result.exit_code != ExitCode.SUCCESS:
            self.print_tracebacks([t for m in members if m.session is not None for t in m.session.options.tracebacks])
        return result

    def _skipped(self, trail: "Trail", reason: str, started: float, **device: Any) -> TrailResult:
        """A trail its ``skip`` rule keeps off this device (``device``: the driver and platform, when one)."""
        self.progress.trail_skipped(str(trail.path), reason)
        return TrailResult(trail.path, trail.name, SessionOutcome.SKIPPED, ExitCode.SUCCESS, skip_reason=reason,
                           started_at=started, completed_at=time.time(), trail_id=trail.config.id,
                           target=trail.config.target, **device)

    def _bound_args(self, trail: "Trail", ws: ToolWorkspace) -> dict[str, Any]:
        """The trail's arguments bound, and its recorded tools checked against the workspace's file
        errors, before any device starts (one rule for single-device trails and trails with actors)."""
        from ..trail.args import bind_args

        bound = bind_args(trail, self.options.args, self.options.args_file)
        reached = ws.check.errors_for(trail.recorded_tool_names())
        if reached:
            raise BadInputError("this trail calls a tool whose file has an error: "
                                + "; ".join(f.render() for f in reached))
        return bound

    def early_result(self, path: Path, title: str, exc: TrailblazeError, started: float) -> TrailResult:
        """The result of a trail that ended before its session opened (bad input, no driver)."""
        self.print_tracebacks([exc])
        outcome = SessionOutcome.ERROR if exc.exit_code != ExitCode.TRAIL_FAILED else SessionOutcome.FAILED
        result = TrailResult(path, title, outcome, exc.exit_code, message=str(exc), started_at=started,
                             completed_at=time.time(), failure_kind=type(exc).__name__)
        self.progress.note(f"✗ {path}: {exc}")
        return result

    # -- the session --------------------------------------------------------------------------
    def run_session(self, trail: "Trail", ws: ToolWorkspace, driver: Driver, bound: dict[str, Any],
                    started: float, device: Device | None = None) -> TrailResult:
        """Open the trail's session on ``driver`` (built, not started), run its steps, close it."""
        session = self.factory.new_session(trail, ws, bound, device)
        session.driver = driver
        result = TrailResult(trail.path, trail.name, SessionOutcome.ERROR, ExitCode.INFRASTRUCTURE,
                             session_id=session.id, log_dir=session.log_dir, driver=driver.key,
                             platform=driver.platform, started_at=started, target=trail.config.target,
                             has_recorded_steps=trail.has_recordings, trail_id=trail.config.id)
        self.progress.trail_started(trail.name, str(trail.path),
                                    driver.key + (f" on {device.spec}" if device is not None else ""))
        lifecycle = SessionLifecycle(session, warn=self.factory.warn)
        lifecycle.closing.append(lambda s: self.outputs.write_recording_log(s, result))
        state = self.steps.new_state()
        try:
            with lifecycle:
                self._run_started(trail, session, lifecycle, result, state)
        finally:
            if result.exit_code != ExitCode.SUCCESS:
                self.print_tracebacks(session.options.tracebacks)
            result.completed_at = time.time()
            result.log_entries = session.log.entries
            try:
                # The session is closed (its device free): the agent's recordings are proven in a fresh one.
                self.steps.saveback.settle(trail, session, result, state.saves,
                                           lambda proof: self._prove(proof, ws, bound, device))
            finally:
                self.progress.trail_finished(result)
                self.factory.release(session)
        return result

    def _prove(self, trail: "Trail", ws: ToolWorkspace, bound: dict[str, Any], device: Device | None) -> TrailResult:
        """The proving replay (``runner/heal_check.py``): ``trail`` from its start in a session of its own,
        through the same driver choice, setup and lifecycle as any run, replay only and quiet."""
        if self._prover is None:
            steps = self.steps.prover()
            self._prover = TrailRunner(self.factory, steps, self.outputs, steps.progress)
        driver_cls = self.factory.driver_for_trail(trail, ws.config, device)
        driver = self.factory.make_driver(driver_cls, ws.config, device, trail=trail)
        return self._prover.run_session(trail, ws, driver, bound, time.time(), device)

    def _run_started(self, trail: "Trail", session: Session, lifecycle: SessionLifecycle,
                     result: TrailResult, state: StepRunState) -> None:
        """Everything between opening and closing the session; records the outcome on ``lifecycle``."""
        lifecycle.outcome = SessionOutcome.ERROR
        try:
            device = lifecycle.start_driver()
            classifiers = device.classifiers or list(session.driver.default_classifiers if session.driver else ())
            result.classifier = "-".join(classifiers)
            from ..trail.parser import require_classifiers

            require_classifiers(trail, classifiers)
            lifecycle.start_plugins()
            log_trail_started(session, trail)
            self.steps.prevalidate(trail, session, classifiers)
            if trail.config.setup:
                from .setup import replay_setups

                ran = replay_setups(trail.config.setup, session)
                self.progress.note(f"  setup: {ran} recorded step{'s' if ran != 1 else ''} replayed")
            if self.factory.options.start_url and session.driver is not None:
                session.driver.open_url(self.factory.options.start_url)
            self.steps.run_steps(trail, lifecycle, classifiers, result, state)
            lifecycle.outcome = result.outcome
        except StepFailed as exc:
            lifecycle.outcome = exc.outcome
            result.outcome, result.exit_code, result.message = exc.outcome, exc.code, exc.message
            result.failure_kind = exc.kind
        except TrailblazeError as exc:
            session.options.tracebacks.append(exc)  # printed with --debug
            outcome = SessionOutcome.ERROR if exc.exit_code != ExitCode.TRAIL_FAILED else SessionOutcome.FAILED
            lifecycle.outcome = outcome
            result.outcome, result.exit_code, result.message = outcome, exc.exit_code, str(exc)
            result.failure_kind = type(exc).__name__
        except KeyboardInterrupt as exc:
            step = lifecycle.current_step
            result.interrupt(interrupt.signal_name(exc), step=step_name(step) if step is not None else None)
            lifecycle.outcome = result.outcome
            exc.trail_result = result  # type: ignore[attr-defined]  # the runner lists it (_run_files)
            raise
        finally:
            lifecycle.message = result.message

