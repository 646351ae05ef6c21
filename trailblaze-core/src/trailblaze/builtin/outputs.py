"""The core's run outputs as a plugin: JUnit XML, Allure results, the HTML report, the Markdown summary and the
result bundle.

The runner asks the host for them (``trailblaze_check_run_outputs``, ``trailblaze_write_run_outputs``,
``trailblaze_run_durations``) instead of importing ``report/``, so the report writers stand above the
runner in the import graph and a new output format is one more plugin beside this one. The writers are
imported inside each hook: loading the plugin host must not pull in the HTML renderer.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contract.markers import hookimpl
from ..errors import BadInputError
from ..files import OutputWriteError, check_writable_dir, write_new

if TYPE_CHECKING:
    from ..report.bundle import BundleAppender
    from ..results.output_request import OutputRequest
    from ..results.model import RunResult, TrailResult

_APPENDERS: dict[tuple[str, str], BundleAppender] = {}
"""Each running run's bundle (output directory, run id), appended to as its trails end."""
_APPENDING = threading.Lock()
"""One append at a time: the trails of several ``-d`` devices end on their own threads."""


@hookimpl(trylast=True)
def trailblaze_check_run_outputs(request: OutputRequest) -> None:
    """The paths and prerequisites of the core's outputs; then the result bundle an earlier run left in
    the output directory is retired (its manifest and records removed), so the directory never holds a
    bundle of two runs: a run killed before it writes its own leaves no bundle, not the previous run's
    passes for ``merge-reports`` to report."""
    junit = request.junit_xml
    if junit is not None:
        if Path(junit).is_dir():
            raise BadInputError(f"--junit-xml {junit} is a directory", hint="give --junit-xml a file name")
        check_writable_dir(Path(junit).parent, "--junit-xml's folder")
    if request.alluredir is not None:
        from ..report.allure import require_allure

        require_allure()
    from ..report.bundle import retire_bundle

    retire_bundle(request.output_dir)


@hookimpl(trylast=True)
def trailblaze_write_run_outputs(result: RunResult, request: OutputRequest) -> list[OutputWriteError]:
    """JUnit, Allure, HTML in that order, each failed file kept and the others still written; the bundle
    last, and only when they all were, the runner's JSON summary included (it lists them)."""
    with _APPENDING:  # the run is over: its bundle is written whole below
        _APPENDERS.pop((str(request.output_dir), request.context.run_id), None)
    failed: list[OutputWriteError] = []
    if request.junit_xml is not None:
        from ..report.junit import write_junit_xml

        try:
            write_junit_xml(result, request.junit_xml)
        except OutputWriteError as exc:
            failed.append(exc)
    if request.alluredir is not None:
        from ..report.allure import write_allure_results

        write_allure_results(result, request.alluredir)
    if request.html_report:
        from ..report.html import render_report

        reports = request.output_dir / "reports"
        try:
            result.report_path = write_new(reports, "trailblaze_report", ".html", render_report(result, base=reports))
        except OutputWriteError as exc:
            failed.append(exc)
    if request.markdown:
        from ..report.markdown import render_markdown

        try:
            result.markdown_path = write_new(request.output_dir / "reports", "trailblaze_summary", ".md",
                                             render_markdown(result))
        except OutputWriteError as exc:
            failed.append(exc)
    if not failed and result.summary_path is not None:  # no summary: the runner could not write it
        _write_bundle(result, request)
    return failed


@hookimpl(trylast=True)
def trailblaze_trail_finished(trail: TrailResult, request: OutputRequest, redact: Any) -> None:
    """The trail's attempts appended to the run's bundle at once (``BundleAppender``): a run killed
    later leaves every trail it finished, in a bundle marked incomplete; the bundle is written whole
    at the end (``_write_bundle``). A line that cannot be appended now is written then."""
    from ..report.bundle import BundleAppender

    with _APPENDING:
        key = (str(request.output_dir), request.context.run_id)
        appender = _APPENDERS.get(key)
        if appender is None:
            appender = _APPENDERS[key] = BundleAppender(request.output_dir, request.context, redact)
        try:
            appender.append(trail)
        except (OSError, OutputWriteError):
            pass


def _write_bundle(result: RunResult, request: OutputRequest) -> None:
    """The run's output directory as a result bundle, for ``trailblaze merge-reports`` and ``--durations``."""
    from ..report.bundle import write_bundle

    junit = request.junit_xml if request.junit_xml is not None and request.junit_xml.exists() else None
    write_bundle(result, request.output_dir, request.context,
                 {"summary": result.summary_path, "report": result.report_path, "junit": junit})


@hookimpl(trylast=True)
def trailblaze_run_durations(source: Path) -> dict[str, float]:
    from ..report.bundle import load_durations

    return load_durations(source, missing_ok=True)
