"""Outputs on a hostile day (issue 22, MEDIUM 6, 7, 8 and the output LOW items), with real processes.

- 6: control characters (an ANSI-coloured error), ``]]>``, lone surrogates, invalid UTF-8 and a 1 MB
  string leave the JUnit XML (parsed with junitparser), the JSON summary and the HTML report readable.
- 7: on a real, full tmpfs a failed write keeps the old file and says so in one line; a full disk at
  the end of a run leaves no 0-byte summary; appending recorded steps is all-or-nothing.
- 8: six runs into one output directory at once leave six summaries and six reports.
- LOW: an ``--output-dir`` that is a file, ``--junit-xml`` below a file, a read-only working directory,
  an ASCII-only terminal, a multi-line failure printed once.
"""

from __future__ import annotations

import html.parser
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from junitparser import Failure, JUnitXml
from trailblaze.errors import ExitCode
from trailblaze.files import OutputWriteError, write_atomic
from trailblaze.runner.options import RunOptions
from trailblaze.runner.progress import QuietProgress
from trailblaze.runner.results import RunResult, TrailResult
from trailblaze.runner.run import Runner
from trailblaze.session import SessionOutcome
from trailblaze.trail.parser import load_trail
from trailblaze.trail.saveback import NewStep, append_steps

sys.path.insert(0, str(Path(__file__).parent))
from full_disk import fill, tmpfs

OK = """\
trail:
  - step: wait a moment
    recording:
      host:
        - wait: {timeToWaitInSeconds: 0}
"""

# An ANSI-coloured error with other C0 characters and a CDATA end, then a one-megabyte line.
HOSTILE = """\
trail:
  - step: run the noisy check
    recording:
      host:
        - exec:
            argv: [sh, -c, "printf '\\\\033[31mboom\\\\033[0m ]]> <&> \\\\001\\\\002 \\\\033]0;title\\\\007end\\\\n'; python3 -c 'print(\\"x\\" * 1000000)'; exit 3"]
"""


