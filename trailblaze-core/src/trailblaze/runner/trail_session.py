"""One trail's session inside a run: opened, its steps run (``runner/replay.py``), closed through
``SessionLifecycle`` on every exit path, its outcome recorded on the trail result."""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..driver import Driver
from ..errors import ExitCode, TrailblazeError
from ..results.model import TrailResult
from ..session import Session, SessionOutcome
from . import interrupt
from .handoff import StepFailed
from .lifecycle import Device, SessionLifecycle, ToolWorkspace
from .outputs import RunOutputs
from .replay import TrailSteps

if TYPE_CHECKING:
    from ..trail.model import Trail


class TrailSession(TrailSteps, RunOutputs):
    """The ``Runner``'s session of one trail: between building the driver and the trail's result."""

    def _print_tracebacks(self, items: list[str | BaseException]) -> None:
        """With ``--debug`` (any position) or ``TRAILBLAZE_DEBUG=1``: the tracebacks behind a trail's
        one-line error (a tool's own exception, a plugin's, a device lost), redacted, on stderr."""
        if self.options.debug:
            for item in items:
                text = item if isinstance(item, str) else "".join(traceback.format_exception(item))
                sys.stderr.write(self.redactor(text))

    # -- the session --------------------------------------------------------------------------
    def new_session(self, trail: "Trail | None", ws: ToolWorkspace, bound: Mapping[str, Any] | None = None,
                    device: "Device | None" = None, *, target: str | None = None,
                    extra: Mapping[str, Any] | None = None) -> Session:
        from ..llm.budget import BUDGET_KEY

        session = super().new_session(trail, ws, bound, device, target=target, extra=extra)
        session.resources[BUDGET_KEY] = self.llm_budget
        return session

    def _run_session(self, trail: "Trail", ws: ToolWorkspace, driver: Driver, bound: dict[str, Any],
                     started: float, device: "Device | None" = None) -> TrailResult:
        session = self.new_session(trail, ws, bound, device)
        session.driver = driver
        result = TrailResult(trail.path, trail.name, SessionOutcome.ERROR, ExitCode.INFRASTRUCTURE,
                             session_id=session.id, log_dir=session.log_dir, driver=driver.key,
                             platform=driver.platform, started_at=started, target=trail.config.target,
                             has_recorded_steps=trail.has_recordings, trail_id=trail.config.id)
        self.progress.trail_started(trail.name, str(trail.path),
                                    driver.key + (f" on {device.spec}" if device is not None else ""))
        lifecycle = SessionLifecycle(session, warn=self.warn)
        lifecycle.closing.append(lambda s: self._write_recording_log(s, result))
        try:
            with lifecycle:
                self._run_started(trail, session, lifecycle, result)
        finally:
            if result.exit_code != ExitCode.SUCCESS:
                self._print_tracebacks(session.options.get("_tracebacks", []))
            result.completed_at = time.time()
            result.log_entries = session.log.entries
            self.progress.trail_finished(result)
            self.release(session)
        return result

    def _run_started(self, trail: "Trail", session: Session, lifecycle: SessionLifecycle,
                     result: TrailResult) -> None:
        """Everything between opening and closing the session; records the outcome on ``lifecycle``."""
        lifecycle.outcome = SessionOutcome.ERROR
        try:
            device = lifecycle.start_driver()
            classifiers = device.classifiers or list(session.driver.default_classifiers if session.driver else ())
            result.classifier = "-".join(classifiers)
            from ..trail.parser import require_classifiers

            require_classifiers(trail, classifiers)
            lifecycle.start_plugins()
            self._log_started(session, trail)
            self._prevalidate(trail, session, classifiers)
            if trail.config.setup:
                from .setup import replay_setups

                ran = replay_setups(trail.config.setup, session)
                self.progress.note(f"  setup: {ran} recorded step{'s' if ran != 1 else ''} replayed")
            self._run_steps(trail, lifecycle, classifiers, result)
            lifecycle.outcome = result.outcome
        except StepFailed as exc:
            lifecycle.outcome = exc.outcome
            result.outcome, result.exit_code, result.message = exc.outcome, exc.code, exc.message
            result.failure_kind = exc.kind
        except TrailblazeError as exc:
            session.options.setdefault("_tracebacks", []).append(exc)  # printed with --debug
            outcome = SessionOutcome.ERROR if exc.exit_code != ExitCode.TRAIL_FAILED else SessionOutcome.FAILED
            lifecycle.outcome = outcome
            result.outcome, result.exit_code, result.message = outcome, exc.exit_code, str(exc)
            result.failure_kind = type(exc).__name__
        except KeyboardInterrupt as exc:
            lifecycle.outcome = SessionOutcome.CANCELLED
            result.outcome, result.exit_code = lifecycle.outcome, ExitCode.INFRASTRUCTURE
            result.message = f"interrupted by {interrupt.signal_name(exc)} while running"
            result.failure_kind = "Interrupted"
            exc.trail_result = result  # type: ignore[attr-defined]  # the runner lists it (_run_files)
            raise
        finally:
            lifecycle.message = result.message

    def _log_started(self, session: Session, trail: "Trail") -> None:
        cfg = trail.config
        session.log.write("TrailblazeSessionStatusChangeLog", {"sessionStatus": {
            "status": "Started",
            "trailConfig": {"id": cfg.id, "title": cfg.title, "target": cfg.target, "tags": cfg.tags,
                            "trailFilePath": str(trail.path)},
            "trailblazeDeviceInfo": session.device.model_dump(mode="json"),
            "resolvedInitialMemory": session.memory.snapshot(),
            "sensitiveMemoryKeys": sorted(session.memory.sensitive_keys),
        }})
