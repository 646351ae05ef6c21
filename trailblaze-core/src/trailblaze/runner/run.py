"""The run loop: one session per trail, every step replayed or handed to the agent.

Errors are sorted by who must act: bad input (a trail, a flag: exit 3) is found before any step runs
where possible; infrastructure (a device, a browser, a tool server: exit 2) ends that trail only; a
failed tool or assertion fails the trail (exit 1). Other trails of the run always still run, and
whatever happens the driver is stopped, session hooks are told, and logs are flushed.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BadInputError, ConfigError, ExitCode, TrailblazeError
from ..plugins import PluginHost
from ..reuse import reuse_scope
from ..results.model import RunResult, TrailResult
from ..session import SessionOutcome
from . import interrupt
from .discovery import expand
from .lifecycle import Device, ToolWorkspace
from .options import RunOptions
from .progress import Progress
from .trail_session import TrailSession

if TYPE_CHECKING:
    from ..trail.model import Trail


class Runner(TrailSession):
    """Runs trails. ``Runner(options).run(["trails/"])`` is what ``trailblaze run`` does.

    Its jobs live one module each: the session of one trail (``runner/trail_session.py``), the step
    loop and replay (``runner/replay.py``), the agent hand-off (``runner/handoff.py``) and the outputs
    (``runner/outputs.py``); this class runs the trails across devices, shards and retries.

    Driver choice, workspaces and sessions come from ``SessionFactory``; every session is opened and
    closed by ``SessionLifecycle`` (``runner/lifecycle.py``), like every other entry point's."""

    def __init__(self, options: RunOptions | None = None, *, host: PluginHost | None = None,
                 progress: Progress | None = None) -> None:
        self.progress = progress or Progress()
        super().__init__(options, host=host, warn=lambda line: self.progress.note(f"  ! {line}"))
        self.progress.redact = self.redactor  # the factory's: every output of the run passes through it
        self.interrupted: str | None = None
        """The signal that interrupted this run; the trails not started yet are then listed as cancelled."""
        from ..llm.budget import CostBudget, SharedCostBudget, llm_spend_file
        from .history import RunHistory

        self.llm_budget = CostBudget(self.options.max_llm_cost)
        """``--max-llm-cost``: shared by every session of the run (see ``llm/budget.py``)."""
        if self.options.worker is not None and self.options.max_llm_cost is not None:
            # An xdist worker writes below <output>/<worker id>: the run's total sits beside the workers.
            self.llm_budget = SharedCostBudget(self.options.max_llm_cost,
                                               self.output_dir.parent / llm_spend_file(self.options.run_id))

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
            files = expand(paths)
            devices: list[Device | None] = [self.parse_device(spec) for spec in self.options.devices] or [None]
            plan = self._shard_plan(files, devices)
            if len(devices) == 1:
                self._run_files(plan[0], devices[0], result)
            else:
                # One thread per device: each device gets its own driver, session and ports; the trails
                # of one device run in order. An interruption reaches the main thread only: the device
                # threads then finish their current trail and start no other.
                with ThreadPoolExecutor(max_workers=len(devices), thread_name_prefix="trailblaze-device") as pool:
                    futures = [pool.submit(self._run_files, plan[i], d, result) for i, d in enumerate(devices)]
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

    def _shard_plan(self, files: list[Path], devices: "list[Device | None]") -> list[list[Path]]:
        """Each device's trails: all of them, or with ``--shard I/N`` this shard's trail × device pairs."""
        if not self.options.shard:
            return [files for _ in devices]
        from ..results.model import trail_key
        from .shards import durations_for, pair_key, parse_shard, select

        shard = parse_shard(self.options.shard)
        pairs = {(i, path): (pair_key(path, d.spec if d else None), trail_key(path))
                 for i, d in enumerate(devices) for path in files}
        source = self.options.durations
        known = self.host.run_durations(source) if source else {}
        keep = select([key for key, _ in pairs.values()], shard, durations_for(pairs.values(), known))
        plan = [[path for path in files if pairs[(i, path)][0] in keep] for i in range(len(devices))]
        how = f"by the durations of {source}" if known else \
            f"by count: no durations at {source} yet" if source else "by count"
        self.progress.note(f"shard {shard}: {sum(map(len, plan))} of {len(pairs)} trail runs ({how})")
        return plan

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

    def run_trail(self, path: Path, device: "Device | None" = None) -> TrailResult | None:
        result = self._run_trail(path, device)
        if result is not None:
            result.device_label = device.spec if device is not None else None
            cls = self.drivers.get(result.driver) if result.driver else None
            try:
                result.endpoint = self.endpoint(device, cls, self.workspace_for(path).config)
            except ConfigError:  # a bad 'endpoints:' is the trail's error already (make_driver)
                result.endpoint = None
        return result

    def _run_trail(self, path: Path, device: "Device | None") -> TrailResult | None:
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
        result.tags = list(trail.config.tags)
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

    def _early_result(self, path: Path, title: str, exc: TrailblazeError, started: float) -> TrailResult:
        self._print_tracebacks([exc])
        outcome = SessionOutcome.ERROR if exc.exit_code != ExitCode.TRAIL_FAILED else SessionOutcome.FAILED
        result = TrailResult(path, title, outcome, exc.exit_code, message=str(exc), started_at=started,
                             completed_at=time.time(), failure_kind=type(exc).__name__)
        self.progress.note(f"✗ {path}: {exc}")
        return result

