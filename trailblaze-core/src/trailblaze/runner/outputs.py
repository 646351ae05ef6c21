"""A run's outputs, written once, whatever happened: the JSON summary, the results store and each
session's ``recording.trail.yaml`` here; the HTML report, JUnit XML, Allure results and result bundle
through the host (``trailblaze_write_run_outputs``, answered by ``builtin/outputs.py``), so the runner
never imports ``report/``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..results.output_request import BundleContext, OutputRequest, new_run_id
from ..results.model import RunResult, TrailResult
from ..session import Session
from . import interrupt
from .lifecycle import Device, SessionFactory

if TYPE_CHECKING:
    from ..config import WorkspaceConfig
    from .history import RunHistory
    from .progress import Progress

_UNREAD = object()


class RunOutputs:
    """The outputs of one run of ``factory``'s options, its lines told to ``progress``. It holds the
    results store the run appends to (``--results-db``, ``--no-history``) as ``history``."""

    def __init__(self, factory: SessionFactory, progress: Progress) -> None:
        from .history import RunHistory

        self.factory = factory
        self.options = factory.options
        self.progress = progress
        endpoint = self.options.driver_options.get("server_url") or self.options.driver_options.get("ws_endpoint")
        self.history: RunHistory | None = RunHistory(
            self.options.results_db, fallback_dir=factory.output_dir, redact=factory.redactor,
            run_id=self.run_id, shard=self.options.shard, endpoint=str(endpoint) if endpoint else None,
            warn=progress.note) if self.options.history else None
        self._workspace_config: object = _UNREAD

    def check_output_paths(self) -> None:
        """Where the outputs go is checked before any device starts: a run whose report cannot be
        written must not spend minutes and then fail (or pass, then exit 2). The writers check their
        own paths and prerequisites (``trailblaze_check_run_outputs``)."""
        from ..files import check_writable_dir

        check_writable_dir(self.factory.output_dir, "--output-dir")
        self.factory.host.check_run_outputs(self.output_request())

    def write_outputs_once(self, result: RunResult, interrupted: str | None) -> None:
        """The single place a run's outputs are written; ``interrupted`` is the signal that stopped the
        run, if any (``result.interrupted`` says it, or one noted since). A signal arriving meanwhile is
        only noted, so no file is left half-written."""
        with interrupt.deferred():
            late = interrupt.pending()  # noted while a device thread was cleaning up, after its last trail
            result.interrupted = interrupted if interrupted is not None else late
            try:
                self.write_outputs(result)
            finally:  # an output that failed is one line; the run's closing lines are still shown
                self.progress.run_finished(result)

    def record_history(self, trail: TrailResult, device: "Device | None" = None) -> None:
        """Hand a finished trail (every attempt) to the outputs that keep up as the run goes (the result
        bundle: ``trailblaze_trail_finished``), then append it to the results store, unless
        ``--no-history``; the device it ran on (``-d``) is stored as its endpoint."""
        self.factory.host.trail_finished(trail, self.output_request(), self.factory.redactor)
        if self.history is not None:
            self.history.record(trail, self.factory.workspace_for(trail.path).config,
                                endpoint=device.spec if device is not None else None)

    def write_outputs(self, result: RunResult) -> None:
        """The JSON summary, then whatever the output writers write (the HTML report, JUnit XML, Allure
        results, the result bundle, the plugins' formats: ``trailblaze_write_run_outputs``); the pytest
        plugin calls it per process. An xdist worker's run is a part of a run: only the core writes there
        (the worker's bundle); the plugins' formats are written once, by the controller, from every result.

        Names are unique per run (``files.write_new``), so runs sharing an output directory never
        overwrite each other, and every file appears whole or not at all. A file that cannot be
        written, or a writer that raised, is one line each (naming its plugin) and the others are still
        written; the last such error is raised at the end (exit 2) instead of being printed."""
        if not result.trails:
            return
        from ..errors import InfrastructureError
        from ..files import OutputWriteError, write_new
        from ..logs import dumps
        from ..untrusted import output_value

        failed: list[InfrastructureError] = []
        summary = result.summary()
        summary["metadata"]["run_id"] = self.run_id()  # as the merged summary says it, the history keeps it
        try:
            result.summary_path = write_new(self.factory.output_dir / "reports", "trailblaze_test_results", ".json",
                                            dumps(output_value(summary)))
        except OutputWriteError as exc:
            failed.append(exc)
        if self.history is not None:
            self.history.attach(result)
        failed += self.factory.host.write_run_outputs(result, self.output_request(),
                                                      writers="core" if self.options.worker else "all")
        for error in failed[:-1]:
            self.progress.note(f"✗ {error}")
        if failed:
            raise failed[-1]  # printed once, by whoever handles it (the CLI: one line, exit 2)

    def run_id(self) -> str:
        """The run's id, fixed by its first use: every output (summary, bundle, history) repeats it."""
        if self.options.run_id is None:
            self.options.run_id = new_run_id()
        return self.options.run_id

    def output_request(self) -> OutputRequest:
        """The outputs these options ask for."""
        options = self.options
        context = BundleContext(run_id=self.run_id(), shard=options.shard, worker=options.worker,
                                devices=tuple(options.devices),
                                plugins={p.name: p.version for p in self.factory.host.plugins()})
        return OutputRequest(self.factory.output_dir, context, junit_xml=options.junit_xml,
                             alluredir=options.alluredir, html_report=options.report,
                             markdown=options.markdown, options=options.output_options,
                             config=self._config())

    def _config(self) -> "WorkspaceConfig | None":
        """The workspace config of the current directory, for the writers' ``request.section(...)``;
        read once per run (``output_request`` is asked once per trail)."""
        if self._workspace_config is _UNREAD:
            from ..config import current_workspace_config

            self._workspace_config = current_workspace_config(self.factory.host)
        return self._workspace_config  # type: ignore[return-value]

    def write_recording_log(self, session: Session, result: TrailResult) -> None:
        """``logs/<session>/recording.trail.yaml``: the trail as it ran, recordings generated from the logs."""
        if not session.log.enabled or session.trail is None or not result.steps:
            return
        try:
            from ..agent.recording import recording_trail_yaml

            text = recording_trail_yaml(session.trail, session.log.entries, result.classifier or "default",
                                        session.codec)
            # Redacted like the rest of the log: the trail's own config (args defaults) may hold a secret.
            session.log.write_file("recording.trail.yaml", self.factory.redactor(text).encode("utf-8"))
        except Exception as exc:  # noqa: BLE001 - a log artifact never fails the run
            self.progress.note(f"  ! could not write recording.trail.yaml: {exc}")

    def close(self) -> None:
        """The run is over: the results store is closed."""
        if self.history is not None:
            self.history.close()
