"""The run loop: one session per trail, every step replayed or handed to the agent.

Errors are sorted by who must act: bad input (a trail, a flag: exit 3) is found before any step runs
where possible; infrastructure (a device, a browser, a tool server: exit 2) ends that trail only; a
failed tool or assertion fails the trail (exit 1). Other trails of the run always still run, and
whatever happens the driver is stopped, session hooks are told, and logs are flushed.
"""

from __future__ import annotations

import os
import random
import re
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..checks import CheckReport
from ..config import WorkspaceConfig, find_workspace, load_workspace
from ..driver import DeviceInfo, Driver, DriverRegistry, validate_config
from ..errors import (BadInputError, ConfigError, DriverError, ExitCode, InfrastructureError, ToolArgumentError,
                      TrailblazeError, UnknownToolError)
from ..logs import SessionLog
from ..memory import Memory, has_tokens
from ..plugins import PluginHost, get_host
from ..session import Session, SessionOutcome, suggest_tool_name
from ..tools.base import ToolCall
from ..tools.registry import ToolRegistry
from .discovery import expand
from .options import RunOptions
from .progress import Progress
from .results import RunResult, StepResult, TrailResult

if TYPE_CHECKING:
    from ..trail.model import Trail, TrailStep


@dataclass
class _Workspace:
    config: WorkspaceConfig
    registry: ToolRegistry
    check: CheckReport
    error: TrailblazeError | None = None
    reported: bool = False


