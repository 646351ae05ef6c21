"""``trailblaze run -n N``: the same run on N local worker processes, through pytest-xdist.

xdist already does what a worker pool needs (load scheduling, a replacement for a crashed worker), and
the pytest plugin already runs trails as tests, writes a result bundle per worker and merges them at the
end; this module only turns ``run``'s flags into that pytest command line (the session options through
their ``--trailblaze-*`` twins from the one option table), runs it, and reads the merged bundle back for
the closing lines and the exit code a single-process run would give.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from .session_options import SessionOption, options_for

UNSUPPORTED = {"args_file": "--args-file", "use_recorded_steps": "--use-recorded-steps",
               "log_layout": "--log-layout", "test_name": "--test-name"}
"""``run`` flags the pytest plugin does not take (yet): refused with ``-n`` rather than ignored."""

PLUGIN_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
"""The pytest command ``build_command`` makes loads its plugins by ``-p``, not from entry points."""


def pytest_args(row: SessionOption, raw: Any) -> list[str]:
    """What ``row``'s CLI value ``raw`` is on the pytest command line."""
    flag = row.pytest_flag
    if flag is None or raw is None or raw == () or raw is False:
        return []
    if row.kind in ("pairs", "driver_options", "list"):
        return [arg for item in raw for arg in (flag, str(item))]
    if row.kind in ("flag", "switch"):
        return [flag]
    return [flag, str(Path(raw).resolve()) if row.kind in ("path", "dir") else str(raw)]


def build_command(paths: list[str], workers: int, params: Mapping[str, Any], tags: list[str],
                  output_dir: Path) -> list[str]:
    from ..errors import BadInputError
    from ..pytest_plugin import marker_name

    for field, flag in UNSUPPORTED.items():
        if params.get(field) is not None:
            raise BadInputError(f"{flag} is not supported with -n yet", hint="run without -n, or drop the flag")
    if params.get("no_report"):
        raise BadInputError("--no-report is not supported with -n yet", hint="run without -n, or drop the flag")
    if params.get("save_recording") is False:
        raise BadInputError("--no-save-recording is not supported with -n yet")
    # Only the two plugins a trail run needs (with ``PLUGIN_ENV``): the controller and every worker
    # otherwise import each pytest plugin installed beside trailblaze, about a second per process.
    command = [sys.executable, "-m", "pytest", "-p", "xdist", "-p", "trailblaze.pytest_plugin",
               "-p", "no:cacheprovider", "-c", os.devnull, "--rootdir", str(Path.cwd()), "-q", "--no-header",
               "-n", str(workers)]
    for path in paths:
        command += ["--trails", path]
    for row in options_for("run"):
        if row.field == "output_dir":
            continue
        if row.pytest_flag is None:
            if row.kind == "int" and params.get(row.param) is not None or row.kind == "off" and params.get(row.param):
                raise BadInputError(f"{row.long_flag} is not supported with -n yet")
            continue
        command += pytest_args(row, params.get(row.param))
    command += ["--trailblaze-output-dir", str(output_dir)]
    if tags:
        command += ["-m", " or ".join(marker_name(tag) for tag in tags)]
    return command


def run_with_workers(paths: list[str], workers: int, params: Mapping[str, Any], tags: list[str]) -> int:
    """Run, print the closing lines of a ``trailblaze run``, return its exit code."""
    from ..errors import BadInputError, ExitCode
    from ..report.bundle import new_run_id, read_bundle
    from ..report.merge import SUMMARY
    from ..runner.discovery import expand
    from ..runner.endpoints import check_pool_sizes

    if workers < 1:
        raise BadInputError(f"-n expects a number of workers >= 1, got {workers}")
    check_pool_sizes(workers, [e for group in params.get("endpoints") or () for e in group.split(",") if e.strip()],
                     paths)
    if importlib.util.find_spec("xdist") is None:
        raise BadInputError("-n needs pytest-xdist, which is not installed",
                            hint="pip install pytest-xdist (or run without -n)")
    expand(paths)  # bad paths are bad input here, not a pytest usage error
    output_dir = Path(params.get("output_dir") or "logs").resolve()
    run_id = new_run_id()
    command = build_command(paths, workers, params, tags, output_dir)
    env = {**os.environ, **PLUGIN_ENV, "TRAILBLAZE_RUN_ID": run_id}
    child = subprocess.Popen(command, env=env)
    try:
        code = child.wait()
    except KeyboardInterrupt:
        child.send_signal(signal.SIGINT)  # pytest stops its workers and still writes what finished
        child.wait()
        raise
    try:
        bundle = read_bundle(output_dir)
    except BadInputError:
        bundle = None
    if bundle is None or bundle.manifest.run_id != run_id:
        click.echo(f"trailblaze: error: pytest ended with exit code {code} before any trail result was written",
                   err=True)
        return int(ExitCode.BAD_INPUT if code in (4, 5) else ExitCode.INFRASTRUCTURE)
    c = bundle.manifest.counts
    for record in bundle.records:
        if record.outcome not in ("Succeeded", "SucceededWithSelfHeal", "Skipped"):
            click.echo(f"✗ {record.title} [{record.device or record.classifier or record.platform or '-'}]: "
                       f"{record.message or record.outcome}")
    files = {name: os.path.normpath(output_dir / path) for name, path in bundle.manifest.files.items()}
    if files.get("report"):
        click.echo(f"Report: {files['report']}")
    click.echo(f"Summary: {files.get('summary', output_dir / SUMMARY)}")
    if files.get("junit"):
        click.echo(f"JUnit XML: {files['junit']}")
    click.echo(f"Results: {c.get('passed', 0)} passed, {c.get('failed', 0)} failed, {c.get('skipped', 0)} skipped "
               f"({workers} worker{'s' if workers != 1 else ''})")
    return int(bundle.manifest.exit_code)
