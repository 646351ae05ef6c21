"""pytest-xdist: the controller's side of a run on workers. Every worker writes its own result bundle
(``state.py``); the controller gives them one run id, notes the trail of a worker that died, and at the
end merges this run's bundles into one report, summary and JUnit at the output directory."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .state import STATE, _State, run_id, worker_id

if TYPE_CHECKING:
    from ..report.bundle import TrailRecord
    from ..report.merged import Merged


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: every worker writes the controller's run id into its bundle."""
    node.workerinput["trailblaze_run_id"] = run_id(node.config)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Last, so that under xdist the workers are down (xdist's own ``pytest_sessionfinish`` waits for
    them) before their bundles are merged: an interrupted worker records its running trail first."""
    from ..runner.interrupt import deferred

    state = session.config.stash.get(STATE, None)
    if state is None:
        return
    with deferred():  # a signal now is noted: the outputs are never cut in half
        _finish(session, state)
    if state.output_errors and getattr(session.config, "workeroutput", None) is None:
        session.exitstatus = exit_status(session.exitstatus)


def exit_status(status: int | pytest.ExitCode) -> int:
    """The session's exit status when an output was not written: decided as ``trailblaze run`` decides
    its own (``ExitCode.worst`` of the run's code and the infrastructure failure, 2), so a writer that
    raised ends ``pytest --trails`` as it ends ``trailblaze run``. pytest's own internal and usage errors
    (3, 4: pytest could not run) are worse and stay."""
    from ..errors import ExitCode

    if status in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR):
        return int(status)
    return int(ExitCode.worst([int(status), ExitCode.INFRASTRUCTURE]))


def _finish(session: pytest.Session, state: _State) -> None:
    state.finish()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None and state.worker_lines:
        workeroutput["trailblaze"] = [f"{worker_id(session.config)}: {line}" for line in state.worker_lines]
        workeroutput["trailblaze_output_errors"] = list(state.output_errors)
    if workeroutput is None and session.config.pluginmanager.getplugin("dsession") is not None and state.trail_paths:
        try:
            merge_workers(state)
        except Exception as exc:  # noqa: BLE001 - one line, exit 2, as a plain run's failed output
            state.output_failed(f"could not merge the workers' results: {exc}")


@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem: str, report: pytest.TestReport, sched: Any) -> None:
    """xdist controller: a worker died (SIGKILL, OOM) running ``crashitem``; xdist starts a replacement and
    fails the test; the merged report lists the trail as an infrastructure error naming the worker."""
    state = report_config(report)
    if state is None or "::" not in crashitem:
        return
    node = getattr(report, "node", None)
    worker = str(getattr(getattr(node, "gateway", None), "id", "") or "") or None
    state.crashed.append(item_record(
        state, crashitem, outcome="Error", exit_code=2, failure_kind="WorkerCrashed", worker=worker,
        message=f"worker {worker or '?'} crashed while running this trail (the process died: killed, "
                "out of memory?); xdist replaced it and ran the other trails"))


class UnreadableTrails:
    """xdist controller: a trail file that does not collect on the workers (it does not parse) is listed
    in the merged summary and report as an error with exit code 3, as a plain run lists it; the other
    trails run."""

    def __init__(self, state: _State) -> None:
        self.state = state

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        from ..runner.discovery import is_trail_file

        path = Path(report.nodeid)
        if not report.failed or not is_trail_file(path) or any(r.trail_source == report.nodeid
                                                               for r in self.state.unreadable):
            return
        from ..report.bundle import TrailRecord
        from ..results.model import trail_key

        message = str(report.longrepr or "").strip() or "the trail file could not be read"
        now = time.time()
        full = Path(self.state.config.rootpath) / path
        workspace, within = _workspace_of(full)
        self.state.unreadable.append(TrailRecord(
            key=trail_key(full), title=path.name, trail_source=report.nodeid,
            outcome="Error", exit_code=3, message=message, failure_kind="UnreadableTrail", started_at=now,
            completed_at=now, duration_ms=0, run_id=run_id(self.state.config), workspace=workspace,
            workspace_path=within))


class NotStarted:
    """xdist controller: what the workers collected and what they reported on, so an interrupted run
    (SIGINT, SIGTERM, SIGHUP) lists the trails no worker started as CANCELLED in the merged summary and
    report, as a plain run lists them. (A worker records the trail it was running itself, as CANCELLED with
    the step it reached; that record wins over the one listed here.)"""

    def __init__(self, state: _State) -> None:
        self.state = state

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        from ..runner.discovery import is_trail_file

        for nodeid in ids:
            if "::" in nodeid and is_trail_file(Path(nodeid.partition("::")[0])):
                self.state.collected.setdefault(nodeid, None)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Only a report that ends the item counts: a worker stopped after sending an item's setup report
        # and before its runner began has no record of it, and the trail would be in no list at all. A
        # worker's own record of a trail it was running has the same identity and wins in the merge.
        if report.when == "call" or report.skipped or report.failed:
            self.state.reported.add(report.nodeid)

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        from ..runner.interrupt import signal_name

        self.state.interrupted = signal_name(excinfo.value)

    def records(self) -> list[TrailRecord]:
        """One CANCELLED record per trail item that no worker reported on, once the run was interrupted;
        interrupted before a worker finished collecting, one per trail file (and ``--trailblaze-device``)."""
        state = self.state
        if state.interrupted is None:
            return []
        if not state.collected:
            return self._files_not_started()
        out = []
        for nodeid in state.collected:
            if nodeid not in state.reported:
                path, _, name = nodeid.partition("::")
                title, _, label = name.rpartition(" [")
                device = label.rstrip("]") if state.config.getoption("trailblaze_device") else None
                full = Path(state.config.rootpath) / path
                out.append(not_started_record(state, full, title or name, device))
        return out

    def _files_not_started(self) -> list[TrailRecord]:
        from ..runner.discovery import expand

        state = self.state
        try:
            files = expand([str(p) for p in state.trail_paths])
        except Exception:  # noqa: BLE001 - BadInputError: the usage error was reported already
            return []
        devices: list[str | None] = list(state.config.getoption("trailblaze_device") or []) or [None]
        out = []
        for path in files:
            name = path.name.removesuffix(".yaml").removesuffix(".trail")
            for device in devices:
                out.append(not_started_record(state, path, f"{name} on {device}" if device else name, device))
        return out


def not_started_record(state: _State, path: Path, title: str, device: str | None) -> TrailRecord:
    """The record of a trail no worker started (``results.model.interrupted_trail``, as a plain run
    lists it)."""
    from ..config import find_workspace
    from ..report.bundle import record_of
    from ..results.model import interrupted_trail

    full = path.resolve()
    trail = interrupted_trail(state.trail_path(full), title, state.interrupted or "SIGINT",
                              root=find_workspace(full) or Path.cwd(), device_label=device)
    return record_of(trail, state.output_root(), shard=None, worker=None, run_id=run_id(state.config))


def item_record(state: _State, nodeid: str, *, outcome: str, exit_code: int, message: str, failure_kind: str,
                worker: str | None = None) -> TrailRecord:
    """A result record for the trail item ``nodeid`` (``path::title [device]``) that no runner wrote: a
    crashed worker's trail."""
    from ..report.bundle import TrailRecord
    from ..results.model import trail_key

    path, _, name = nodeid.partition("::")
    title, _, label = name.rpartition(" [")
    now = time.time()
    full = Path(state.config.rootpath) / path
    workspace, within = _workspace_of(full)
    return TrailRecord(
        key=trail_key(full), title=title or name, trail_source=path, workspace=workspace, workspace_path=within,
        device=label.rstrip("]") if state.config.getoption("trailblaze_device") else None, outcome=outcome,
        exit_code=exit_code, message=message, failure_kind=failure_kind, started_at=now, completed_at=now,
        duration_ms=0, worker=worker, run_id=run_id(state.config))


def _workspace_of(path: Path) -> tuple[str | None, str | None]:
    """The workspace fields of a record the controller writes for a worker's trail: the workspace the
    worker's runner finds for it (``Runner.workspace_for``), so the record has the identity of the
    trail's own record (a trail the workers ran and an interruption then listed is one result)."""
    from ..config import find_workspace
    from ..report.bundle import within_workspace

    return within_workspace(path, find_workspace(path) or Path.cwd())


def report_config(report: pytest.TestReport) -> _State | None:
    node = getattr(report, "node", None)
    config = getattr(node, "config", None)
    return config.stash.get(STATE, None) if config is not None else None


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist controller: collect each worker's report lines for the terminal summary.

    Optional because the hook is xdist's: without it, pytest would refuse every run (even one that never
    touches Trailblaze) with ``unknown hook 'pytest_testnodedown'``.
    """
    output = getattr(node, "workeroutput", None) or {}
    lines = output.get("trailblaze")
    state = node.config.stash.get(STATE, None)
    if lines and state is not None:
        state.worker_lines.extend(lines)
        state.output_errors.extend(output.get("trailblaze_output_errors") or ())  # their lines are in ``lines``


def merge_workers(state: _State) -> None:
    """xdist controller: this run's worker bundles (and the trails of crashed workers) into one report,
    summary and JUnit at the output directory."""
    from ..commands.session_options import pytest_session_values
    from ..report.bundle import MANIFEST, read_manifest
    from ..report.merge import merge_bundles

    from ..llm.budget import llm_spend_file

    out = state.output_root()
    rid = run_id(state.config)
    (out / llm_spend_file(rid)).unlink(missing_ok=True)  # the workers' shared --max-llm-cost total: done
    # Worker directories of this run only: an earlier run's bundles (gw2 of a wider run, the output
    # directory's own bundle) stay out of it.
    mine = [p.parent.parent for p in sorted(out.glob(f"gw*/{MANIFEST}"))
            if read_manifest(p.parent.parent).run_id == rid]
    watcher = state.config.pluginmanager.get_plugin("trailblaze-not-started")
    cancelled = watcher.records() if isinstance(watcher, NotStarted) else []
    if not mine and not state.crashed and not state.unreadable and not cancelled:
        return
    values = pytest_session_values(state.config.getoption)
    merged = merge_bundles(mine, out, junit_xml=values["junit_xml"], report=values["report"],
                           extra=[*state.crashed, *state.unreadable, *cancelled],
                           interrupted=state.interrupted)
    _write_plugin_outputs(state, merged, values)
    c = merged.manifest.counts
    # The workers' own report and summary lines give way to the merged ones (their bundles keep them).
    state.worker_lines = [line for line in state.worker_lines if not re.search(r": (report|summary): ", line)]
    state.worker_lines.append(f"merged {len(mine)} worker bundle(s): {c.get('total', 0)} trail runs, "
                              f"{c.get('passed', 0)} passed, {c.get('failed', 0)} failed, "
                              f"{c.get('skipped', 0)} skipped")
    state.worker_lines += [f"{name}: {merged.files[name]}" for name in ("report", "summary", "junit")
                           if name in merged.files]
    state.worker_lines.append(merged.results_line)


def _write_plugin_outputs(state: _State, merged: Merged, values: dict[str, Any]) -> None:
    """xdist controller: the plugins' formats, written once, here, from every worker's results (the
    workers write none). A writer that failed is one line naming its plugin: on ``trailblaze run -n``'s
    console (which then exits 2), else in the terminal summary's ``trailblaze`` section."""
    from ..commands.output_options import write_merged_outputs
    from ..commands.pytest_bridge import RunConsole
    from ..plugins import get_host
    from ..results.output_request import BundleContext
    from .outputs import output_values

    host = get_host()
    context = BundleContext(run_id=run_id(state.config), devices=tuple(values.get("devices") or ()),
                            plugins={p.name: p.version for p in host.plugins()})
    errors = write_merged_outputs(merged, context, host, junit_xml=values["junit_xml"], report=values["report"],
                                  options=output_values(state.config), interrupted=state.interrupted)
    console = next((p for p in state.config.pluginmanager.get_plugins() if isinstance(p, RunConsole)), None)
    for error in errors:
        if console is not None:
            console.output_failed(str(error))
        else:
            state.output_failed(str(error))
