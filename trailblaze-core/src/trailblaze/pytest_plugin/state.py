"""One pytest process's Trailblaze state (a worker's, under xdist): its runner, reuse scope and results.

Each worker process has one ``Runner`` and one reuse scope: one browser per worker, a fresh browser
context per trail, its own output directory (``<output>/<worker id>``), and at the end its own JSON
summary, HTML report and result bundle, which the controller merges (``workers.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ..report.bundle import TrailRecord
    from ..reuse import ReuseScope
    from ..results.model import RunResult, TrailResult
    from ..runner.options import RunOptions
    from ..runner.run import Runner

GROUP = "trailblaze"
MARKER = "trailblaze"

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
        self.unreadable: list[TrailRecord] = []
        """xdist controller: trail files a worker could not collect (a parse error: bad input, as in a plain run)."""
        self.collected: dict[str, None] = {}
        """xdist controller: the trail items the workers collected, in order (node ids)."""
        self.reported: set[str] = set()
        """xdist controller: the items a worker reported on (ran, or crashed running)."""
        self.interrupted: str | None = None
        """The signal that ended the run early (``SIGINT`` for Ctrl-C), if one did."""
        self.output_errors: list[str] = []
        """Outputs this process could not write (a writer that raised, a file not written; the controller
        adds its workers'): each is one ``✗`` line in the terminal summary, and the session exits 2
        (``workers.exit_status``), as ``trailblaze run`` does."""

    def output_failed(self, message: str) -> None:
        """An output not written: its line in the terminal summary (naming the plugin when a plugin's
        writer failed), and exit 2 at the end of the session."""
        self.output_errors.append(message)
        self.worker_lines.append(f"✗ {message}")

    @property
    def runner(self) -> "Runner":
        if self._runner is None:
            from ..reuse import ReuseScope
            from ..runner.run import Runner

            self._runner = Runner(self.options(), progress=_captured_progress())
            self.scope = ReuseScope()
        return self._runner

    def options(self) -> RunOptions:
        from ..commands.session_options import pytest_session_values
        from ..errors import TrailblazeError
        from ..runner.options import RunOptions

        try:
            values = pytest_session_values(self.config.getoption)
        except TrailblazeError as exc:
            raise pytest.UsageError(f"trailblaze: {exc}") from None
        out_dir = self.output_root(values["output_dir"])
        worker = worker_id(self.config)
        if worker is not None:
            out_dir = out_dir / worker  # workers never write into each other's directories
            values["junit_xml"] = None  # the controller writes the one JUnit file, from the merged bundles
        from .outputs import output_values

        values.update(output_dir=out_dir, headed=values["headed"] or bool(self.config.getoption("headed", False)),
                      worker=worker, run_id=run_id(self.config), output_options=output_values(self.config))
        return RunOptions(**values)

    def trail_path(self, path: Path) -> Path:
        """The path a trail runs under: as pytest found it, or relative to the directory the run started in
        with ``--trailblaze-relative-paths`` (``trailblaze run -n``), so its console lines, messages and
        summary read as a plain ``trailblaze run``'s."""
        if not self.config.getoption("trailblaze_relative_paths", False):
            return path
        try:
            return path.relative_to(Path.cwd())
        except ValueError:
            return path

    def output_root(self, given: Path | None = None) -> Path:
        """The run's output directory (a worker writes below it, in ``<worker id>/``)."""
        output = given or self.config.getoption("trailblaze_output_dir") or \
            self.config.getini("trailblaze_output_dir") or None
        return Path(output) if output else Path.cwd() / "logs"

    def record(self, result: TrailResult) -> None:
        """Keep a finished trail (the runner's ``record_history`` appends it to this process's bundle at
        once, so a worker killed later still leaves every trail it finished for the controller's merge)."""
        self.results.append(result)

    def finish(self) -> None:
        """Write this process's summary and report, then close the shared browser (and what else the
        scope holds); called once, at the end of the session."""
        if self._runner is None:
            return
        from ..results.model import RunResult

        runner, self._runner = self._runner, None
        if self.results:
            run = RunResult(trails=list(self.results), output_dir=runner.output_dir, redactor=runner.redactor,
                            fail_on_flaky=runner.options.fail_on_flaky)
            try:
                runner.write_outputs(run)
            except Exception as exc:  # noqa: BLE001 - every other output was written: one line, exit 2
                self.output_failed(str(exc))
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
        from ..results.output_request import new_run_id

        config.stash[RUN_ID] = new_run_id()
    return config.stash[RUN_ID]


RUN_ID = pytest.StashKey[str]()


def _captured_progress() -> Any:
    """The runner's progress lines go to whatever ``sys.stdout`` is now, so pytest captures them per item
    (shown with a failure, or with ``-s``; ``trailblaze run -n`` prints them from each trail's report)."""
    from ..runner.progress import Progress
    from ..untrusted import MAX_OUTPUT_CHARS, terminal_text

    class CapturedProgress(Progress):
        def _print(self, text: str) -> None:
            print(terminal_text(self.redact(text), limit=MAX_OUTPUT_CHARS), file=sys.stdout, flush=True)

    return CapturedProgress(stream=sys.stdout, live=False)