def trailblaze(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real console entry in a subprocess."""
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=180, check=False)


class _Html(html.parser.HTMLParser):
    def error(self, message: str) -> None:  # pragma: no cover - older parsers only
        raise AssertionError(message)


def assert_outputs_readable(out: Path, junit: Path) -> tuple[dict[str, object], str, JUnitXml]:
    """Every output parses: JUnit with junitparser and ElementTree, JSON, HTML as UTF-8 without raw controls."""
    raw = junit.read_bytes()
    assert b"\x1b" not in raw and b"\x01" not in raw
    ET.fromstring(raw)  # well-formed XML, or this raises
    xml = JUnitXml.fromfile(str(junit))
    [summary_path] = (out / "reports").glob("trailblaze_test_results_*.json")
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    [report_path] = (out / "reports").glob("trailblaze_report_*.html")
    page = report_path.read_bytes().decode("utf-8")  # strict: a surrogate would have made it fail
    assert "\x1b" not in page and "\x01" not in page
    _Html().feed(page)
    return summary, page, xml


def test_an_ansi_coloured_megabyte_failure_keeps_junit_summary_and_report_well_formed(tmp_path: Path) -> None:
    (tmp_path / "noisy.trail.yaml").write_text(HOSTILE)
    out, junit = tmp_path / "out", tmp_path / "junit.xml"
    run = trailblaze("run", "noisy.trail.yaml", "--output-dir", str(out), "--junit-xml", str(junit), cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    summary, page, xml = assert_outputs_readable(out, junit)
    [case] = [c for suite in xml for c in suite]
    failure = case.result[0]
    assert isinstance(failure, Failure)
    assert "boom" in (failure.text or "") and "]]>" in (failure.text or "") and "\\x01" in (failure.text or "")
    reason = str(summary["results"][0]["failure_reason"])  # type: ignore[index]
    assert "boom" in reason and "[truncated:" in reason and len(reason) < 100_000  # capped, with a marker
    assert "boom" in page and "]]&gt;" in page


def test_surrogates_and_invalid_utf8_reach_no_output_as_such(tmp_path: Path) -> None:
    nasty = "page said \ud83d and \udcff (invalid UTF-8 decoded with surrogateescape) \x00\x1b[1m ]]> " + "y" * 1_000_000
    trail = TrailResult(tmp_path / "a" / "t.trail.yaml", "title \udc80 \x07", SessionOutcome.FAILED,
                        ExitCode.TRAIL_FAILED, message=nasty, failure_kind="ToolFailure", completed_at=1.0,
                        started_at=0.5, root=tmp_path)
    out, junit = tmp_path / "out", tmp_path / "j" / "junit.xml"
    runner = Runner(RunOptions(output_dir=out, junit_xml=junit), progress=QuietProgress())
    result = RunResult(trails=[trail], output_dir=out, redactor=runner.redactor)
    runner.write_outputs(result)
    summary, page, xml = assert_outputs_readable(out, junit)
    [case] = [c for suite in xml for c in suite]
    assert "\ufffd" in case.name and "\\x07" in case.name
    assert case.classname == "a.t.trail.yaml"
    assert "\ufffd" in str(summary["results"][0]["failure_reason"])  # type: ignore[index]
    assert "\ufffd" in page


# -- a real full disk --------------------------------------------------------------------------------
@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    with tmpfs(tmp_path / "disk") as where:
        yield where


def test_a_failed_write_keeps_the_old_file_and_says_so_in_one_line(disk: Path) -> None:
    target = disk / "report.html"
    write_atomic(target, "old report")
    fill(disk)
    with pytest.raises(OutputWriteError) as caught:
        write_atomic(target, "x" * 200_000)
    assert target.read_text() == "old report"
    assert str(caught.value).count("\n") == 0
    assert "No space left on device" in str(caught.value) and "previous file is unchanged" in str(caught.value)
    assert sorted(p.name for p in disk.iterdir()) == ["filler", "report.html"]  # no temporary file left


def test_appending_recorded_steps_on_a_full_disk_is_all_or_nothing(disk: Path) -> None:
    trail = disk / "saved.trail.yaml"
    trail.write_text(OK)
    from trailblaze.tools.base import ToolCall

    steps = [NewStep(f"step {i} " + "z" * 40_000, "step", "host", [ToolCall("wait", {"timeToWaitInSeconds": 0})])
             for i in range(2)]
    filler = fill(disk, leave=50_000)  # room for one step, not for two
    with pytest.raises(OutputWriteError):
        append_steps(trail, steps)
    assert trail.read_text() == OK
    filler.unlink()
    append_steps(trail, steps)  # the retry (what `trail SAVE` does again) writes both, once
    assert len(load_trail(trail).steps) == 3


def test_a_full_disk_at_the_end_of_a_run_leaves_no_empty_summary(disk: Path, tmp_path: Path) -> None:
    (tmp_path / "ok.trail.yaml").write_text(OK)
    out = disk / "out"
    (out / "reports").mkdir(parents=True)
    fill(disk)
    run = trailblaze("run", "ok.trail.yaml", "--output-dir", str(out), "--no-logging", cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "internal error" not in run.stderr and "Traceback" not in run.stderr
    errors = [line for line in run.stderr.splitlines() if "No space left on device" in line]
    assert errors and all(line.startswith("trailblaze: error: could not write") for line in errors), run.stderr
    left = [p.name for p in (out / "reports").iterdir() if p.name != "results.db"]  # the run history's own store
    assert left == []  # neither a 0-byte summary or report nor a temporary file


# -- concurrent runs ----------------------------------------------------------------------------------
def test_six_concurrent_runs_into_one_directory_keep_six_summaries_and_reports(tmp_path: Path) -> None:
    (tmp_path / "ok.trail.yaml").write_text(OK)
    out = tmp_path / "shared"
    with ThreadPoolExecutor(6) as pool:
        runs = list(pool.map(lambda _: trailblaze("run", "ok.trail.yaml", "--output-dir", str(out), cwd=tmp_path),
                             range(6)))
    assert [r.returncode for r in runs] == [0] * 6, [r.stderr for r in runs]
    printed = [line.split(": ", 1)[1] for r in runs for line in r.stdout.splitlines()
               if line.startswith(("Summary: ", "Report: "))]
    assert len(printed) == len(set(printed)) == 12
    assert len(list((out / "reports").glob("trailblaze_test_results_*.json"))) == 6
    assert len(list((out / "reports").glob("trailblaze_report_*.html"))) == 6
    assert not list((out / "reports").glob(".*"))  # no temporary files left behind


# -- one-line messages instead of internal errors ------------------------------------------------------
def test_bad_output_paths_are_one_line_before_anything_runs(tmp_path: Path) -> None:
    (tmp_path / "ok.trail.yaml").write_text(OK)
    (tmp_path / "afile").write_text("")
    as_file = trailblaze("run", "ok.trail.yaml", "--output-dir", "afile", cwd=tmp_path)
    assert as_file.returncode == 3 and "--output-dir" in as_file.stderr and "is a file" in as_file.stderr
    below = trailblaze("run", "ok.trail.yaml", "--output-dir", "out", "--junit-xml", "afile/j.xml", cwd=tmp_path)
    assert below.returncode == 3 and "--junit-xml" in below.stderr and "is a file" in below.stderr
    for run in (as_file, below):
        assert "internal error" not in run.stderr and "▶" not in run.stdout  # refused before the trail ran


def test_a_read_only_working_directory_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "ok.trail.yaml").write_text(OK)
    with tmpfs(tmp_path / "ro", "64k", read_only=True) as ro:
        run = trailblaze("run", str(tmp_path / "ok.trail.yaml"), cwd=ro)
    assert run.returncode == 2, run.stderr
    assert "Read-only file system" in run.stderr and "--output-dir" in run.stderr
    assert "internal error" not in run.stderr


def test_an_ascii_terminal_gets_ascii_symbols_and_a_multi_line_failure_once(tmp_path: Path) -> None:
    (tmp_path / "ok.trail.yaml").write_text(OK)
    (tmp_path / "fails.trail.yaml").write_text("""\
trail:
  - step: fail with two lines
    recording:
      host:
        - exec: {argv: [sh, -c, "printf 'first-%s\\nsecond-%s\\n' line-of-output line-of-output; exit 4"]}
""")
    run = trailblaze("run", "ok.trail.yaml", "fails.trail.yaml", "--output-dir", "out", cwd=tmp_path,
                     env={"PYTHONIOENCODING": "ascii"})
    assert run.returncode == 1, run.stderr
    assert "internal error" not in run.stderr
    assert "> ok" in run.stdout and "-> PASSED: ok" in run.stdout and "x step 1" in run.stdout
    assert run.stdout.count("second-line-of-output") == 1  # shown with the step, not again unindented


def test_a_huge_tool_result_is_cut_in_the_session_log(tmp_path: Path) -> None:
    (tmp_path / "big.trail.yaml").write_text("""\
trail:
  - step: print a lot
    recording:
      host:
        - exec: {argv: [python3, -c, "print('x' * 20_000_000)"]}
""")
    run = trailblaze("run", "big.trail.yaml", "--output-dir", "out", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    [log] = (tmp_path / "out").glob("*/session.ndjson")
    assert log.stat().st_size < 3 * 1024 * 1024  # was twice the result: 40 MB
    assert "[truncated: " in log.read_text(encoding="utf-8")
