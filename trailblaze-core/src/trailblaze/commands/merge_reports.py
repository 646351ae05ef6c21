"""``trailblaze merge-reports``: result bundles of shards, workers and devices into one run's outputs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .shared import CONTEXT_SETTINGS, handle_errors

if TYPE_CHECKING:
    from ..errors import InfrastructureError
    from ..report.merged import Merged


@click.command("merge-reports", context_settings=CONTEXT_SETTINGS)
@click.argument("bundles", nargs=-1, type=click.Path(path_type=Path))
@click.option("--output-dir", type=click.Path(path_type=Path, file_okay=False), required=True, metavar="DIR",
              help="Where the merged bundle, summary.json and report.html go (a new directory, not one of the inputs).")
@click.option("--junit-xml", type=click.Path(path_type=Path, dir_okay=False), metavar="PATH",
              help="Also write one JUnit XML for the whole run (a testcase per trail and device, its earlier "
                   "attempts as flakyFailure/rerunFailure).")
@click.option("--no-report", is_flag=True, help="Do not write the HTML report.")
@handle_errors
def command(bundles: tuple[Path, ...], output_dir: Path, junit_xml: Path | None, no_report: bool) -> None:
    """Merge result bundles into one summary, one HTML report and one JUnit XML.

    BUNDLES are the --output-dir directories of `trailblaze run` (one per CI shard, xdist worker or
    machine), outputs of an earlier merge-reports, or directories holding them (every bundle below is
    taken). A result is a trail's attempt on a device in one run of one workspace: the same bundle given
    twice counts once, the same path from two workspaces or two runs stays two results. A trail's
    attempts make one trail (a pass after a failed attempt is FLAKY, as in a single run), failures
    first; the exit code is the one a single run of all the trails would give (2 > 3 > 1 > 0), decided
    by the records' outcomes. The output is a bundle too (its reports/results.jsonl: one line per
    trail × device × attempt). A bundle is untrusted input: a manifest naming a file outside its bundle
    (an absolute path, '..', a symlink out) is refused (exit 3), strings are cut at 64 KiB and records
    at 32 MiB (see docs/scale-out.md).

    \b
    Examples:
      trailblaze run trails --shard 1/2 --output-dir out/shard-1
      trailblaze run trails --shard 2/2 --output-dir out/shard-2
      trailblaze merge-reports out/shard-1 out/shard-2 --output-dir out/merged --junit-xml out/merged/junit.xml
    """
    from ..errors import BadInputError
    from ..report.bundle import find_bundles
    from ..report.merge import merge_bundles

    if not bundles:
        raise BadInputError("no bundles given", hint="usage: trailblaze merge-reports BUNDLE... --output-dir DIR")
    found = find_bundles(list(bundles), exclude=output_dir)
    merged = merge_bundles(found, output_dir, junit_xml=junit_xml, report=not no_report)
    failed = _write_plugin_outputs(merged, junit_xml=junit_xml, report=not no_report)
    c = merged.manifest.counts
    if merged.duplicates:
        click.echo(f"  ! {merged.duplicates} trail run(s) found in more than one bundle: kept the latest of each",
                   err=True)
    for root in merged.incomplete:
        click.echo(f"  ! {root}: its run did not finish (killed?): merged the trails it finished; exit 2", err=True)
    if merged.same_path:
        click.echo(f"  ! {merged.same_path} trail path(s) ran in more than one workspace or run: kept each as its "
                   "own result (see docs/scale-out.md)", err=True)
    for name, label in (("report", "Report"), ("summary", "Summary"), ("junit", "JUnit XML")):
        if name in merged.files:
            click.echo(f"{label}: {merged.files[name]}")
    click.echo(f"Merged {len(found)} bundle(s): {c.get('total', 0)} trail runs, {c.get('passed', 0)} passed, "
               f"{c.get('failed', 0)} failed, {c.get('skipped', 0)} skipped")
    click.echo(merged.results_line)
    for error in failed[:-1]:
        click.echo(f"✗ {error}", err=True)
    if failed:
        raise failed[-1]  # one line, exit 2 (``handle_errors``); the other outputs are written
    sys.exit(int(merged.exit_code))


def _write_plugin_outputs(merged: Merged, *, junit_xml: Path | None, report: bool) -> list[InfrastructureError]:
    """The plugins' formats of the merged run (``--ctrf PATH``...), written here once from every result,
    as a single run of all the trails writes them."""
    from ..plugins import get_host
    from ..results.output_request import BundleContext
    from .output_options import given_output_options, write_merged_outputs

    host = get_host()
    manifest = merged.manifest
    context = BundleContext(run_id=manifest.run_id, devices=tuple(manifest.devices),
                            plugins={p.name: p.version for p in host.plugins()}, started_at=manifest.started_at)
    return list(write_merged_outputs(merged, context, host, junit_xml=junit_xml, report=report,
                                     options=given_output_options()))