class StepFailed(Exception):
    """Internal: a step failed; carries the exit code and message for the trail result."""

    def __init__(self, message: str, code: ExitCode, outcome: SessionOutcome = SessionOutcome.FAILED,
                 kind: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.outcome = outcome
        self.kind = kind


class Runner:
    """Runs trails. ``Runner(options).run(["trails/"])`` is what ``trailblaze run`` does."""

    def __init__(self, options: RunOptions | None = None, *, host: PluginHost | None = None,
                 progress: Progress | None = None) -> None:
        self.options = options or RunOptions()
        self.host = host or get_host()
        self.progress = progress or Progress()
        self.drivers = DriverRegistry()
        self.host.register_drivers(self.drivers)
        self._workspaces: dict[Path | None, _Workspace] = {}
        self._lock = threading.Lock()
        self.output_dir = (self.options.output_dir or Path.cwd() / "logs").resolve()

    # -- workspace ----------------------------------------------------------------------------
    def workspace_for(self, trail_path: Path | None) -> _Workspace:
        with self._lock:
            return self._workspace_for(trail_path)

    def _workspace_for(self, trail_path: Path | None) -> _Workspace:
        root = find_workspace(trail_path)
        cached = self._workspaces.get(root)
        if cached is not None:
            return cached
        registry = ToolRegistry()
        check = CheckReport()
        try:
            config = load_workspace(root, self.host)
            self.host.register_tools(registry, config)
            self.host.check_tools(registry, check, config)
            ws = _Workspace(config, registry, check)
            for finding in check.findings:
                self.progress._print(finding.render())
        except TrailblazeError as exc:
            ws = _Workspace(WorkspaceConfig(root=root or Path.cwd()), registry, check, exc)
        self._workspaces[root] = ws
        return ws

    # -- the run ------------------------------------------------------------------------------
    def run(self, paths: list[str]) -> RunResult:
        result = RunResult(output_dir=self.output_dir)
        if not paths:
            raise BadInputError("no trails given", hint="usage: trailblaze run PATH... (files, directories or globs)")
        files = expand(paths)
        devices: list[Device | None] = [self.parse_device(spec) for spec in self.options.devices] or [None]
        try:
            if len(devices) == 1:
                self._run_files(files, devices[0], result)
            else:
                # One thread per device: each device gets its own driver, session and ports; the trails
                # of one device run in order.
                with ThreadPoolExecutor(max_workers=len(devices), thread_name_prefix="trailblaze-device") as pool:
                    for future in [pool.submit(self._run_files, files, d, result) for d in devices]:
                        future.result()
        finally:
            self._write_outputs(result)
            self.progress.run_finished(result)
        return result

    def parse_device(self, spec: str) -> "Device":
        return Device.parse(spec, {cls.platform for cls in self.drivers})

    def _run_files(self, files: list[Path], device: "Device | None", result: RunResult) -> None:
        for path in files:
            trail_result = self.run_trail(path, device)
            ws = self.workspace_for(path)
            with self._lock:
                if ws.check.errors and not ws.reported:
                    # A broken tool file is bad input for the run (exit 3) but only the trails that call
                    # its tools fail: everything else in the workspace still runs.
                    ws.reported = True
                    result.trails.append(self._check_result(ws))
                if trail_result is not None:
                    result.trails.append(trail_result)

    def _write_outputs(self, result: RunResult) -> None:
        if not result.trails:
            return
        from ..logs import dumps

        stamp = time.strftime("%Y_%m_%d_%H_%M_%S")
        reports = self.output_dir / "reports"
        reports.mkdir(parents=True, exist_ok=True)
        summary = reports / f"trailblaze_test_results_{stamp}.json"
        summary.write_text(dumps(result.summary()), encoding="utf-8")
        result.summary_path = summary
        if self.options.report:
            import importlib

            try:
                write_html_report = importlib.import_module("trailblaze.report").write_html_report
            except (ImportError, AttributeError):
                return
            path = reports / f"trailblaze_report_{stamp}.html"
            write_html_report(result, path)
            result.report_path = path

    def run_trail(self, path: Path, device: "Device | None" = None) -> TrailResult | None:
        from ..trail.parser import load_trail

        started = time.time()
        ws = self.workspace_for(path)
        try:
            if ws.error is not None:
                raise ws.error
            trail = load_trail(path)
        except TrailblazeError as exc:
            return self._early_result(path, path.name, exc, started)
        if self.options.tags and not set(self.options.tags) & set(trail.config.tags):
            return None
        if not trail.steps:
            self.progress.trail_skipped(str(path), "config-only document: no steps to run")
            return TrailResult(path, trail.name, SessionOutcome.SKIPPED, ExitCode.SUCCESS, started_at=started,
                               completed_at=time.time(), skip_reason="no steps", trail_id=trail.config.id)
        for warning in trail.warnings:
            self.progress._print(f"  ! {warning}")
        try:
            driver_cls = self._pick_driver(trail, ws.config, device)
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
            driver = self.make_driver(driver_cls, ws.config, device)
        except TrailblazeError as exc:
            return self._early_result(path, trail.name, exc, started)
        return self._run_session(trail, ws, driver, bound, started, device)

    def _check_result(self, ws: _Workspace) -> TrailResult:
        where = ws.config.file or ws.config.root
        message = "; ".join(f.render() for f in ws.check.errors)
        return TrailResult(Path(where), "workspace checks", SessionOutcome.ERROR, ExitCode.BAD_INPUT,
                           message=message, failure_kind="CheckError", completed_at=time.time())

    def _early_result(self, path: Path, title: str, exc: TrailblazeError, started: float) -> TrailResult:
        outcome = SessionOutcome.ERROR if exc.exit_code != ExitCode.TRAIL_FAILED else SessionOutcome.FAILED
        result = TrailResult(path, title, outcome, exc.exit_code, message=str(exc), started_at=started,
                             completed_at=time.time(), failure_kind=type(exc).__name__)
        self.progress._print(f"✗ {path}: {exc}")
        return result

    # -- drivers ------------------------------------------------------------------------------
    def _pick_driver(self, trail: "Trail", ws: WorkspaceConfig, device: "Device | None" = None) -> type[Driver]:
        wanted = list(trail.config.devices.values())
        if trail.config.driver:
            wanted.append(trail.config.driver)
        cls = self.pick_driver(ws, device, wanted=wanted)
        assert cls is not None  # the host fallback always resolves
        return cls

    def pick_driver(self, ws: WorkspaceConfig, device: "Device | None" = None, *, wanted: Sequence[str] = (),
                    fallback: str | None = "host") -> type[Driver] | None:
        """``--driver`` > ``wanted`` (a trail's ``devices``/``driver`` pin) > workspace default > ``fallback``.

        With ``-d platform/id`` only drivers of that platform are candidates. Without a fallback, None
        means nothing chose a driver (``trailblaze snapshot`` then asks the user)."""
        if self.options.driver:
            return self.drivers.resolve(self.options.driver)
        platform = device.platform if device is not None else None
        for name in wanted:
            cls = self.drivers.get(name)
            if cls is not None and (platform is None or cls.platform == platform):
                return cls
        if platform is not None:
            candidates = self.drivers.for_platform(platform)
            if not candidates:
                raise InfrastructureError(f"no installed driver drives platform '{platform}'",
                                          hint=f"installed drivers: {', '.join(self.drivers.keys())}")
            return candidates[0]
        if wanted:
            raise InfrastructureError(
                f"this trail wants driver {' or '.join(repr(w) for w in wanted)}, which no installed plugin provides",
                hint=f"installed drivers: {', '.join(self.drivers.keys())}; install e.g. trailblaze-driver-web, "
                     "trailblaze-driver-android or trailblaze-driver-ios, or pass --driver")
        if ws.defaults.driver:
            return self.drivers.resolve(ws.defaults.driver)
        return self.drivers.resolve(fallback) if fallback else None

    def make_driver(self, cls: type[Driver], ws: WorkspaceConfig, device: "Device | None" = None) -> Driver:
        """The workspace's ``drivers:`` settings, then ``-o``, then ``-d``'s device, validated at once."""
        configured = dict(ws.driver_settings(cls.key))
        for alias in cls.aliases:
            configured.update(ws.driver_settings(alias))
        raw = {**configured, **self.options.driver_options}
        if device is not None and device.instance_id:
            raw.update(cls.device_settings(device.instance_id))
        if self.options.headed and "headless" in cls.config_model.model_fields:
            raw["headless"] = False
        owner = f"driver '{cls.key}'"
        try:
            return cls(validate_config(cls.config_model, raw, owner=owner))
        except ConfigError as exc:
            # Point at the file only when the file is what is wrong: a bad -o value is the command line's.
            location = ws.location("drivers", cls.key) if ws.file else None
            validate_config(cls.config_model, configured, owner=owner, location=location)
            raise ConfigError(f"{exc.message} (from the command line: -o/-d)", hint=exc.hint) from None

    # -- the session --------------------------------------------------------------------------
    def new_session(self, trail: "Trail", ws: _Workspace, bound: dict[str, Any],
                     device: "Device | None" = None) -> Session:
        name = self.options.test_name or trail.name
        if device is not None:
            name = f"{name}_{device.spec}"
        seed = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_")[:60] or "trail"
        session_id = f"{time.strftime('%Y_%m_%d_%H_%M_%S')}_{seed}_{random.randint(0, 9998)}"
        log_dir = self.output_dir / session_id
        memory = Memory.seeded(config_memory=trail.config.memory, cli_memory=self.options.memory,
                               secrets=self.options.secrets, args=bound)
        memory.on_unknown_token = lambda message: self.progress._print(f"  ! {message}")
        log = SessionLog(log_dir, session_id, redact=memory.redact, enabled=self.options.logging,
                         layout=self.options.log_layout)
        session = Session(id=session_id, host=self.host, workspace=ws.config, registry=ws.registry.copy(),
                          memory=memory, log=log, log_dir=log_dir, target=trail.config.target, trail=trail,
                          title=trail.name, options={"run": self.options})
        return session

    def _run_session(self, trail: "Trail", ws: _Workspace, driver: Driver, bound: dict[str, Any],
                     started: float, device: "Device | None" = None) -> TrailResult:
        session = self.new_session(trail, ws, bound, device)
        session.driver = driver
        result = TrailResult(trail.path, trail.name, SessionOutcome.ERROR, ExitCode.INFRASTRUCTURE,
                             session_id=session.id, log_dir=session.log_dir, driver=driver.key,
                             platform=driver.platform, started_at=started, target=trail.config.target,
                             has_recorded_steps=trail.has_recordings, trail_id=trail.config.id)
        self.progress.trail_started(trail.name, str(trail.path),
                                    driver.key + (f" on {device.spec}" if device is not None else ""))
        driver_started = False
        hooks_started = False
        outcome = SessionOutcome.ERROR
        try:
            session.device = start_driver(driver, session)
            driver_started = True
            classifiers = session.device.classifiers or list(driver.default_classifiers)
            result.classifier = "-".join(classifiers)
            from ..trail.parser import require_classifiers

            require_classifiers(trail, classifiers)
            hooks_started = True
            self.host.session_started(session)
            self._log_started(session, trail)
            self._prevalidate(trail, session, classifiers)
            self._run_steps(trail, session, classifiers, result)
            outcome = result.outcome
        except StepFailed as exc:
            outcome = exc.outcome
            result.outcome, result.exit_code, result.message = exc.outcome, exc.code, exc.message
            result.failure_kind = exc.kind
        except TrailblazeError as exc:
            outcome = SessionOutcome.ERROR if exc.exit_code != ExitCode.TRAIL_FAILED else SessionOutcome.FAILED
            result.outcome, result.exit_code, result.message = outcome, exc.exit_code, str(exc)
            result.failure_kind = type(exc).__name__
        except KeyboardInterrupt:
            outcome = SessionOutcome.CANCELLED
            result.outcome, result.exit_code, result.message = outcome, ExitCode.INFRASTRUCTURE, "interrupted"
            raise
        finally:
            self._finish(session, driver, driver_started, hooks_started, outcome, result)
            self.progress.trail_finished(result)
        return result

    def _finish(self, session: Session, driver: Driver, driver_started: bool, hooks_started: bool,
                outcome: SessionOutcome, result: TrailResult) -> None:
        errors: list[str] = []
        if driver_started:
            try:
                driver.trail_finished(session, outcome.passed)
            except Exception as exc:  # noqa: BLE001
                errors.append(f"driver '{driver.key}' failed to finish the trail: {exc}")
        if hooks_started:
            errors.extend(self.host.session_finished(session, outcome))
        if driver_started:
            try:
                driver.stop()
            except Exception as exc:  # noqa: BLE001
                errors.append(f"driver '{driver.key}' failed to stop: {exc}")
        session.log.write("TrailblazeSessionStatusChangeLog",
                          {"sessionStatus": {"status": f"Ended.{outcome.value}", "message": result.message}})
        self._write_recording_log(session, result)
        session.log.close()
        result.completed_at = time.time()
        result.log_entries = session.log.entries
        for line in errors:
            self.progress._print(f"  ! {line}")

    def _write_recording_log(self, session: Session, result: TrailResult) -> None:
        """``logs/<session>/recording.trail.yaml``: the trail as it ran, recordings generated from the logs."""
        if not session.log.enabled or session.trail is None or not result.steps:
            return
        try:
            from ..agent.recording import recording_trail_yaml

            text = recording_trail_yaml(session.trail, session.log.entries, result.classifier or "default", self.host)
            session.log.write_file("recording.trail.yaml", text.encode("utf-8"))
        except Exception as exc:  # noqa: BLE001 - a log artifact never fails the run
            self.progress._print(f"  ! could not write recording.trail.yaml: {exc}")

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

    def _run_steps(self, trail: "Trail", session: Session, classifiers: list[str], result: TrailResult) -> None:
        options = self.options
        self_heal = options.self_heal if options.self_heal is not None else \
            os.environ.get("TRAILBLAZE_SELF_HEAL_ENABLED", "").lower() in ("1", "true", "yes")
        modes: set[str] = set()
        offset = 0 if trail.trailhead is not None else 1
        saves: list[tuple[int, str, list[ToolCall] | None]] = []
        try:
            self._run_step_list(trail, session, classifiers, result, self_heal, modes, offset, saves)
        finally:
            self._save_recordings(trail, session, saves)

    def _run_step_list(self, trail: "Trail", session: Session, classifiers: list[str], result: TrailResult,
                       self_heal: bool, modes: set[str], offset: int,
                       saves: list[tuple[int, str, list[ToolCall] | None]]) -> None:
        options = self.options
        healed = False
        for step in trail.steps:
            self.progress.step_started(step.index + offset, step.kind, step.text)
            session.log.write("ObjectiveStartLog", {"stepIndex": step.index, "kind": step.kind,
                                                    "description": step.text})
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
                                             llm_cost_usd=agent_result.llm_cost_usd, recording=agent_result.recording)
                    if agent_result.success and step.recordable and options.save_recording:
                        # The healed recording replaces the broken slot (zero calls: the slot is removed).
                        saves.append((step.index, classifier, agent_result.recording or None))
            else:
                agent_result = self._solve_with_agent(session, step, trail, result, self_heal=False)
                step_result = StepResult(step.index, step.kind, step.text, "ai", agent_result.success,
                                         agent_result.message, None, llm_call_count=agent_result.llm_call_count,
                                         llm_cost_usd=agent_result.llm_cost_usd, recording=agent_result.recording)
                if agent_result.success and found is None and step.recordable and options.save_recording \
                        and step.kind != "tools" and agent_result.recording:
                    saves.append((step.index, "-".join(classifiers), agent_result.recording))
                if agent_result.outcome is not None and not agent_result.success:
                    step_result.duration_ms = int((time.perf_counter() - t0) * 1000)
                    self._step_done(session, step, step_result, result, first_entry)
                    raise StepFailed(agent_result.message or "the agent could not complete the step",
                                     agent_result.exit_code, agent_result.outcome)
            modes.add(step_result.mode)
            step_result.duration_ms = int((time.perf_counter() - t0) * 1000)
            self._step_done(session, step, step_result, result, first_entry)
            if not step_result.success:
                outcome = SessionOutcome.FAILED_WITH_SELF_HEAL if healed else SessionOutcome.FAILED
                raise StepFailed(_step_failure(step, step_result), ExitCode.TRAIL_FAILED, outcome, "ToolFailure")
        result.outcome = SessionOutcome.SUCCEEDED_WITH_SELF_HEAL if healed else SessionOutcome.SUCCEEDED
        result.exit_code = ExitCode.SUCCESS
        result.execution_mode = _execution_mode(modes)

    def _step_done(self, session: Session, step: "TrailStep", step_result: StepResult, result: TrailResult,
                   first_entry: int) -> None:
        if session.driver is not None:
            try:
                session.driver.step_finished(session, step.index, step_result.success)
            except Exception as exc:  # noqa: BLE001
                self.progress._print(f"  ! could not capture step artifacts: {exc}")
        shots = [e for e in session.log.entries[first_entry:] if e.get("screenshot")]
        if shots:
            step_result.screenshot = shots[-1]["screenshot"]
        session.log.write("ObjectiveCompleteLog", {"stepIndex": step.index, "kind": step.kind,
                                                   "description": step.text, "successful": step_result.success,
                                                   "mode": step_result.mode, "message": step_result.message})
        session.log.flush()  # a step boundary: a run killed from here on keeps this step's events
        step_result.number = step.index + (0 if session.trail is not None and session.trail.trailhead else 1)
        result.steps.append(step_result)
        result.llm_call_count += step_result.llm_call_count
        result.llm_cost_usd += step_result.llm_cost_usd
        self.progress.step_finished(step_result)

    def _replay(self, session: Session, step: "TrailStep", classifier: str, calls: list[ToolCall],
                trail: "Trail") -> tuple[bool, str | None, str | None]:
        ctx = session.context(step_index=step.index)
        number = step.index + (0 if trail.trailhead is not None else 1)
        for i, call in enumerate(calls):
            self.progress.tool_started(number, call.name)
            try:
                outcome = session.dispatcher.call(call, ctx)
            except BadInputError as exc:
                raise self._located(step, classifier, i, trail, exc) from None
            if not outcome.success:
                where = self._located(step, classifier, i, trail, BadInputError("")).location
                args = _short_args(session.memory.redact(call.args))
                return False, f"tool '{call.name}' ({where}) {args} failed: {outcome.message}", call.name
        return True, None, None

    def _solve_with_agent(self, session: Session, step: "TrailStep", trail: "Trail", result: TrailResult,
                          *, self_heal: bool, attempt_context: str | None = None) -> "_AgentOutcome":
        from ..agent import LlmNotConfiguredError, solve_step

        try:
            out = solve_step(session, step, trail=trail, options=self.options, self_heal=self_heal,
                             attempt_context=attempt_context)
        except LlmNotConfiguredError:
            raise StepFailed(_needs_llm(step, session), ExitCode.BAD_INPUT, SessionOutcome.ERROR, "NeedsLlm") from None
        return _AgentOutcome(out.success, out.message, out.outcome, out.exit_code, out.llm_call_count,
                             out.llm_cost_usd, list(out.recording))

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
                self.progress._print(f"  ! trailhead recording not saved: it took {len(calls)} calls and a trailhead "
                                     "records exactly one (wrap them in a YAML tool)")
                continue
            writable.append((index, classifier, calls))
        if not writable:
            return
        try:
            save_recordings(trail.path, writable, host=self.host)
        except TrailblazeError as exc:
            self.progress._print(f"  ! could not save recordings into {trail.path}: {exc}")
            return
        session.log.write("RecordingSavedLog", {"trailFilePath": str(trail.path), "updates": [
            {"stepIndex": i, "classifier": c, "recording": [x.to_json() for x in calls or []]} for i, c, calls in writable]})
        steps = ", ".join(str(i + (0 if trail.trailhead is not None else 1)) for i, _, _ in writable)
        self.progress._print(f"  ↳ saved recording{'s' if len(writable) > 1 else ''} for step{'s' if len(writable) > 1 else ''} "
                             f"{steps} ({writable[0][1]}) into {trail.path}")


