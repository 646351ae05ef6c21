"""A plugin's output format at scale: written once per run, by the process that has every result (a plain
run, the ``-n`` / xdist controller, ``merge-reports`` of shards), selected by the plugin's own option
(``--ctrf PATH``, declared once with ``trailblaze_output_options``), configured by its ``trailblaze.yaml``
section; and writers isolated from each other: one that raises is one line naming its plugin, every other
output is still written, exit 2. Real ``trailblaze`` and pytest processes, the test plugins installed as
distributions with real entry points."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import click
import click.testing
import pytest
from trailblaze import OutputOption, hookimpl
from trailblaze.commands.output_options import add_output_options
from trailblaze.report.bundle import read_bundle
from trailblaze.testing import new_host, register_plugin

CTRF = """\
'''A CTRF (https://ctrf.io) writer: a third party's format, selected by its own --ctrf option.'''
from __future__ import annotations

import json
import os

from pydantic import BaseModel
from trailblaze import OutputOption, hookimpl, write_atomic

STATUS = {"PASSED": "passed", "FLAKY": "passed", "HEALED": "passed", "FAILED": "failed", "ERROR": "failed",
          "SKIPPED": "skipped"}


class CtrfSection(BaseModel):
    tool: str = "trailblaze"


@hookimpl
def trailblaze_config_sections():
    return {"ctrf": CtrfSection}


@hookimpl
def trailblaze_output_options():
    return [OutputOption("ctrf", "Also write a CTRF JSON report (https://ctrf.io) there.")]


@hookimpl
def trailblaze_write_run_outputs(result, request):
    with open(os.environ["CTRF_CALLS"], "a") as calls:  # who wrote, to show it is once per run
        calls.write(f"{os.getpid()} {request.context.worker} {len(result.trails)}\\n")
    path = request.option("ctrf")
    if path is None:
        return None
    section = request.section("ctrf")
    tests = [{"name": t.title, "status": STATUS.get(t.status, "other"),
              "duration": int(((t.completed_at or t.started_at) - t.started_at) * 1000),
              "flaky": t.flaky, "retries": len(t.attempts)} for t in result.trails]
    summary = {"tests": len(tests), **{s: sum(1 for t in tests if t["status"] == s)
                                       for s in ("passed", "failed", "skipped", "pending", "other")}}
    write_atomic(path, json.dumps({"results": {"tool": {"name": section.tool if section else "trailblaze"},
                                               "summary": summary, "tests": tests}}))
    return None
"""

BOOM = """\
from trailblaze import hookimpl


@hookimpl
def trailblaze_write_run_outputs(result, request):
    raise RuntimeError("the boom format is broken")
"""

PASSING = """\
config:
  id: {name}
trail:
  - step: wait a moment
    recording:
      host:
        - wait: {{timeToWaitInSeconds: 0.01}}
