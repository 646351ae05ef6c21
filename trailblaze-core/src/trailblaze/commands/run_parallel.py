"""``trailblaze run -n N``: the same run on N local worker processes, through pytest-xdist.

xdist already does what a worker pool needs (load scheduling, a replacement for a crashed worker), and
the pytest plugin already runs trails as tests, writes a result bundle per worker and merges them at the
end; this module only turns ``run``'s flags into that pytest command line (the session options through
their ``--trailblaze-*`` twins from the one option table), runs pytest in this process as the xdist
controller (one Python fewer than ``python -m pytest``), with pytest's own terminal output off and
``RunConsole`` printing each trail's lines instead, and reads the merged bundle back for the closing lines
and the exit code a single-process run would give.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from .session_options import SessionOption, options_for

PLUGIN_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
"""The pytest run ``build_args`` makes loads its plugins by ``-p``, not from entry points: the controller
and every worker otherwise import each pytest plugin installed beside trailblaze."""


UNUSED_PYTEST_PLUGINS = ("unraisableexception", "threadexception", "doctest", "pastebin", "unittest",
                         "debugging", "stepwise", "setuponly", "setupplan", "cacheprovider", "terminal")
"""pytest's own plugins a trail run has no use for, off in the controller and every worker: ``terminal``
(``RunConsole`` shows the run instead), and ``unraisableexception`` above all, whose clean-up runs a full
garbage collection at the end of each process (about 0.1 s each with trailblaze and pydantic loaded);
the others are imports nothing here calls (doctests, unittest classes, ``--pdb``, ``--sw``, ...)."""


def pytest_args(row: SessionOption, raw: Any) -> list[str]:
    """What ``row``'s CLI value ``raw`` is on the pytest command line."""
    if row.pytest_flag is None or raw is None or raw == ():
        return []
    if row.kind == "switch":  # --x / --no-x: both ways are said
        return [row.pytest_flags[0] if raw else row.pytest_flags[1]]
    if raw is False:
        return []
    if row.kind in ("pairs", "driver_options", "list", "many"):
        return [arg for item in raw for arg in (row.pytest_flag, str(item))]
    if row.kind in ("flag", "off"):
        return [row.pytest_flag]
    return [row.pytest_flag, str(Path(raw).resolve()) if row.kind in ("path", "dir") else str(raw)]


def build_args(paths: list[str], workers: int, params: Mapping[str, Any], tags: list[str],
               output_dir: Path, outputs: Mapping[str, Any] | None = None) -> list[str]:
    """The pytest arguments of the run: every session option given, through its ``--trailblaze-*`` twin,
    and the plugins' output options given (``outputs``), through theirs: the controller writes the
    plugins' formats, once, from every worker's results."""
    from ..errors import BadInputError
    from .output_options import pytest_output_args
    from .pytest_bridge import marker_name

    if params.get("alluredir") is not None:
        raise BadInputError("--alluredir is not supported with -n",
                            hint="Allure results from workers come from allure-pytest: pytest --trails PATH -n N "
                                 "--alluredir DIR (see docs/scale-out.md)")
    args = ["-p", "xdist", "-p", "trailblaze.pytest_plugin", *[arg for name in UNUSED_PYTEST_PLUGINS
                                                               for arg in ("-p", f"no:{name}")],
            "--assert=plain", "-c", os.devnull, "--rootdir", str(Path.cwd()), "-n", str(workers),
            "--trailblaze-relative-paths"]
    for path in paths:
        args += ["--trails", path]
    for row in options_for("run"):
        if row.field == "output_dir":
            continue
        if row.pytest_flag is None:
            # Upstream's spellings (session_options.UPSTREAM_ONLY...) have no pytest twin: refused only when given.
            raw = params.get(row.param)
            if raw not in (None, False, (), []) and row.field not in ("no_daemon", "markdown"):
                raise BadInputError(f"{row.long_flag} is not supported with -n",
                                    hint="use this runner's spelling (see trailblaze run --help)")
            continue
        args += pytest_args(row, params.get(row.param))
    args += ["--trailblaze-output-dir", str(output_dir)]
    args += pytest_output_args(outputs or {})
    if tags:
        args += ["-m", " or ".join(marker_name(tag) for tag in tags)]
    return args


@contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    """``values`` in ``os.environ`` while pytest runs here: the workers it starts inherit them."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_with_workers(paths: list[str], workers: int, params: Mapping[str, Any], tags: list[str]) -> int:
    """Run, print what a ``trailblaze run`` prints, return its exit code."""
    from ..errors import BadInputError, ExitCode
    from ..report.bundle import read_bundle
    from ..results.output_request import new_run_id
    from ..report.merge import run_result
    from ..results.model import results_line
    from ..runner.discovery import expand, nothing_tagged
    from ..runner.endpoints import check_pool_sizes
    from ..runner.progress import llm_line
    from .output_options import given_output_options
    from .session_options import session_values

    if workers < 1:
        raise BadInputError(f"-n expects a number of workers >= 1, got {workers}")
    values = session_values("run", dict(params))  # a bad value is bad input here, named by the run flag
    if values["shard"]:
        from ..runner.shards import parse_shard

        parse_shard(values["shard"])
    check_pool_sizes(workers, values["endpoints"], paths)
    if importlib.util.find_spec("xdist") is None:
        raise BadInputError("-n needs pytest-xdist, which is not installed",
                            hint="pip install pytest-xdist (or run without -n)")
    trail_files = expand(paths)  # bad paths are bad input here, not a pytest usage error
    output_dir = Path(values["output_dir"] or "logs").resolve()
    run_id = new_run_id()
    args = build_args(paths, workers, params, tags, output_dir, given_output_options())

    import pytest

    from .pytest_bridge import RunConsole

    from ..runner.interrupt import handle_signals

    console = RunConsole()
    # SIGTERM and SIGHUP end the run as Ctrl-C does: pytest stops the workers (each finishes the trail it
    # runs), the finished trails are merged and the ones no worker started are listed as CANCELLED.
    with _environment({**PLUGIN_ENV, "TRAILBLAZE_RUN_ID": run_id}), handle_signals():
        code = int(pytest.main(args, plugins=[console]))
    if code == int(pytest.ExitCode.NO_TESTS_COLLECTED) and not console.bad_input:
        if tags:
            raise nothing_tagged(tags, len(trail_files))
        click.echo(results_line((0, 0, 0), {}))  # a shard that got no trail: as a plain run ends it
        return int(ExitCode.SUCCESS)
    try:
        bundle = read_bundle(output_dir)
    except BadInputError:
        bundle = None
    if bundle is None or bundle.manifest.run_id != run_id:
        if not console.bad_input:
            click.echo(f"trailblaze: error: pytest ended with exit code {code} before any trail result was "
                       "written", err=True)
        return int(ExitCode.BAD_INPUT if code in (4, 5) or console.bad_input else ExitCode.INFRASTRUCTURE)
    files = {name: os.path.normpath(output_dir / path) for name, path in bundle.manifest.files.items()}
    if files.get("report"):
        click.echo(f"Report: {files['report']}")
    if files.get("summary"):
        click.echo(f"Summary: {files['summary']}")
    # The merged bundle read back as a run (each trail's attempts in one result): the closing lines are
    # the ones a plain run prints, FLAKY decided by the same rule (``results.model.trail_status``).
    run = run_result(bundle.records, output_dir)
    run.interrupted = console.interrupted
    records = bundle.records  # every attempt: each one's model calls were spent
    llm = llm_line(sum(r.llm_call_count for r in records), sum(r.llm_tokens for r in records),
                   sum(r.llm_cost_usd for r in records))
    if llm:
        click.echo(llm)
    if values.get("markdown"):  # the controller writes it, from the merged results, as it prints them
        from ..files import write_new
        from ..report.markdown import render_markdown

        click.echo(f"Markdown: {write_new(output_dir / 'reports', 'trailblaze_summary', '.md', render_markdown(run))}")
    click.echo(run.results_line())
    codes = [bundle.manifest.exit_code]
    if console.output_errors:  # an output the controller could not write (named on its line): exit 2
        codes.append(ExitCode.INFRASTRUCTURE)
    if console.bad_input:
        codes.append(ExitCode.BAD_INPUT)
    if code == int(pytest.ExitCode.INTERRUPTED):
        codes.append(ExitCode.INFRASTRUCTURE)
    return int(ExitCode.worst(codes))

