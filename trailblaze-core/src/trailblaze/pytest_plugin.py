"""Trails as pytest tests, and Trailblaze sessions inside pytest tests.

Installed with ``trailblaze`` through the ``pytest11`` entry point, so it is imported only when pytest
runs (``trailblaze`` does not depend on pytest) and costs nothing else there: nothing is loaded until
trails are asked for or the ``trailblaze_session`` fixture is used. ``-p no:trailblaze`` turns it off.

Collection is opt-in: trail files are collected only from the paths given with ``--trails PATH`` or the
``trailblaze_trails`` ini option, so a suite that happens to contain trail files (this repository's own
``examples/``) keeps collecting exactly what it did before. ``--trails`` alone runs only the trails; the
ini option adds them to pytest's normal collection. See docs/pytest.md.

Each worker process (pytest-xdist) has one ``Runner`` and one reuse scope: one browser per worker, a
fresh browser context per trail, its own output directory (``<output>/<worker id>``), and at the end
its own JSON summary and HTML report.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .report.bundle import TrailRecord
    from .reuse import ReuseScope
    from .runner.lifecycle import Device, SessionLifecycle
    from .runner.options import RunOptions
    from .runner.results import RunResult, TrailResult
    from .runner.run import Runner
    from .session import Session
    from .tools.base import ToolResult

GROUP = "trailblaze"
MARKER = "trailblaze"


def pytest_addoption(parser: pytest.Parser) -> None:
    from .commands.session_options import add_pytest_options

    group = parser.getgroup(GROUP, "trailblaze: run trail files as tests, and drive sessions from tests")
    group.addoption("--trails", action="append", default=[], metavar="PATH",
                    help="Collect trail files (*.trail.yaml, trail.yaml) under PATH as tests (repeatable). Without "
                         "other test paths on the command line, only the trails are collected.")
    add_pytest_options(group)  # the session flags (--trailblaze-driver, -option, -secret, -shard ...): one table
    parser.addini("trailblaze_trails", type="paths", default=[],
                  help="Trail paths to collect as tests (relative to the ini file), like --trails.")
    parser.addini("trailblaze_output_dir", default="", help="Default for --trailblaze-output-dir.")


# -- configuration ------------------------------------------------------------------------------------
class _State:
    """One per pytest process (a worker under xdist): the runner, its reuse scope, what ran."""

    def __init__(self, config: pytest.Config, trail_paths: list[Path]) -> None:
        self.config = config
        self.trail_paths = trail_paths
        self.trail_files: set[Path] | None = None
        self._runner: Runner | None = None
        self.scope: ReuseScope | None = None
        self.results: list[TrailResult] = []
        self.run: RunResult | None = None
        self.worker_lines: list[str] = []
        self.crashed: list[TrailRecord] = []
        """xdist controller: trails whose worker died running them (reported as infrastructure errors)."""

    @property
    def runner(self) -> "Runner":
        if self._runner is None:
            from .reuse import ReuseScope
            from .runner.run import Runner

            self._runner = Runner(self.options(), progress=_captured_progress())
            self.scope = ReuseScope()
        return self._runner

    def options(self) -> RunOptions:
        from .commands.session_options import pytest_session_values
        from .errors import TrailblazeError
        from .runner.options import RunOptions

        try:
            values = pytest_session_values(self.config.getoption)
        except TrailblazeError as exc:
            raise pytest.UsageError(f"trailblaze: {exc}") from None
        out_dir = self.output_root(values["output_dir"])
        worker = worker_id(self.config)
        if worker is not None:
            out_dir = out_dir / worker  # workers never write into each other's directories
            values["junit_xml"] = None  # the controller writes the one JUnit file, from the merged bundles
        values.update(output_dir=out_dir, headed=values["headed"] or bool(self.config.getoption("headed", False)),
                      worker=worker, run_id=run_id(self.config))
        return RunOptions(**values)

    def output_root(self, given: Path | None = None) -> Path:
        """The run's output directory (a worker writes below it, in ``<worker id>/``)."""
        output = given or self.config.getoption("trailblaze_output_dir") or \
            self.config.getini("trailblaze_output_dir") or None
        return Path(output) if output else Path.cwd() / "logs"

    def record(self, result: TrailResult) -> None:
        """Keep a finished trail; under xdist it is appended to the worker's bundle at once, so a worker
        killed later still leaves every trail it finished for the controller's merge."""
        self.results.append(result)
        if worker_id(self.config) is None or self._runner is None:
            return
        problem = self._runner.append_to_bundle(result)
        if problem:  # the final write at the end of the session tries again
            self.worker_lines.append(f"could not write the result bundle: {problem}")

    def merge_workers(self) -> None:
        """xdist controller: this run's worker bundles (and the trails of crashed workers) into one report,
        summary and JUnit at the output directory."""
        from .report.bundle import MANIFEST, read_bundle
        from .report.merge import merge_bundles

        out = self.output_root()
        rid = run_id(self.config)
        # Worker directories of this run only: an earlier run's bundles (gw2 of a wider run, the output
        # directory's own bundle) stay out of it.
        mine = [p.parent.parent for p in sorted(out.glob(f"gw*/{MANIFEST}"))
                if read_bundle(p.parent.parent).manifest.run_id == rid]
        if not mine and not self.crashed:
            return
        from .commands.session_options import pytest_session_values

        junit = pytest_session_values(self.config.getoption)["junit_xml"]
        merged = merge_bundles(mine, out, junit_xml=junit, extra=self.crashed)
        c = merged.manifest.counts
        # The workers' own report and summary lines give way to the merged ones (their bundles keep them).
        self.worker_lines = [line for line in self.worker_lines if not re.search(r": (report|summary): ", line)]
        self.worker_lines.append(f"merged {len(mine)} worker bundle(s): {c.get('total', 0)} trail runs, "
                                 f"{c.get('passed', 0)} passed, {c.get('failed', 0)} failed, "
                                 f"{c.get('skipped', 0)} skipped")
        self.worker_lines += [f"{name}: {merged.files[name]}" for name in ("report", "summary", "junit")
                              if name in merged.files]

    def finish(self) -> None:
        """Write this process's summary and report, then close the shared browser (and what else the
        scope holds); called once, at the end of the session."""
        if self._runner is None:
            return
        from .runner.results import RunResult

        runner, self._runner = self._runner, None
        if self.results:
            run = RunResult(trails=list(self.results), output_dir=runner.output_dir, redactor=runner.redactor,
                            fail_on_flaky=runner.options.fail_on_flaky)
            try:
                runner.write_outputs(run)
            except Exception as exc:  # noqa: BLE001 - a report must not turn a green run red
                self.worker_lines.append(f"could not write the report: {exc}")
            self.run = run
            if run.report_path:
                self.worker_lines.append(f"report: {run.report_path}")
            if run.summary_path:
                self.worker_lines.append(f"summary: {run.summary_path}")
        if runner.history is not None:
            runner.history.close()
        scope, self.scope = self.scope, None
        if scope is not None:
            opened = sum(scope.opened.values())
            if opened:
                kinds = ", ".join(f"{key[0] if isinstance(key, tuple) else key} ×{n}" for key, n in scope.opened.items())
                self.worker_lines.append(f"shared resources opened: {kinds}")
            scope.close()


