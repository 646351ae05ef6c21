"""A run's outputs: the JSON summary, HTML report, JUnit XML, Allure results, result bundle, the
results store and each session's ``recording.trail.yaml``; written once, whatever happened."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BadInputError
from ..run_results import RunResult, TrailResult
from ..session import Session
from . import interrupt
from .lifecycle import Device, SessionFactory

if TYPE_CHECKING:
    from ..report.bundle import BundleAppender, BundleContext
    from .history import RunHistory
    from .progress import Progress


class RunOutputs(SessionFactory):
    """The ``Runner``'s outputs (``runner/run.py`` sets the attributes declared here)."""

    progress: Progress
    history: RunHistory | None
    interrupted: str | None
    _bundle_appender: BundleAppender | None = None
    """Set by the first ``append_to_bundle``."""

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

    def record_history(self, trail: TrailResult, device: "Device | None" = None) -> None:
        """Append a finished trail (every attempt) to the results store, unless ``--no-history``; the
        device it ran on (``-d``) is stored as its endpoint."""
        if self.history is not None:
            self.history.record(trail, self.workspace_for(trail.path).config,
                                endpoint=device.spec if device is not None else None)

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
        self._write_bundle(result)

    def _write_bundle(self, result: RunResult) -> None:
        """The run's output directory as a result bundle, for ``trailblaze merge-reports`` (and ``--durations``)."""
        from ..report.bundle import write_bundle

        options = self.options
        context = self.bundle_context()
        junit = options.junit_xml if options.junit_xml is not None and options.junit_xml.exists() else None
        write_bundle(result, self.output_dir, context,
                     {"summary": result.summary_path, "report": result.report_path, "junit": junit})

    def append_to_bundle(self, trail: TrailResult) -> str | None:
        """Add a finished trail to the output directory's bundle at once (an xdist worker does, so a
        worker killed later still leaves it for the controller's merge); one append, however many
        trails came before. Returns why it could not be written (the bundle written at the end of the
        run tries again), else None."""
        from ..files import OutputWriteError
        from ..report.bundle import BundleAppender

        if self._bundle_appender is None:
            self._bundle_appender = BundleAppender(self.output_dir, self.bundle_context(), self.redactor)
        try:
            self._bundle_appender.append(trail)
        except (OSError, OutputWriteError) as exc:
            return str(exc)
        return None

    def bundle_context(self) -> "BundleContext":
        from ..report.bundle import BundleContext, new_run_id

        options = self.options
        if options.run_id is None:
            options.run_id = new_run_id()
        return BundleContext(run_id=options.run_id, shard=options.shard, worker=options.worker,
                             devices=tuple(options.devices), plugins={p.name: p.version for p in self.host.plugins()})

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