"""

BOOM_LINE = ("plugin 'boom' (trailblaze-boom 0.1.0) failed in trailblaze_write_run_outputs: RuntimeError: the boom "
             "format is broken -- disable it with TRAILBLAZE_DISABLE_PLUGINS=boom")


@pytest.fixture
def project(tmp_path: Path, fake_site: Any) -> Path:
    """Three passing trails, a workspace whose ``ctrf:`` section names the tool, the CTRF and boom plugins
    installed (boom disabled unless a test turns it on)."""
    fake_site("trailblaze-ctrf", "trailblaze_ctrf", CTRF, "ctrf")  # installed in tmp_path / "site"
    fake_site("trailblaze-boom", "trailblaze_boom", BOOM, "boom")
    (tmp_path / "trails" / "config").mkdir(parents=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text("ctrf:\n  tool: acme-ci\n")
    for name in ("a", "b", "c"):
        (tmp_path / "trails" / f"{name}.trail.yaml").write_text(PASSING.format(name=name))
    return tmp_path


def _env(root: Path, *, boom: bool = False) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TRAILBLAZE_RUN_ID", "TRAILBLAZE_DISABLE_PLUGINS")}
    env["PYTHONPATH"] = os.pathsep.join([str(root / "site"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["CTRF_CALLS"] = str(root / "ctrf.calls")
    if not boom:
        env["TRAILBLAZE_DISABLE_PLUGINS"] = "boom"
    return env


def _trailblaze(args: list[str], root: Path, *, boom: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", *args], capture_output=True, text=True, cwd=root,
                          env=_env(root, boom=boom), timeout=300, check=False)


def _pytest(args: list[str], root: Path, *, boom: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir", str(root),
                           "-o", "addopts=", *args], capture_output=True, text=True, cwd=root,
                          env=_env(root, boom=boom), timeout=300, check=False)


def _calls(root: Path) -> list[list[str]]:
    """One row per call of the CTRF writer: pid, worker, trails it was given."""
    path = root / "ctrf.calls"
    rows = [line.split() for line in path.read_text().splitlines()] if path.exists() else []
    path.unlink(missing_ok=True)
    return rows


def _check_ctrf(path: Path, titles: list[str]) -> None:
    """One complete CTRF file: every trail once, in the ctrf.io shape, the tool from the config section."""
    doc: dict[str, Any] = json.loads(path.read_text())
    results = doc["results"]
    assert results["tool"] == {"name": "acme-ci"}
    assert sorted(t["name"] for t in results["tests"]) == sorted(titles)
    assert all(t["status"] == "passed" and isinstance(t["duration"], int) for t in results["tests"])
    assert results["summary"]["tests"] == len(titles) == results["summary"]["passed"]


def test_a_plain_run_writes_the_plugin_format_its_own_option_selects(project: Path) -> None:
    helped = _trailblaze(["run", "--help"], project)
    assert "--ctrf PATH" in helped.stdout and "Also write a CTRF JSON report (https://ctrf.io) there. (plugin ctrf)" \
        in " ".join(helped.stdout.split()), helped.stdout
    done = _trailblaze(["run", "trails", "--ctrf", "out/ctrf.json", "--output-dir", "out"], project)
    assert done.returncode == 0, done.stdout + done.stderr
    _check_ctrf(project / "out" / "ctrf.json", ["a", "b", "c"])
    assert [row[1:] for row in _calls(project)] == [["None", "3"]]
    # Without its option the writer is still called (once) and writes nothing.
    assert _trailblaze(["run", "trails", "--output-dir", "out2"], project).returncode == 0
    assert len(_calls(project)) == 1 and not list((project / "out2").rglob("ctrf.json"))


def test_run_n_2_writes_the_plugin_format_once_in_the_controller(project: Path) -> None:
    done = _trailblaze(["run", "trails", "-n", "2", "--ctrf", "out/ctrf.json", "--output-dir", "out"], project)
    assert done.returncode == 0, done.stdout + done.stderr
    _check_ctrf(project / "out" / "ctrf.json", ["a", "b", "c"])
    calls = _calls(project)
    assert [row[1:] for row in calls] == [["None", "3"]], calls  # no worker wrote it: every trail, once
    assert len({p.name for p in (project / "out").glob("gw*")}) == 2


def test_pytest_trails_n_2_writes_the_plugin_format_once_in_the_controller(project: Path) -> None:
    helped = _pytest(["--trails", "trails", "--help"], project)
    assert "--ctrf=PATH, --trailblaze-ctrf=PATH" in helped.stdout, helped.stdout
    assert "(plugin ctrf)" in helped.stdout
    done = _pytest(["--trails", "trails", "-n", "2", "--ctrf", "out/ctrf.json", "--trailblaze-output-dir", "out"],
                   project)
    assert done.returncode == 0, done.stdout + done.stderr
    _check_ctrf(project / "out" / "ctrf.json", ["a", "b", "c"])
    assert [row[1:] for row in _calls(project)] == [["None", "3"]]


def test_merge_reports_of_two_shards_writes_the_plugin_format_of_the_whole_run(project: Path) -> None:
    for i in (1, 2):
        shard = _trailblaze(["run", "trails", "--shard", f"{i}/2", "--output-dir", f"s{i}"], project)
        assert shard.returncode == 0, shard.stdout + shard.stderr
    assert len(_calls(project)) == 2  # each shard is a run of its own (no --ctrf: nothing written)
    helped = _trailblaze(["merge-reports", "--help"], project)
    assert "--ctrf PATH" in helped.stdout
    merged = _trailblaze(["merge-reports", "s1", "s2", "--output-dir", "M", "--ctrf", "M/ctrf.json"], project)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    _check_ctrf(project / "M" / "ctrf.json", ["a", "b", "c"])
    assert [row[1:] for row in _calls(project)] == [["None", "3"]]


def _check_every_other_output(out: Path, summary: Path, report: Path, junit: Path) -> None:
    assert summary.exists() and len(json.loads(summary.read_text())["results"]) == 3
    assert report.exists() and junit.exists()
    assert len(list(ET.parse(junit).getroot().iter("testcase"))) == 3
    bundle = read_bundle(out)
    assert bundle.manifest.complete and len(bundle.records) == 3
    _check_ctrf(out / "ctrf.json", ["a", "b", "c"])


def test_a_raising_writer_is_one_line_naming_its_plugin_and_every_other_output_is_written(project: Path) -> None:
    done = _trailblaze(["run", "trails", "--ctrf", "out/ctrf.json", "--output-dir", "out", "--junit-xml",
                        "out/junit.xml"], project, boom=True)
    assert done.returncode == 2, done.stdout + done.stderr
    assert [line for line in done.stderr.splitlines() if "boom" in line] == [f"trailblaze: error: {BOOM_LINE}"]
    assert "Traceback" not in done.stderr
    assert "Results: 3 passed, 0 failed, 0 skipped" in done.stdout
    reports = project / "out" / "reports"
    _check_every_other_output(project / "out", next(reports.glob("trailblaze_test_results_*.json")),
                              next(reports.glob("trailblaze_report_*.html")), project / "out" / "junit.xml")

    debug = _trailblaze(["run", "trails", "--output-dir", "out-debug", "--debug"], project, boom=True)
    assert debug.returncode == 2 and "Traceback" in debug.stderr and "RuntimeError: the boom format is broken" \
        in debug.stderr


def test_a_raising_writer_under_run_n_2_is_one_line_and_exit_2(project: Path) -> None:
    done = _trailblaze(["run", "trails", "-n", "2", "--ctrf", "out/ctrf.json", "--output-dir", "out",
                        "--junit-xml", "out/junit.xml"], project, boom=True)
    assert done.returncode == 2, done.stdout + done.stderr
    assert [line for line in done.stderr.splitlines() if "boom" in line] == [f"trailblaze: error: {BOOM_LINE}"]
    assert "Traceback" not in done.stderr
    out = project / "out"
    _check_every_other_output(out, out / "summary.json", out / "report.html", out / "junit.xml")


def test_a_raising_writer_under_merge_reports_is_one_line_and_exit_2(project: Path) -> None:
    for i in (1, 2):
        assert _trailblaze(["run", "trails", "--shard", f"{i}/2", "--output-dir", f"s{i}"], project).returncode == 0
    merged = _trailblaze(["merge-reports", "s1", "s2", "--output-dir", "M", "--ctrf", "M/ctrf.json",
                          "--junit-xml", "M/junit.xml"], project, boom=True)
    assert merged.returncode == 2, merged.stdout + merged.stderr
    assert [line for line in merged.stderr.splitlines() if "boom" in line] == [f"trailblaze: error: {BOOM_LINE}"]
    assert "Results: 3 passed, 0 failed, 0 skipped" in merged.stdout
    out = project / "M"
    _check_every_other_output(out, out / "summary.json", out / "report.html", out / "junit.xml")


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["pytest --trails", "pytest --trails -n 2"])
def test_a_raising_writer_under_pytest_is_one_line_in_the_summary_and_exit_2(workers: list[str],
                                                                            project: Path) -> None:
    """The rule ``trailblaze run`` follows (one line naming the plugin, every other output written, exit 2),
    decided by the same function: the line is in the terminal summary's ``trailblaze`` section."""
    done = _pytest(["--trails", "trails", *workers, "--ctrf", "out/ctrf.json", "--trailblaze-output-dir", "out",
                    "--trailblaze-junit-xml", "out/junit.xml"], project, boom=True)
    assert done.returncode == 2, done.stdout + done.stderr
    assert [line for line in done.stdout.splitlines() if "boom" in line] == [f"✗ {BOOM_LINE}"], done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    assert "3 passed" in done.stdout
    out = project / "out"
    if workers:
        _check_every_other_output(out, out / "summary.json", out / "report.html", out / "junit.xml")
    else:
        reports = out / "reports"
        _check_every_other_output(out, next(reports.glob("trailblaze_test_results_*.json")),
                                  next(reports.glob("trailblaze_report_*.html")), out / "junit.xml")


