"""The run loop: one session per trail, every step replayed or handed to the agent.

Errors are sorted by who must act: bad input (a trail, a flag: exit 3) is found before any step runs
where possible; infrastructure (a device, a browser, a tool server: exit 2) ends that trail only; a
failed tool or assertion fails the trail (exit 1). Other trails of the run always still run, and
whatever happens the driver is stopped, session hooks are told, and logs are flushed.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..driver import Driver
from ..errors import (BadInputError, ExitCode, InfrastructureError, ToolArgumentError, TrailblazeError,
                      UnknownToolError)
from ..llm import budget as _budget
from ..memory import has_tokens
from ..plugins import PluginHost
from ..reuse import reuse_scope
from ..session import Session, SessionOutcome, suggest_tool_name
from ..tools.base import ToolCall
from . import interrupt
from .discovery import expand
from .lifecycle import Device, SessionFactory, SessionLifecycle, ToolWorkspace
from .options import RunOptions
from .progress import Progress
from .results import RunResult, StepResult, TrailResult

if TYPE_CHECKING:
    from ..trail.model import Trail, TrailStep


class StepFailed(Exception):
    """Internal: a step failed; carries the exit code and message for the trail result."""

    def __init__(self, message: str, code: ExitCode, outcome: SessionOutcome = SessionOutcome.FAILED,
                 kind: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.outcome = outcome
        self.kind = kind


class Runner(SessionFactory):
    """Runs trails. ``Runner(options).run(["trails/"])`` is what ``trailblaze run`` does.

    Driver choice, workspaces and sessions come from ``SessionFactory``; every session is opened and
    closed by ``SessionLifecycle`` (``runner/lifecycle.py``), like every other entry point's."""

    def __init__(self, options: RunOptions | None = None, *, host: PluginHost | None = None,
                 progress: Progress | None = None) -> None:
        self.progress = progress or Progress()
        super().__init__(options, host=host, warn=lambda line: self.progress.note(f"  ! {line}"))
        self.progress.redact = self.redactor  # the factory's: every output of the run passes through it
        self.interrupted: str | None = None
        """The signal that interrupted this run; the trails not started yet are then listed as cancelled."""
        from ..llm.budget import CostBudget
        from .history import RunHistory

        self.llm_budget = CostBudget(self.options.max_llm_cost)
        """``--max-llm-cost``: shared by every session of the run (see ``llm/budget.py``)."""

        endpoint = self.options.driver_options.get("server_url") or self.options.driver_options.get("ws_endpoint")
        self.history = RunHistory(self.options.results_db, fallback_dir=self.output_dir, redact=self.redactor,
                                  shard=self.options.shard,
                                  endpoint=str(endpoint) if endpoint else None,
                                  warn=self.progress.note) if self.options.history else None
        """The results store this run appends to (``--results-db``, ``--no-history``)."""

    def show_finding(self, line: str) -> None:
        self.progress.note(line)

    # -- the run ------------------------------------------------------------------------------
    def run(self, paths: list[str]) -> RunResult:
        """Run every trail of ``paths``; the summary and report are written whatever happens.

        An interruption (Ctrl-C, or SIGTERM/SIGHUP under ``interrupt.handle_signals``) ends the running
        trail as CANCELLED, lists the trails not started as CANCELLED, writes the outputs and is then
        re-raised as ``RunInterrupted`` with ``result`` attached."""
        result = RunResult(output_dir=self.output_dir, redactor=self.redactor,
                           fail_on_flaky=self.options.fail_on_flaky)
        self._check_output_paths()
        try:
            if not paths:
                raise BadInputError("no trails given", hint="usage: trailblaze run PATH... (files, directories or globs)")
            if self.options.alluredir is not None:
                from ..report.allure import require_allure

                require_allure()
            files = expand(paths)
            devices: list[Device | None] = [self.parse_device(spec) for spec in self.options.devices] or [None]
            if len(devices) == 1:
                self._run_files(files, devices[0], result)
            else:
                # One thread per device: each device gets its own driver, session and ports; the trails
                # of one device run in order. An interruption reaches the main thread only: the device
                # threads then finish their current trail and start no other.
                with ThreadPoolExecutor(max_workers=len(devices), thread_name_prefix="trailblaze-device") as pool:
                    futures = [pool.submit(self._run_files, files, d, result) for d in devices]
                    try:
                        for future in futures:
                            future.result()
                    except KeyboardInterrupt as exc:
                        self.interrupted = interrupt.signal_name(exc)
                        for future in futures:
                            future.result()
        except TrailblazeError as exc:
            exc.message, exc.hint = self.redactor(exc.message), self.redactor(exc.hint)
            raise
        except Exception as exc:
            exc.args = self.redactor(exc.args)  # what an "internal error: …" line prints
            raise
        finally:
            try:
                self._write_outputs_once(result)
            finally:
                if self.history is not None:
                    self.history.close()
        late = interrupt.pending()
        if self.interrupted is not None or late is not None:
            stopped = interrupt.RunInterrupted(self.interrupted or late or "SIGINT")
            stopped.result = result  # type: ignore[attr-defined]
            raise stopped
        return result

    def _check_output_paths(self) -> None:
        """Where the outputs go is checked before any device starts: a run whose report cannot be
        written must not spend minutes and then fail (or pass, then exit 2)."""
        from ..files import check_writable_dir

        check_writable_dir(self.output_dir, "--output-dir")
        junit = self.options.junit_xml
        if junit is not None:
            if Path(junit).is_dir():
                raise BadInputError(f"--junit-xml {junit} is a directory", hint="give --junit-xml a file name")
            check_writable_dir(Path(junit).parent, "--junit-xml's folder")

    def _write_outputs_once(self, result: RunResult) -> None:
        """The single place a run's outputs are written (summary, report; a JUnit writer belongs
        here too). A signal arriving meanwhile is only noted, so no file is left half-written."""
        with interrupt.deferred():
            late = interrupt.pending()  # noted while a device thread was cleaning up, after its last trail
            if late is not None and self.interrupted is None:
                self.interrupted = late
            result.interrupted = self.interrupted
            self.write_outputs(result)
            self.progress.run_finished(result)

    def _run_files(self, files: list[Path], device: "Device | None", result: RunResult) -> None:
        with reuse_scope():  # one browser (or device server) for this device's trails, a fresh context each
            self._run_files_in_scope(files, device, result)

    def _run_files_in_scope(self, files: list[Path], device: "Device | None", result: RunResult) -> None:
        for i, path in enumerate(files):
            late = interrupt.pending()  # a signal that arrived while a result was being recorded
            if late is not None:
                self.interrupted = late
            if self.interrupted is not None:
                self._not_started(files[i:], device, result)
                return
            try:
                trail_result = self.run_trail(path, device)
            except KeyboardInterrupt as exc:
                self.interrupted = interrupt.signal_name(exc)
                cancelled = getattr(exc, "trail_result", None)
                if not isinstance(cancelled, TrailResult):
                    cancelled = self._cancelled(path, device, "before it started")
                with self._lock:
                    result.trails.append(cancelled)
                self._not_started(files[i + 1:], device, result)
                return
            with interrupt.deferred():  # a finished trail's result is never lost to a signal
                ws = self.workspace_for(path)
                if trail_result is not None:
                    trail_result.root = trail_result.root or ws.config.root
                    trail_result.device_label = device.spec if device is not None else None
                with self._lock:
                    if ws.check.errors and not ws.reported:
                        # A broken tool file is bad input for the run (exit 3): listed once, and no trail of
                        # the workspace starts a device (``run_trail``).
                        ws.reported = True
                        result.trails.append(self._check_result(ws))
                    if trail_result is not None:
                        result.trails.append(trail_result)
                if trail_result is not None:
                    self.record_history(trail_result, device)

    def record_history(self, trail: TrailResult, device: "Device | None" = None) -> None:
        """Append a finished trail (every attempt) to the results store, unless ``--no-history``; the
        device it ran on (``-d``) is stored as its endpoint."""
        if self.history is not None:
            self.history.record(trail, self.workspace_for(trail.path).config,
                                endpoint=device.spec if device is not None else None)

    def _not_started(self, files: list[Path], device: "Device | None", result: RunResult) -> None:
        with self._lock:
            result.trails.extend(self._cancelled(path, device, "not started") for path in files)

    def _cancelled(self, path: Path, device: "Device | None", why: str) -> TrailResult:
        name = path.name.removesuffix(".yaml").removesuffix(".trail")
        title = f"{name} on {device.spec}" if device is not None else name
        now = time.time()
        return TrailResult(path, title, SessionOutcome.CANCELLED, ExitCode.INFRASTRUCTURE,
                           message=f"interrupted by {self.interrupted}: {why}", failure_kind="Interrupted",
                           started_at=now, completed_at=now)

    def write_outputs(self, result: RunResult) -> None:
        """The JSON summary, the HTML report and the JUnit XML of a run (the pytest plugin calls it per worker).

        Names are unique per run (``files.write_new``), so runs sharing an output directory never
        overwrite each other, and every file appears whole or not at all. A file that cannot be
        written is one line each (``OutputWriteError``) and the others are still written; the
        last such error is raised at the end (exit 2) instead of being printed."""
        if not result.trails:
            return
        from ..files import OutputWriteError, write_new
        from ..logs import dumps
        from ..untrusted import output_value

        failed: list[OutputWriteError] = []
        reports = self.output_dir / "reports"
        try:
            result.summary_path = write_new(reports, "trailblaze_test_results", ".json",
                                            dumps(output_value(result.summary())))
        except OutputWriteError as exc:
            failed.append(exc)
        if self.history is not None:
            self.history.attach(result)
        if self.options.junit_xml is not None:
            from ..report.junit import write_junit_xml

            try:
                write_junit_xml(result, self.options.junit_xml)
            except OutputWriteError as exc:
                failed.append(exc)
        if self.options.alluredir is not None:
            from ..report.allure import write_allure_results

            write_allure_results(result, self.options.alluredir)
        if self.options.report:
            import importlib

            try:
                render_report = importlib.import_module("trailblaze.report").render_report
            except (ImportError, AttributeError):
                render_report = None
            if render_report is not None:
                try:
                    result.report_path = write_new(reports, "trailblaze_report", ".html",
                                                   render_report(result, base=reports))
                except OutputWriteError as exc:
                    failed.append(exc)
        for error in failed[:-1]:
            self.progress.note(f"✗ {error}")
        if failed:
            raise failed[-1]  # printed once, by whoever handles it (the CLI: one line, exit 2)

    def run_trail(self, path: Path, device: "Device | None" = None) -> TrailResult | None:
        from ..trail.parser import load_trail

        started = time.time()
        ws = self.workspace_for(path)
        try:
            if ws.error is not None:
                raise ws.error
            if ws.check.errors:
                # docs/yaml-tools.md: a run refuses to start with broken tool files (no device is started).
                raise BadInputError(f"not started: the workspace's tool files have {len(ws.check.errors)} error(s) "
                                    "(listed under 'workspace checks')", hint="fix them; `trailblaze check` lists them")
            trail = load_trail(path, codec=ws.codec)
        except TrailblazeError as exc:
            return self._early_result(path, path.name, exc, started)
        if self.options.tags and not set(self.options.tags) & set(trail.config.tags):
            return None
        from .retries import retry_budget, run_attempts

        first = [started]

        def attempt() -> TrailResult:
            return self.run_loaded_trail(trail, ws, device, started=first.pop() if first else None)

        result = run_attempts(attempt, retry_budget(trail.config.retries, self.options.retries), self._retrying)
        result.quarantined = ws.config.quarantine.covers(root=ws.config.root, path=path,
                                                         trail_id=trail.config.id, tags=trail.config.tags)
        return result

    def _retrying(self, failed: TrailResult, number: int) -> None:
        reason = (failed.message or failed.outcome.value).splitlines()[0]
        self.progress.note(f"  ↻ attempt {number} of {failed.title} (attempt {number - 1}: "
                           f"{failed.status.lower()}: {reason})")

    def run_loaded_trail(self, trail: "Trail", ws: ToolWorkspace, device: "Device | None" = None, *,
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
        try:
            driver_cls = self.driver_for_trail(trail, ws.config, device)
        except TrailblazeError as exc:
            return self._early_result(path, trail.name, exc, started)
        reason = trail.config.skip_reason(list(driver_cls.default_classifiers) or None)
        if reason:
            self.progress.trail_skipped(str(path), reason)
            return TrailResult(path, trail.name, SessionOutcome.SKIPPED, ExitCode.SUCCESS, skip_reason=reason,
                               driver=driver_cls.key, platform=driver_cls.platform, started_at=started,
                               completed_at=time.time(), trail_id=trail.config.id, target=trail.config.target)
        try:
            from ..trail.args import bind_args

            bound = bind_args(trail, self.options.args, self.options.args_file)
            reached = ws.check.errors_for(trail.recorded_tool_names())
            if reached:
                raise BadInputError("this trail calls a tool whose file has an error: "
                                    + "; ".join(f.render() for f in reached))
            driver = self.make_driver(driver_cls, ws.config, device, trail=trail)
        except TrailblazeError as exc:
            return self._early_result(path, trail.name, exc, started)
        return self._run_session(trail, ws, driver, bound, started, device)

    def _check_result(self, ws: ToolWorkspace) -> TrailResult:
        where = ws.config.file or ws.config.root
        message = "; ".join(f.render() for f in ws.check.errors)
        return TrailResult(Path(where), "workspace checks", SessionOutcome.ERROR, ExitCode.BAD_INPUT,
                           message=message, failure_kind="CheckError", completed_at=time.time())

    def _print_tracebacks(self, items: list[str | BaseException]) -> None:
        """With ``--debug`` (any position) or ``TRAILBLAZE_DEBUG=1``: the tracebacks behind a trail's
        one-line error (a tool's own exception, a plugin's, a device lost), redacted, on stderr."""
        if self.options.debug:
            for item in items:
                text = item if isinstance(item, str) else "".join(traceback.format_exception(item))
                sys.stderr.write(self.redactor(text))

    def _early_result(self, path: Path, title: str, exc: TrailblazeError, started: float) -> TrailResult:
        self._print_tracebacks([exc])
        outcome = SessionOutcome.ERROR if exc.exit_code != ExitCode.TRAIL_FAILED else SessionOutcome.FAILED
        result = TrailResult(path, title, outcome, exc.exit_code, message=str(exc), started_at=started,
                             completed_at=time.time(), failure_kind=type(exc).__name__)
        self.progress.note(f"✗ {path}: {exc}")
        return result

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

    def _write_recording_log(self, session: Session, result: TrailResult) -> None:
        """``logs/<session>/recording.trail.yaml``: the trail as it ran, recordings generated from the logs."""
        if not session.log.enabled or session.trail is None or not result.steps:
            return
        try:
            from ..agent.recording import recording_trail_yaml

            text = recording_trail_yaml(session.trail, session.log.entries, result.classifier or "default",
                                        session.codec)
            # Redacted like the rest of the log: the trail's own config (args defaults) may hold a secret.
            session.log.write_file("recording.trail.yaml", self.redactor(text).encode("utf-8"))
        except Exception as exc:  # noqa: BLE001 - a log artifact never fails the run
            self.progress.note(f"  ! could not write recording.trail.yaml: {exc}")

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

    def _prevalidate(self, trail: "Trail", session: Session, classifiers: list[str]) -> None:
        """Unknown tools and malformed arguments are bad input: report them before any step runs."""
        for step in trail.steps:
            found = step.recording_for(classifiers)
            if found is None:
                continue
            classifier, calls = found
            for i, call in enumerate(calls):
                definition = session.registry.get(call.name)
                if definition is None:
                    raise self._located(step, classifier, i, trail, UnknownToolError(
                        f"unknown tool '{call.name}'",
                        hint=suggest_tool_name(call.name, session.registry)))
                if not definition.supports(driver=session.device.driver, platform=session.device.platform):
                    raise self._located(step, classifier, i, trail, BadInputError(
                        f"tool '{call.name}' does not run on driver '{session.device.driver}'"))
                if has_tokens(call.args):
                    continue
                try:
                    definition.prepare(dict(call.args))
                except ValueError as exc:
                    raise self._located(step, classifier, i, trail, ToolArgumentError(str(exc))) from None

    def _located(self, step: "TrailStep", classifier: str, index: int, trail: "Trail",
                 exc: TrailblazeError) -> TrailblazeError:
        if exc.location is None:
            try:
                from ..trail.parser import locate_call

                exc.location = locate_call(trail, step.index, classifier, index)
            except Exception:  # noqa: BLE001 - locating is best effort
                exc.location = step.location
        return exc

    def _run_steps(self, trail: "Trail", lifecycle: SessionLifecycle, classifiers: list[str],
                   result: TrailResult) -> None:
        options = self.options
        self_heal = options.self_heal if options.self_heal is not None else \
            os.environ.get("TRAILBLAZE_SELF_HEAL_ENABLED", "").lower() in ("1", "true", "yes")
        modes: set[str] = set()
        saves: list[tuple[int, str, list[ToolCall] | None]] = []
        try:
            self._run_step_list(trail, lifecycle, classifiers, result, self_heal, modes, saves)
        finally:
            self._save_recordings(trail, lifecycle.session, saves)

    def _run_step_list(self, trail: "Trail", lifecycle: SessionLifecycle, classifiers: list[str],
                       result: TrailResult, self_heal: bool, modes: set[str],
                       saves: list[tuple[int, str, list[ToolCall] | None]]) -> None:
        options = self.options
        session = lifecycle.session
        healed = False
        for step in trail.steps:
            self.progress.step_started(step.number, step.kind, step.text)
            session.log.write("ObjectiveStartLog", {"stepIndex": step.index, "kind": step.kind,
                                                    "description": step.text})
            lifecycle.step_started(step)
            t0 = time.perf_counter()
            first_entry = len(session.log.entries)
            found = step.recording_for(classifiers)
            use_recording = found is not None and (step.recordable or step.kind == "tools") and \
                (options.use_recorded_steps is not False or step.kind == "tools")
            step_result: StepResult
            if use_recording:
                assert found is not None
                classifier, calls = found
                mode = "noop" if not calls else "replay"
                ok, message, tool = self._replay(session, step, classifier, calls, trail)
                step_result = StepResult(step.index, step.kind, step.text, mode, ok, message, tool)
                if not ok and self_heal and step.kind not in ("verify", "tools"):
                    agent_result = self._solve_with_agent(session, step, trail, result, self_heal=True,
                                                          attempt_context=message)
                    healed = True
                    step_result = StepResult(step.index, step.kind, step.text, "self-heal", agent_result.success,
                                             agent_result.message or message, tool,
                                             llm_call_count=agent_result.llm_call_count,
                                             llm_cost_usd=agent_result.llm_cost_usd, recording=agent_result.recording,
                                             llm_tokens=agent_result.llm_tokens)
                    if agent_result.success and step.recordable and options.save_recording:
                        # The healed recording replaces the broken slot (zero calls: the slot is removed).
                        saves.append((step.index, classifier, agent_result.recording or None))
            else:
                agent_result = self._solve_with_agent(session, step, trail, result, self_heal=False)
                step_result = StepResult(step.index, step.kind, step.text, "ai", agent_result.success,
                                         agent_result.message, None, llm_call_count=agent_result.llm_call_count,
                                         llm_cost_usd=agent_result.llm_cost_usd, recording=agent_result.recording,
                                         llm_tokens=agent_result.llm_tokens)
                if agent_result.success and found is None and step.recordable and options.save_recording \
                        and step.kind != "tools" and agent_result.recording:
                    saves.append((step.index, "-".join(classifiers), agent_result.recording))
                if agent_result.outcome is not None and not agent_result.success:
                    step_result.duration_ms = int((time.perf_counter() - t0) * 1000)
                    self._step_done(lifecycle, step, step_result, result, first_entry)
                    message = agent_result.message or "the agent could not complete the step"
                    over_budget = agent_result.outcome is SessionOutcome.ERROR and self.llm_budget.exhausted
                    raise StepFailed(message + (_not_run(trail, step) if over_budget else ""),
                                     agent_result.exit_code, agent_result.outcome,
                                     _budget.FAILURE_KIND if over_budget else None)
            modes.add(step_result.mode)
            step_result.duration_ms = int((time.perf_counter() - t0) * 1000)
            self._step_done(lifecycle, step, step_result, result, first_entry)
            if not step_result.success:
                outcome = SessionOutcome.FAILED_WITH_SELF_HEAL if healed else SessionOutcome.FAILED
                raise StepFailed(_step_failure(step, step_result), ExitCode.TRAIL_FAILED, outcome, "ToolFailure")
        result.outcome = SessionOutcome.SUCCEEDED_WITH_SELF_HEAL if healed else SessionOutcome.SUCCEEDED
        result.exit_code = ExitCode.SUCCESS
        result.execution_mode = _execution_mode(modes)

    def _step_done(self, lifecycle: SessionLifecycle, step: "TrailStep", step_result: StepResult,
                   result: TrailResult, first_entry: int) -> None:
        session = lifecycle.session
        lifecycle.step_finished(step, step_result.success)
        shots = [e for e in session.log.entries[first_entry:] if e.get("screenshot")]
        if shots:
            step_result.screenshot = shots[-1]["screenshot"]
        session.log.write("ObjectiveCompleteLog", {"stepIndex": step.index, "kind": step.kind,
                                                   "description": step.text, "successful": step_result.success,
                                                   "mode": step_result.mode, "message": step_result.message})
        session.log.flush()  # a step boundary: a run killed from here on keeps this step's events
        step_result.number = step.number
        result.steps.append(step_result)
        result.llm_call_count += step_result.llm_call_count
        result.llm_cost_usd += step_result.llm_cost_usd
        result.llm_tokens += step_result.llm_tokens
        self.progress.step_finished(step_result)

    def _replay(self, session: Session, step: "TrailStep", classifier: str, calls: list[ToolCall],
                trail: "Trail") -> tuple[bool, str | None, str | None]:
        ctx = session.context(step_index=step.index, replaying=True)
        for i, call in enumerate(calls):
            self.progress.tool_started(step.number, call.name)
            try:
                outcome = session.dispatcher.call(call, ctx)
            except BadInputError as exc:
                raise self._located(step, classifier, i, trail, exc) from None
            except InfrastructureError as exc:
                # A device lost or a plugin's bug mid-step: say which step, which call and where it is
                # written, as a failed call does (the exit code stays 2).
                if exc.location is None:
                    where = self._located(step, classifier, i, trail, BadInputError("")).location
                    label = "verify" if step.kind == "verify" else "step"
                    exc.message = f"{label} {step.number} {_quote(step.text)}: tool '{call.name}' ({where}): {exc.message}"
                raise
            if not outcome.success:
                where = self._located(step, classifier, i, trail, BadInputError("")).location
                args = _short_args(self.redactor(call.args))
                return False, f"tool '{call.name}' ({where}) {args} failed: {outcome.message}", call.name
        return True, None, None

    def _solve_with_agent(self, session: Session, step: "TrailStep", trail: "Trail", result: TrailResult,
                          *, self_heal: bool, attempt_context: str | None = None) -> "_AgentOutcome":
        from ..agent import LlmNotConfiguredError, solve_step

        if self.llm_budget.exhausted:
            raise StepFailed(f"step {step.number} not handed to the model: {self.llm_budget.reason()}"
                             + _not_run(trail, step, including=True), ExitCode.INFRASTRUCTURE,
                             SessionOutcome.ERROR, _budget.FAILURE_KIND)
        try:
            out = solve_step(session, step, trail=trail, options=self.options, self_heal=self_heal,
                             attempt_context=attempt_context)
        except LlmNotConfiguredError as exc:
            raise StepFailed(exc.message, ExitCode.BAD_INPUT, SessionOutcome.ERROR, "NeedsLlm") from None
        return _AgentOutcome(out.success, out.message, out.outcome, out.exit_code, out.llm_call_count,
                             out.llm_cost_usd, list(out.recording), out.llm_tokens)

    def _save_recordings(self, trail: "Trail", session: Session,
                         saves: list[tuple[int, str, list[ToolCall] | None]]) -> None:
        """Write the agent's recordings back into the trail file: only each step's device slot changes."""
        if not saves or not trail.path.is_file():
            return
        from ..trail.saveback import save_recordings

        writable = []
        for index, classifier, calls in saves:
            step = trail.steps[index]
            if step.kind == "trailhead" and calls is not None and len(calls) != 1:
                self.progress.note(f"  ! trailhead recording not saved: it took {len(calls)} calls and a trailhead "
                                     "records exactly one (wrap them in a YAML tool)")
                continue
            writable.append((index, classifier, calls))
        if not writable:
            return
        try:
            save_recordings(trail.path, writable, codec=session.codec, original=trail)
        except TrailblazeError as exc:
            self.progress.note(f"  ! could not save recordings into {trail.path}: {exc}")
            return
        session.log.write("RecordingSavedLog", {"trailFilePath": str(trail.path), "updates": [
            {"stepIndex": i, "classifier": c, "recording": [x.to_json() for x in calls or []]} for i, c, calls in writable]})
        steps = ", ".join(str(trail.steps[i].number) for i, _, _ in writable)
        self.progress.note(f"  ↳ saved recording{'s' if len(writable) > 1 else ''} for step{'s' if len(writable) > 1 else ''} "
                             f"{steps} ({writable[0][1]}) into {trail.path}")


@dataclass
class _AgentOutcome:
    success: bool
    message: str | None
    outcome: SessionOutcome | None
    exit_code: ExitCode
    llm_call_count: int = 0
    llm_cost_usd: float = 0.0
    recording: list[ToolCall] | None = None
    llm_tokens: int = 0


def _not_run(trail: "Trail", step: "TrailStep", *, including: bool = False) -> str:
    """``; steps 3–5 not run`` for the steps after ``step`` (and ``step`` itself with ``including``)."""
    numbers = [s.number for s in trail.steps if s.index > step.index or (including and s is step)]
    if not numbers:
        return ""
    if len(numbers) == 1:
        return f"; step {numbers[0]} not run"
    return f"; steps {numbers[0]}–{numbers[-1]} not run"


def _quote(text: str | None) -> str:
    if not text:
        return "no text"
    text = " ".join(text.split())
    return f'"{text[:80]}…"' if len(text) > 80 else f'"{text}"'


def _step_failure(step: "TrailStep", step_result: StepResult) -> str:
    label = {"verify": "verify", "trailhead": "trailhead", "tools": "tools"}.get(step.kind, "step")
    number = "" if step.kind == "trailhead" else f" {step_result.number}"
    return f"{label}{number} {_quote(step.text)}: {step_result.message or 'failed'}"


def _short_args(args: dict[str, Any], limit: int = 300) -> str:
    import json

    text = json.dumps(args, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"




def _execution_mode(modes: set[str]) -> str:
    if "self-heal" in modes:
        return "SELF_HEAL"
    if "ai" in modes and modes & {"replay", "noop"}:
        return "RECORDING_WITH_AI"
    if "ai" in modes:
        return "AI_ONLY"
    return "RECORDING_ONLY"
