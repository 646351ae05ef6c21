"""The run loop: one session per trail, every step replayed or handed to the agent.

Errors are sorted by who must act: bad input (a trail, a flag: exit 3) is found before any step runs
where possible; infrastructure (a device, a browser, a tool server: exit 2) ends that trail only; a
failed tool or assertion fails the trail (exit 1). Other trails of the run always still run, and
whatever happens the driver is stopped, session hooks are told, and logs are flushed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadInputError, ExitCode, TrailblazeError
from ..plugins import PluginHost
from ..reuse import reuse_scope
from ..results.model import RunResult, TrailResult, interrupted_trail
from ..session import Session, SessionOutcome
from . import interrupt
from .discovery import expand, nothing_tagged
from .handoff import AgentHandoff
from .lifecycle import Device, SessionFactory, SessionLifecycle, ToolWorkspace, run_output_dir
from .options import RunOptions
from .outputs import RunOutputs
from .progress import Progress
from .replay import StepLoop
from .trail_session import TrailRunner

if TYPE_CHECKING:
    from ..config import WorkspaceConfig
    from ..driver import Driver, DriverRegistry
    from ..memory import Redactor
    from ..results.output_request import OutputRequest
    from ..trail.model import Trail
    from .history import RunHistory


class Runner:
    """Runs trails. ``Runner(options).run(["trails/"])`` is what ``trailblaze run`` does.

    It runs the trails across devices, shards and interruptions, and has a part for each other job:
    ``factory`` (``SessionFactory``, ``runner/lifecycle.py``: drivers, workspaces, sessions), ``trails``
    (``TrailRunner``, ``runner/trail_session.py``: one trail, retried, its session opened and closed),
    ``steps`` (``StepLoop``, ``runner/replay.py``: replay and self-heal) holding ``handoff``
    (``AgentHandoff``, ``runner/handoff.py``: the agent and the save-back), and ``outputs``
    (``RunOutputs``, ``runner/outputs.py``: the summary, the results store, the output hooks). The
    methods below that only pass a call on to a part are what commands and the pytest plugin call."""

    def __init__(self, options: RunOptions | None = None, *, host: PluginHost | None = None,
                 progress: Progress | None = None) -> None:
        from ..llm.budget import BUDGET_KEY, CostBudget, SharedCostBudget, llm_spend_file

        self.progress = progress or Progress()
        options = options or RunOptions()
        output_dir = run_output_dir(options)
        self.llm_budget = CostBudget(options.max_llm_cost)
        """``--max-llm-cost``: shared by every session of the run (see ``llm/budget.py``)."""
        if options.worker is not None and options.max_llm_cost is not None:
            # An xdist worker writes below <output>/<worker id>: the run's total sits beside the workers.
            self.llm_budget = SharedCostBudget(options.max_llm_cost,
                                               output_dir.parent / llm_spend_file(options.run_id))
        self.factory = SessionFactory(options, host=host, warn=lambda line: self.progress.note(f"  ! {line}"),
                                      finding=self.progress.note, resources={BUDGET_KEY: self.llm_budget})
        self.progress.redact = self.factory.redactor  # every output of the run passes through it
        self.outputs = RunOutputs(self.factory, self.progress)
        self.handoff = AgentHandoff(options, self.progress, self.llm_budget, self.factory.host.llm_providers)
        self.steps = StepLoop(options, self.progress, self.factory.redactor, self.handoff)
        self.trails = TrailRunner(self.factory, self.steps, self.outputs, self.progress)
        self.interrupted: str | None = None
        """The signal that interrupted this run; the trails not started yet are then listed as cancelled."""
        self._lock = threading.Lock()  # the device threads append to one RunResult

    # -- what the parts hold ------------------------------------------------------------------
    @property
    def options(self) -> RunOptions:
        return self.factory.options

    @property
    def host(self) -> PluginHost:
        return self.factory.host

    @property
    def output_dir(self) -> Path:
        return self.factory.output_dir

    @property
    def redactor(self) -> Redactor:
        """The run's one redaction point (``SessionFactory.redactor``)."""
        return self.factory.redactor

    @property
    def history(self) -> RunHistory | None:
        """The results store this run appends to (``--results-db``, ``--no-history``)."""
        return self.outputs.history

    @property
    def drivers(self) -> DriverRegistry:
        return self.factory.drivers

    # -- passed on to a part (what commands, the pytest plugin and the MCP server call) ------------
    def show_finding(self, line: str) -> None:
        self.factory.show_finding(line)

    def workspace_for(self, path: Path | None, *, exact: bool = False) -> ToolWorkspace:
        return self.factory.workspace_for(path, exact=exact)

    def parse_device(self, spec: str) -> Device:
        return self.factory.parse_device(spec)

    def driver_for_trail(self, trail: "Trail", ws: WorkspaceConfig, device: Device | None = None) -> type[Driver]:
        return self.factory.driver_for_trail(trail, ws, device)

    def new_session(self, trail: "Trail | None", ws: ToolWorkspace, bound: Mapping[str, Any] | None = None,
                    device: Device | None = None, *, target: str | None = None,
                    extra: Mapping[str, Any] | None = None) -> Session:
        return self.factory.new_session(trail, ws, bound, device, target=target, extra=extra)

    def open(self, *, workspace: Path | ToolWorkspace | None = None, driver: str | type[Driver] | Driver | None = None,
             device: str | Device | None = None, trail: "Trail | None" = None, target: str | None = None,
             args: Mapping[str, Any] | None = None, start_driver: bool = True,
             extra: Mapping[str, Any] | None = None) -> AbstractContextManager[SessionLifecycle]:
        """``SessionFactory.open`` on this run's factory (the pytest plugin's ``trailblaze`` fixture)."""
        return self.factory.open(workspace=workspace, driver=driver, device=device, trail=trail, target=target,
                                 args=args, start_driver=start_driver, extra=extra)

    def run_trail(self, path: Path, device: Device | None = None) -> TrailResult | None:
        return self.trails.run_trail(path, device)

    def run_loaded_trail(self, trail: "Trail", ws: ToolWorkspace, device: Device | None = None, *,
                         started: float | None = None) -> TrailResult:
        return self.trails.run_loaded_trail(trail, ws, device, started=started)

    def record_history(self, trail: TrailResult, device: Device | None = None) -> None:
        self.outputs.record_history(trail, device)

    def write_outputs(self, result: RunResult) -> None:
        self.outputs.write_outputs(result)

    def output_request(self) -> OutputRequest:
        return self.outputs.output_request()

    # -- the run ------------------------------------------------------------------------------
    def run(self, paths: list[str]) -> RunResult:
        """Run every trail of ``paths``; the summary and report are written whatever happens.

        An interruption (Ctrl-C, or SIGTERM/SIGHUP under ``interrupt.handle_signals``) ends the running
        trail as CANCELLED, lists the trails not started as CANCELLED, writes the outputs and is then
        re-raised as ``RunInterrupted`` with ``result`` attached."""
        result = RunResult(output_dir=self.output_dir, redactor=self.redactor,
                           fail_on_flaky=self.options.fail_on_flaky)
        self.outputs.check_output_paths()
        try:
            if not paths:
                raise BadInputError("no trails given", hint="usage: trailblaze run PATH... (files, directories or globs)")
            files = expand(paths)
            from .endpoints import plain_devices

            devices: list[Device | None] = [self.parse_device(spec)
                                            for spec in plain_devices(self.options.devices)] or [None]
            assigned = [files for _ in devices]
            if self.options.all_devices:  # each trail on each platform it declares (all_devices.py)
                from .all_devices import plan_every_device, refuse_with_devices

                refuse_with_devices(self.options.devices)
                platforms, assigned = plan_every_device(files, self.drivers)
                devices = [self.parse_device(p) if p is not None else None for p in platforms]
            plan = self._shard_plan(assigned, devices)
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
            if self.options.tags and not result.trails and self.interrupted is None:
                raise nothing_tagged(self.options.tags, len(files))
        except TrailblazeError as exc:
            exc.message, exc.hint = self.redactor(exc.message), self.redactor(exc.hint)
            raise
        except Exception as exc:
            exc.args = self.redactor(exc.args)  # what an "internal error: …" line prints
            raise
        finally:
            try:
                self.outputs.write_outputs_once(result, self.interrupted)
                self.interrupted = result.interrupted
            finally:
                self.outputs.close()
        late = interrupt.pending()
        if self.interrupted is not None or late is not None:
            stopped = interrupt.RunInterrupted(self.interrupted or late or "SIGINT")
            stopped.result = result  # type: ignore[attr-defined]
            raise stopped
        return result

    def _shard_plan(self, assigned: list[list[Path]], devices: "list[Device | None]") -> list[list[Path]]:
        """Each device's trails (``assigned``: all of them, or with ``--all-devices`` those declaring its
        platform), or with ``--shard I/N`` this shard's trail × device pairs of them."""
        if not self.options.shard:
            return assigned
        from ..results.model import trail_key
        from .shards import durations_for, pair_key, parse_shard, select

        shard = parse_shard(self.options.shard)
        pairs = {(i, path): (pair_key(path, d.spec if d else None), trail_key(path))
                 for i, d in enumerate(devices) for path in assigned[i]}
        source = self.options.durations
        known = self.host.run_durations(source) if source else {}
        keep = select([key for key, _ in pairs.values()], shard, durations_for(pairs.values(), known))
        plan = [[path for path in assigned[i] if pairs[(i, path)][0] in keep] for i in range(len(devices))]
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
                trail_result = self.trails.run_trail(path, device)
            except KeyboardInterrupt as exc:
                self.interrupted = interrupt.signal_name(exc)
                cancelled = getattr(exc, "trail_result", None)
                if not isinstance(cancelled, TrailResult):  # stopped before its session opened
                    cancelled = self._cancelled(path, device)
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
            result.trails.extend(self._cancelled(path, device) for path in files)

    def _cancelled(self, path: Path, device: "Device | None") -> TrailResult:
        """A trail the interruption kept from starting, named by its file (it was never parsed)."""
        name = path.name.removesuffix(".yaml").removesuffix(".trail")
        title = f"{name} on {device.spec}" if device is not None else name
        from ..config import find_workspace

        return interrupted_trail(path, title, self.interrupted or "SIGINT", root=find_workspace(path) or Path.cwd(),
                                 device_label=device.spec if device is not None else None)

    def _check_result(self, ws: ToolWorkspace) -> TrailResult:
        where = ws.config.file or ws.config.root
        message = "; ".join(f.render() for f in ws.check.errors)
        return TrailResult(Path(where), "workspace checks", SessionOutcome.ERROR, ExitCode.BAD_INPUT,
                           message=message, failure_kind="CheckError", completed_at=time.time())