def test_a_raising_writer_under_pytest_keeps_a_worse_exit_status(project: Path) -> None:
    """pytest's own usage error is worse than an output not written, and stays; a failed trail (1) is not
    (the run is 2, as ``trailblaze run`` ends it)."""
    from trailblaze.pytest_plugin.workers import exit_status

    assert [exit_status(pytest.ExitCode(s)) for s in range(6)] == [2, 2, 2, 3, 4, 2]
    (project / "trails" / "c.trail.yaml").write_text(
        "config:\n  id: c\ntrail:\n  - step: fail\n    recording:\n      host:\n        - exec: {argv: [\"false\"]}\n")
    done = _pytest(["--trails", "trails", "--trailblaze-output-dir", "out"], project, boom=True)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "1 failed, 2 passed" in done.stdout, done.stdout
    assert [line for line in done.stdout.splitlines() if "boom" in line] == [f"✗ {BOOM_LINE}"], done.stdout


# -- declaring options: one line per mistake, the command keeps working --------------------------------------
class _Declares:
    def __init__(self, *options: OutputOption) -> None:
        self.options = list(options)

    @hookimpl
    def trailblaze_output_options(self) -> list[OutputOption]:
        return self.options


class _Broken:
    @hookimpl
    def trailblaze_output_options(self) -> list[OutputOption]:
        raise RuntimeError("no options today")


