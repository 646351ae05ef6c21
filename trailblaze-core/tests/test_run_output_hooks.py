"""A run's outputs are plugins: the runner reaches every writer through the host's hooks
(``trailblaze_check_run_outputs``, ``trailblaze_write_run_outputs``, ``trailblaze_run_durations``), so a
third party's output format sits beside the core's JUnit, Allure, HTML and bundle writers
(``builtin.outputs``), with the same rules: refused before any trail runs, each failed file one line,
the last one ends the run. Real runs of a host-driver trail, a real plugin registered on the host."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from trailblaze.errors import BadInputError, ExitCode, PluginHookError
from trailblaze.report.bundle import read_bundle
from trailblaze.files import OutputWriteError, write_atomic
from trailblaze.contract.markers import hookimpl
from trailblaze.results.output_request import OutputRequest
from trailblaze.results.model import RunResult, trail_key
from trailblaze.runner.options import RunOptions
from trailblaze.runner.progress import Progress, QuietProgress
from trailblaze.runner.run import Runner
from trailblaze.testing import new_host, register_plugin

TRAIL = """\
trail:
  - step: leave a mark
    recording:
      host:
        - exec: {argv: [touch, "MARK"]}
"""


class TallyWriter:
    """A third party's output format: ``reports/tally.txt``, one line per trail."""

    def __init__(self, *, fail: bool = False) -> None:
        self.fail = fail

    @hookimpl
    def trailblaze_check_run_outputs(self, request: OutputRequest) -> None:
        if request.output_dir.name == "refused":
            raise BadInputError(f"--tally cannot write below {request.output_dir}")

    @hookimpl
    def trailblaze_write_run_outputs(self, result: RunResult, request: OutputRequest) -> list[OutputWriteError] | None:
        if self.fail:
            return [OutputWriteError("tally.txt: No space left on device")]
        lines = [f"{t.outcome.value} {t.path.name}" for t in result.trails]
        write_atomic(request.output_dir / "reports" / "tally.txt", "\n".join(lines) + "\n")
        return None

    @hookimpl
    def trailblaze_run_durations(self, source: Path) -> dict[str, float] | None:
        if source.suffix != ".tally":
            return None
        return {line.split()[0]: float(line.split()[1]) for line in source.read_text().splitlines()}


def _trail(tmp_path: Path, name: str = "mark") -> Path:
    path = tmp_path / f"{name}.trail.yaml"
    path.write_text(TRAIL.replace("MARK", str(tmp_path / f"{name}.ran")))
    return path


def test_a_plain_run_writes_the_core_outputs_and_a_plugins_format_through_the_host(tmp_path: Path) -> None:
    trail, out, junit = _trail(tmp_path), tmp_path / "out", tmp_path / "junit" / "junit.xml"
    host = new_host()
    with register_plugin(host, TallyWriter(), "tally"):
        result = Runner(RunOptions(output_dir=out, junit_xml=junit), host=host, progress=QuietProgress()).run([str(trail)])
    assert result.exit_code == ExitCode.SUCCESS and (tmp_path / "mark.ran").exists()
    assert (out / "reports" / "tally.txt").read_text() == "Succeeded mark.trail.yaml\n"
    assert result.summary_path and result.summary_path.exists()
    assert result.report_path and result.report_path.parent == out / "reports"
    assert junit.exists()
    manifest = json.loads((out / "reports" / "bundle.json").read_text())
    # The JUnit file was asked for outside the output directory: a bundle names only files inside itself
    # (docs/scale-out.md, "A bundle is untrusted input").
    assert set(manifest["files"]) == {"results", "summary", "report"}
    assert "tally" in manifest["plugins"]  # the installed plugins, as before


def test_a_writer_that_cannot_write_ends_the_run_and_the_others_still_write(tmp_path: Path) -> None:
    trail, out, junit = _trail(tmp_path), tmp_path / "out", tmp_path / "junit.xml"
    host = new_host()
    with register_plugin(host, TallyWriter(fail=True), "tally"), pytest.raises(OutputWriteError, match="tally.txt"):
        Runner(RunOptions(output_dir=out, junit_xml=junit), host=host, progress=QuietProgress()).run([str(trail)])
    assert junit.exists() and list((out / "reports").glob("trailblaze_report_*.html"))
    assert (out / "reports" / "bundle.json").exists()


class RaisingWriter:
    @hookimpl
    def trailblaze_write_run_outputs(self, result: RunResult, request: OutputRequest) -> None:
        raise RuntimeError("the raising format is broken")


def test_a_writer_that_raises_is_its_plugins_failure_and_every_other_output_is_written(tmp_path: Path) -> None:
    trail, out, junit = _trail(tmp_path), tmp_path / "out", tmp_path / "junit.xml"
    host = new_host()
    with register_plugin(host, TallyWriter(), "tally"), register_plugin(host, RaisingWriter(), "raising"), \
            pytest.raises(PluginHookError) as failed:
        Runner(RunOptions(output_dir=out, junit_xml=junit), host=host, progress=QuietProgress()).run([str(trail)])
    assert failed.value.plugin == "raising" and failed.value.exit_code == ExitCode.INFRASTRUCTURE
    assert str(failed.value).startswith("plugin 'raising' failed in trailblaze_write_run_outputs: RuntimeError: "
                                        "the raising format is broken")
    assert (out / "reports" / "tally.txt").read_text() == "Succeeded mark.trail.yaml\n"
    assert junit.exists() and list((out / "reports").glob("trailblaze_report_*.html"))
    assert read_bundle(out).manifest.complete


def test_an_xdist_workers_part_of_a_run_writes_the_core_outputs_only(tmp_path: Path) -> None:
    """A worker's results are a part of the run: the plugins' formats are written by the controller."""
    trail, out = _trail(tmp_path), tmp_path / "out"
    host = new_host()
    with register_plugin(host, TallyWriter(), "tally"):
        Runner(RunOptions(output_dir=out, worker="gw0"), host=host, progress=QuietProgress()).run([str(trail)])
    assert not (out / "reports" / "tally.txt").exists()
    assert read_bundle(out).manifest.worker == "gw0" and len(read_bundle(out).records) == 1


def test_a_writer_refuses_its_output_before_any_trail_runs(tmp_path: Path) -> None:
    trail = _trail(tmp_path)
    host = new_host()
    with register_plugin(host, TallyWriter(), "tally"), pytest.raises(BadInputError, match="--tally"):
        Runner(RunOptions(output_dir=tmp_path / "refused"), host=host, progress=QuietProgress()).run([str(trail)])
    assert not (tmp_path / "mark.ran").exists()


def test_durations_come_from_the_first_plugin_that_reads_the_source(tmp_path: Path) -> None:
    trails = [_trail(tmp_path, name) for name in ("a", "b", "c")]
    source = tmp_path / "last.tally"
    source.write_text("".join(f"{trail_key(trail)} 1.0\n" for trail in trails))
    host = new_host()
    assert host.run_durations(tmp_path / "no-run-yet") == {}  # the core's reader: nothing there yet
    with register_plugin(host, TallyWriter(), "tally"):
        assert set(host.run_durations(source)) == {trail_key(trail) for trail in trails}
        lines = io.StringIO()
        options = RunOptions(output_dir=tmp_path / "out", shard="1/2", durations=source, report=False)
        Runner(options, host=host, progress=Progress(stream=lines, live=False)).run([str(t) for t in trails])
    assert f"(by the durations of {source})" in lines.getvalue()