STATE = pytest.StashKey[_State]()


def worker_id(config: pytest.Config) -> str | None:
    """The xdist worker id (``gw0``...), or None outside a worker."""
    workerinput = getattr(config, "workerinput", None)
    return str(workerinput["workerid"]) if workerinput else None


def run_id(config: pytest.Config) -> str:
    """One id for the controller and all its workers (``TRAILBLAZE_RUN_ID`` when the CI sets one)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput and workerinput.get("trailblaze_run_id"):
        return str(workerinput["trailblaze_run_id"])
    if RUN_ID not in config.stash:
        from .report.bundle import new_run_id

        config.stash[RUN_ID] = new_run_id()
    return config.stash[RUN_ID]


RUN_ID = pytest.StashKey[str]()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: every worker writes the controller's run id into its bundle."""
    node.workerinput["trailblaze_run_id"] = run_id(node.config)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: a trail run as a test, or a test using trailblaze_session "
                                       "(keyword arguments: workspace, driver, device, target)")
    given = [Path(p) for p in config.getoption("trails") or []]
    ini: list[Path] = list(config.getini("trailblaze_trails") or [])
    paths = [p if p.is_absolute() else Path(config.invocation_params.dir) / p for p in given] + ini
    config.stash[STATE] = _State(config, [p.resolve() for p in paths])
    if not paths:
        return
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise pytest.UsageError(f"trailblaze: trail path not found: {', '.join(missing)}")
    if given and config.args_source is not pytest.Config.ArgsSource.ARGS:
        # `pytest --trails x` means "run the trails", not "run testpaths and the trails too".
        config.args = [str(p) for p in paths[: len(given)]]
    else:
        # The ini option adds the trails to what pytest collects anyway (testpaths, the invocation
        # directory or the paths given): a bare `pytest` still runs the project's regular tests.
        config.args = [*config.args, *[str(p) for p in paths]]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--trailblaze-shard I/N``: the same partition as ``trailblaze run --shard`` (``runner/shards.py``),
    over trail × device pairs (other tests by node id), balanced by ``--trailblaze-durations``."""
    shard_text = config.getoption("trailblaze_shard")
    if not shard_text:
        return
    from .errors import TrailblazeError
    from .report.bundle import load_durations
    from .runner.shards import durations_for, pair_key, parse_shard, select, trail_key

    try:
        shard = parse_shard(shard_text, "--trailblaze-shard")
        durations_path = config.getoption("trailblaze_durations")
        known = load_durations(Path(durations_path), missing_ok=True) if durations_path else {}
    except TrailblazeError as exc:
        raise pytest.UsageError(f"trailblaze: {exc}") from None
    keys: dict[str, tuple[str, str]] = {}
    for item in items:
        if isinstance(item, TrailItem):
            keys[item.nodeid] = (pair_key(item.path, item.device.spec if item.device else None), trail_key(item.path))
        else:
            keys[item.nodeid] = (item.nodeid, item.nodeid)
    chosen = select([pair for pair, _ in keys.values()], shard, durations_for(keys.values(), known))
    keep = [item for item in items if keys[item.nodeid][0] in chosen]
    dropped = [item for item in items if keys[item.nodeid][0] not in chosen]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    state = parent.config.stash.get(STATE, None)
    if state is None or not state.trail_paths:
        return None
    from .runner.discovery import expand, is_trail_file

    if not is_trail_file(file_path):
        return None
    if state.trail_files is None:
        try:
            state.trail_files = {p.resolve() for p in expand([str(p) for p in state.trail_paths])}
        except Exception as exc:  # noqa: BLE001 - BadInputError: e.g. a directory with no trails
            raise pytest.UsageError(f"trailblaze: {exc}") from None
    if file_path.resolve() not in state.trail_files:
        return None  # under trails/config, or outside the trail paths
    return TrailFile.from_parent(parent, path=file_path)


def pytest_sessionfinish(session: pytest.Session) -> None:
    state = session.config.stash.get(STATE, None)
    if state is None:
        return
    state.finish()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None and state.worker_lines:
        workeroutput["trailblaze"] = [f"{worker_id(session.config)}: {line}" for line in state.worker_lines]
    if workeroutput is None and session.config.pluginmanager.getplugin("dsession") is not None and state.trail_paths:
        try:
            state.merge_workers()
        except Exception as exc:  # noqa: BLE001 - a report must not turn a green run red
            state.worker_lines.append(f"could not merge the workers' results: {exc}")


@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem: str, report: pytest.TestReport, sched: Any) -> None:
    """xdist controller: a worker died (SIGKILL, OOM) running ``crashitem``; xdist starts a replacement and
    fails the test; the merged report lists the trail as an infrastructure error naming the worker."""
    state = report_config(report)
    if state is None or "::" not in crashitem:
        return
    import time

    from .report.bundle import TrailRecord
    from .runner.shards import trail_key

    path, _, name = crashitem.partition("::")
    title, _, label = name.rpartition(" [")
    node = getattr(report, "node", None)
    worker = str(getattr(getattr(node, "gateway", None), "id", "") or "") or None
    now = time.time()
    state.crashed.append(TrailRecord(
        key=trail_key(Path(state.config.rootpath) / path), title=title or name, trail_source=path,
        device=label.rstrip("]") if state.config.getoption("trailblaze_device") else None, outcome="Error",
        exit_code=2, message=f"worker {worker or '?'} crashed while running this trail (the process died: killed, "
                             "out of memory?); xdist replaced it and ran the other trails",
        failure_kind="WorkerCrashed", started_at=now, completed_at=now, duration_ms=0, worker=worker))


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
    lines = (getattr(node, "workeroutput", None) or {}).get("trailblaze")
    state = node.config.stash.get(STATE, None)
    if lines and state is not None:
        state.worker_lines.extend(lines)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    if state is None or not state.worker_lines:
        return
    terminalreporter.section("trailblaze")
    for line in state.worker_lines:
        terminalreporter.write_line(line)


CALL_REPORT = pytest.StashKey[pytest.TestReport]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Keep the test's own outcome, so ``trailblaze_session`` closes its session as failed when it failed."""
    report: pytest.TestReport = yield
    if report.when == "call":
        item.stash[CALL_REPORT] = report
    return report