def test_a_name_taken_twice_or_by_the_command_is_left_out_with_a_line_naming_the_plugin() -> None:
    lines: list[str] = []
    host = new_host()
    host.loader.stderr = lines.append

    @click.command("run")
    @click.option("--output-dir")
    def command(output_dir: str | None) -> None:
        click.echo(repr(click.get_current_context().meta.get("trailblaze.output_options")))

    first = _Declares(OutputOption("ctrf", "CTRF there."), OutputOption("output-dir", "clash"),
                      OutputOption("ctrf-strict", "Fail on skips.", kind="flag"))
    with register_plugin(host, first, "first"), register_plugin(host, _Declares(OutputOption("ctrf", "mine")), "second"), \
            register_plugin(host, _Broken(), "broken"):
        add_output_options(command, host, warn=lines.append)
        flags = [opt for p in command.params for opt in p.opts]
        assert flags == ["--output-dir", "--ctrf", "--ctrf-strict"]
        result = click.testing.CliRunner().invoke(command, ["--ctrf", "x.json", "--ctrf-strict"])
        assert result.output.strip() == "{'ctrf': PosixPath('x.json'), 'ctrf-strict': True}"
    assert any("plugin 'second' declared the output option --ctrf, which plugin 'first' declared first" in line
               for line in lines), lines
    assert any("plugin 'first' declared the output option --output-dir, which `trailblaze run` already has" in line
               for line in lines), lines
    assert any("plugin 'broken'" in line and "trailblaze_output_options" in line and "no options today" in line
               for line in lines), lines


def test_an_option_name_must_be_a_flag_word() -> None:
    with pytest.raises(ValueError, match="lower case words"):
        OutputOption("CTRF file", "bad")
    with pytest.raises(ValueError, match="kind"):
        OutputOption("ctrf", "bad", kind="number")  # type: ignore[arg-type]