def start_driver(driver: Driver, session: Session) -> DeviceInfo:
    """Start ``driver`` for ``session``; a driver's own exception becomes a ``DriverError`` (exit 2)."""
    try:
        return driver.start(session)
    except TrailblazeError:
        raise
    except Exception as exc:  # noqa: BLE001 - a driver's own failure is infrastructure
        raise DriverError(f"driver '{driver.key}' failed to start: {type(exc).__name__}: {exc}") from exc


@dataclass(frozen=True)
class Device:
    """A ``-d`` argument: ``platform``, ``platform/instanceId`` or a bare ``instanceId``."""

    spec: str
    platform: str | None
    instance_id: str | None

    @classmethod
    def parse(cls, spec: str, platforms: Iterable[str] = ()) -> "Device":
        """``platforms`` are the installed drivers' platforms: a bare ``tv`` is a platform when a plugin
        drives one, not an instance id."""
        spec = spec.strip()
        if not spec:
            raise BadInputError("-d/--device needs a value such as android/emulator-5554")
        known = {"android", "ios", "web", "host", *(p.lower() for p in platforms)}
        if "/" in spec:
            platform, _, instance = spec.partition("/")
            return cls(spec, platform.strip().lower() or None, instance.strip() or None)
        if spec.lower() in known:
            return cls(spec, spec.lower(), None)
        return cls(spec, None, spec)


@dataclass
class _AgentOutcome:
    success: bool
    message: str | None
    outcome: SessionOutcome | None
    exit_code: ExitCode
    llm_call_count: int = 0
    llm_cost_usd: float = 0.0
    recording: list[ToolCall] | None = None


def _needs_llm(step: "TrailStep", session: Session) -> str:
    where = f"{step.location}: " if step.location and step.location.file else ""
    classifier = "-".join(session.device.classifiers) or session.device.driver
    what = "is marked recordable: false" if not step.recordable else f"has no recording for '{classifier}'"
    return (f"{where}step {step.index} ({_quote(step.text)}) {what} and needs an LLM to run; configure one with "
            "--llm provider/model or an 'llm:' section in trails/config/trailblaze.yaml (see docs/agent.md)")


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