# -- trails as items ----------------------------------------------------------------------------------
class TrailFile(pytest.File):
    """One trail file: one item per device (``--trailblaze-device``), or one for the trail's own driver."""

    def collect(self) -> Iterator[pytest.Item]:
        from .errors import TrailblazeError
        from .trail.parser import load_trail

        state = self.config.stash[STATE]
        runner = state.runner
        try:
            ws = runner.workspace_for(self.path)
            if ws.error is not None:
                raise ws.error
            trail = load_trail(self.path, codec=ws.codec)
        except TrailblazeError as exc:
            raise self.CollectError(f"{exc}") from None
        devices: list[Device | None] = [runner.parse_device(d) for d in runner.options.devices] or [None]
        markers = [marker_name(tag) for tag in trail.config.tags]
        for name in markers:
            self.config.addinivalue_line("markers", f"{name}: trail tag")
        for device in devices:
            label = device.spec if device is not None else _default_label(runner, trail, ws.config)
            item = TrailItem.from_parent(self, name=f"{trail.name} [{label}]", device=device, title=trail.name)
            item.add_marker(MARKER)
            for name in markers:
                item.add_marker(name)
            yield item


class TrailFailed(Exception):
    """A trail that did not pass; ``repr_failure`` shows its message like ``trailblaze run`` does."""

    def __init__(self, result: TrailResult, text: str) -> None:
        super().__init__(text)
        self.result = result
        self.text = text


