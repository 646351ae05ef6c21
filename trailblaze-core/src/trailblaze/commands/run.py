"""``trailblaze run``: replay trails (and hand unrecorded steps to the agent)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from .session_options import session_options, session_values
from .shared import CONTEXT_SETTINGS, debug_flag, handle_errors


@click.command("run", context_settings=CONTEXT_SETTINGS)
@click.argument("paths", nargs=-1)
@click.option("--tags", multiple=True, metavar="A,B", help="Run only trails with one of these tags (comma list, repeatable).")
@session_options("run")
@click.option("--alluredir", type=click.Path(path_type=Path, file_okay=False), metavar="DIR",
              help="Also write Allure results there (a test per trail and device, steps, attachments, retries); "
                   "needs pip install 'trailblaze[allure]'.")
@click.option("-n", "--workers", type=int, metavar="N",
              help="Run on N local worker processes (through pytest-xdist, which must be installed); the workers' "
                   "results are merged into one summary, report and JUnit XML.")
@handle_errors
def command(paths: tuple[str, ...], tags: tuple[str, ...], alluredir: Path | None, workers: int | None,
            **session: Any) -> None:
    """Run trails: replay each step's recording for the device, or hand it to the agent.

    PATHS are trail files, directories (every *.trail.yaml and trail.yaml below) or globs. Logs go to
    ./logs/<session>/, a JSON summary and an HTML report to ./logs/reports/. Several trails: the exit
    code is the worst (2 > 3 > 1 > 0).

    \b
    Examples:
      trailblaze run examples/web-shop/trails
      trailblaze run trails/login.trail.yaml --arg email=a@b.c --secret password=s3cret
      trailblaze run "trails/**/*.trail.yaml" --tags smoke --headed
      trailblaze run examples/web-shop/trails -n 2
      trailblaze run trails --shard 1/4 --durations last-run/ --output-dir shard-1
    """
    from ..errors import BadInputError, ExitCode

    if not paths:
        raise BadInputError("no trails given", hint="usage: trailblaze run PATH... (see trailblaze run --help)")
    tag_list = [t.strip() for group in tags for t in group.split(",") if t.strip()]
    if workers is not None and session.get("all_devices"):
        raise BadInputError("--all-devices does not combine with -n: the workers take their devices from -d",
                            hint="give the devices with -d (repeatable), or drop -n")
    if workers is not None:  # before the runner's imports: with -n, only the workers run trails
        from .run_parallel import run_with_workers

        sys.exit(run_with_workers(list(paths), workers, click.get_current_context().params, tag_list))
    from ..runner import RunOptions
    from ..runner.interrupt import RunInterrupted, handle_signals
    from ..runner.run import Runner
    from .output_options import given_output_options

    options = RunOptions(
        **session_values("run", session),
        tags=tag_list, alluredir=alluredir, debug=debug_flag(), output_options=given_output_options(),
    )
    if options.shard:
        from ..runner.shards import parse_shard

        parse_shard(options.shard)  # a bad I/N is a usage error before anything runs
    elif options.durations is not None:
        raise BadInputError("--durations balances --shard: give --shard I/N too")
    try:
        with handle_signals():
            result = Runner(options).run(list(paths))
    except RunInterrupted as exc:
        # The summary and report are written; children are stopped by the sessions' cleanup.
        click.echo(f"trailblaze: {exc}: the summary and report list every trail", err=True)
        sys.exit(int(ExitCode.INFRASTRUCTURE))
    sys.exit(int(result.exit_code))