class TrailItem(pytest.Item):
    def __init__(self, *, device: Device | None, title: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.device = device
        self.title = title

    def runtest(self) -> None:
        from .session import SessionOutcome

        from .reuse import active

        state = self.config.stash[STATE]
        runner = state.runner
        assert state.scope is not None
        with active(state.scope):  # the worker's browser, kept open between this worker's trails
            result = runner.run_trail(self.path, self.device)
        if result is None:  # not possible without --tags, which pytest expresses with -m
            raise pytest.skip.Exception("not selected", _use_item_location=True)
        result.root = result.root or runner.workspace_for(self.path).config.root
        state.record(result)
        _record_junit_names(self, result)
        runner.record_history(result, self.device)
        clean = state.runner.redactor  # the run's one redaction point: --secret values and session secrets
        properties = {k: clean(v) for k, v in _properties(result, worker_id(self.config)).items()}
        self.user_properties.extend(properties.items())  # pytest's --junitxml writes them as <property>
        self.add_report_section("call", "trailblaze", "\n".join(f"{k}: {v}" for k, v in properties.items()))
        from .report import allure_pytest

        if allure_pytest.active(self.config):
            for number, attempt in enumerate((*result.attempts, result), start=1):
                allure_pytest.add_trail(attempt, clean, attempt=f"attempt {number}" if result.attempts else None)
        if result.outcome is SessionOutcome.SKIPPED:
            # Reported at the trail file, not at this line.
            raise pytest.skip.Exception(result.skip_reason or "skipped", _use_item_location=True)
        if result.quarantined and (not result.passed or result.flaky and runner.options.fail_on_flaky):
            # Reported (the report, the summary, the history), but it does not fail the build.
            raise pytest.skip.Exception(f"quarantined, {result.status}: {clean(result.message or '')}",
                                        _use_item_location=True)
        if not result.passed or (result.flaky and runner.options.fail_on_flaky):
            raise TrailFailed(result, failure_text(result, clean))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, TrailFailed):
            return excinfo.value.text
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"trail: {self.name}"


def _record_junit_names(item: pytest.Item, result: TrailResult) -> None:
    """pytest's ``--junitxml`` names the test case the way ``trailblaze run --junit-xml`` does
    (``report.junit.junit_names``): a team that switches between them keeps its CI history."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # a pytest without the junitxml plugin's stash key: its own naming stays
        return
    xml = item.config.stash.get(xml_key, None)
    if xml is None:
        return
    from .report.junit import junit_names

    classname, name = junit_names(item.path, result.root, item.name)
    reporter = xml.node_reporter(item.nodeid)
    reporter.add_attribute("classname", classname)
    reporter.add_attribute("name", name)


def failure_text(result: TrailResult, redact: Callable[[str], str]) -> str:
    """The CLI's failure line (step, tool, file:line:col, selector, what the page had), then where the
    screenshot, trace and logs are, through ``redact`` (the run's ``Redactor``)."""
    from .report.junit import artifact_paths

    lines = [result.message or f"{result.title}: {result.outcome.value}"]
    if result.flaky:
        first = result.attempts[0]
        lines = [f"FLAKY: passed on attempt {result.attempt}; attempt 1: {first.message or first.outcome.value}"]
    for key, value in artifact_paths(result).items():
        lines.append(f"{key}: {value}")
    return str(redact("\n".join(lines)))


def _properties(result: TrailResult, worker: str | None) -> dict[str, str]:
    from .report.junit import artifact_paths

    props = {"trail": str(result.path), "trail_id": result.trail_id or "", "outcome": result.outcome.value,
             "status": result.status, "attempts": str(result.attempt),
             "driver": result.driver or "", "classifier": result.classifier or "",
             "session_id": result.session_id or ""}
    if worker:
        props["worker"] = worker
    props.update(artifact_paths(result))
    return {k: v for k, v in props.items() if v}



def marker_name(tag: str) -> str:
    """A trail tag as a marker usable in ``-m`` (``smoke``, ``needs_login`` for ``needs-login``)."""
    name = re.sub(r"\W", "_", tag.strip())
    return name if name and not name[0].isdigit() else f"tag_{name}"


def _default_label(runner: Runner, trail: Any, ws: Any) -> str:
    try:
        cls = runner.driver_for_trail(trail, ws)
    except Exception:  # noqa: BLE001 - the item fails with the runner's message when it runs
        return "default"
    return "-".join(cls.default_classifiers) or cls.platform


def _captured_progress() -> Any:
    """The runner's progress lines go to whatever ``sys.stdout`` is now, so pytest captures them per item
    (shown with a failure, or with ``-s``)."""
    from .runner.progress import Progress

    class CapturedProgress(Progress):
        def _print(self, text: str) -> None:
            print(text, file=sys.stdout, flush=True)

    return CapturedProgress(stream=sys.stdout, live=False)


# -- sessions inside tests ----------------------------------------------------------------------------
class ToolFailed(AssertionError):
    """A tool call a test made through ``trailblaze_session.call`` failed."""


class TrailblazeSession:
    """What the ``trailblaze_session`` fixture gives a test: a started session and short ways to use it."""

    def __init__(self, lifecycle: SessionLifecycle, runner: Runner) -> None:
        self.lifecycle = lifecycle
        self.runner = runner

    @property
    def session(self) -> Session:
        return self.lifecycle.session

    @property
    def memory(self) -> Any:
        return self.session.memory

    def call(self, tool: str, /, *, check: bool = True, **args: Any) -> ToolResult:
        """Run one tool through the session's dispatcher (the path a recording takes). A failed tool raises
        ``ToolFailed`` with the tool's message unless ``check=False``."""
        from .tools.base import ToolCall

        result = self.session.dispatcher.call(ToolCall(tool, args), self.session.context())
        if check and not result.success:
            raise ToolFailed(str(self.runner.redactor(f"{tool} failed: {result.message}")))
        return result

    def snapshot(self, **detail: bool) -> str:
        """The compact snapshot of the screen the agent would see (``detail``: bounds, offscreen, ...)."""
        driver = self.session.driver
        if driver is None:
            raise RuntimeError("this session has no driver")
        shown = driver.snapshot(detail=frozenset(k for k, on in detail.items() if on))
        return str(self.runner.redactor(shown))

    def run_trail(self, path: str | os.PathLike[str]) -> TrailResult:
        """Run a trail file in its own session (same options and shared browser); fails the test if the
        trail does not pass."""
        result = self.runner.run_trail(Path(path))
        assert result is not None
        if not result.passed and result.skip_reason is None:
            raise ToolFailed(failure_text(result, self.runner.redactor))
        return result


@pytest.fixture
def trailblaze_session(request: pytest.FixtureRequest) -> Iterator[TrailblazeSession]:
    """A session opened with the one session lifecycle (driver started, plugins told), closed after the test.

    Configure it with ``@pytest.mark.trailblaze(workspace=..., driver=..., device=..., target=...)``;
    without a workspace, the one holding the test file is used. The driver comes from the marker,
    ``--trailblaze-driver``, or the workspace's ``defaults.driver``."""
    from .session import SessionOutcome

    state = request.config.stash[STATE]
    runner = state.runner
    marker = request.node.get_closest_marker(MARKER)
    kwargs: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    workspace = kwargs.get("workspace")
    if workspace is None:
        workspace = Path(str(request.node.path)).parent
    elif not Path(workspace).is_absolute():
        workspace = Path(str(request.config.rootpath)) / workspace
    from .reuse import reuse_scope

    # A browser of its own, closed after the test (trail items share the worker's instead): a test
    # suite's other tests never find a browser left running by this one.
    with reuse_scope(), runner.open(workspace=Path(workspace), driver=kwargs.get("driver"),
                                    device=kwargs.get("device"), target=kwargs.get("target")) as lifecycle:
        yield TrailblazeSession(lifecycle, runner)
        report = request.node.stash.get(CALL_REPORT, None)
        if report is not None and report.failed:
            lifecycle.outcome = SessionOutcome.FAILED
    request.node.user_properties.append(("trailblaze_log_dir", str(lifecycle.session.log_dir)))


__all__ = ["ToolFailed", "TrailFailed", "TrailFile", "TrailItem", "TrailblazeSession", "failure_text",
           "trailblaze_session", "worker_id"]
