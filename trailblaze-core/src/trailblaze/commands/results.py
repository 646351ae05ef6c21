"""``trailblaze results``: what the run history says about each trail on each device."""

from __future__ import annotations

from pathlib import Path

import click

from .shared import CONTEXT_SETTINGS, handle_errors

MARKS = {"PASSED": "✓", "FLAKY": "≈", "HEALED": "+", "FAILED": "✗", "ERROR": "E", "SKIPPED": "s",
         "CANCELLED": "c", "TIMEOUT": "T", "MAX_CALLS_REACHED": "M"}


@click.command("results", context_settings=CONTEXT_SETTINGS)
@click.argument("trails", nargs=-1, metavar="[TRAIL_ID]...")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (a list, one entry per trail "
              "and device).")
@click.option("--flaky", is_flag=True, help="Only trails with a flake rate above 0, flakiest first: the "
              "candidates for quarantine.")
@click.option("--last", type=click.IntRange(min=1), default=20, show_default=True, metavar="N",
              help="How many recent runs of each trail to look at.")
@click.option("--results-db", type=click.Path(path_type=Path, dir_okay=False), metavar="PATH",
              help="The run history (default: <workspace>/.trailblaze/results.db, found from the current "
                   "directory; outside a workspace logs/reports/results.db).")
@handle_errors
def command(trails: tuple[str, ...], as_json: bool, flaky: bool, last: int, results_db: Path | None) -> None:
    """Show each trail's recent runs from the run history, per device.

    Every `trailblaze run` (and pytest --trails run) appends its attempts to the history. For each
    trail id and device this shows the last outcomes (newest first: ✓ passed, ≈ flaky, + healed,
    ✗ failed, E error, s skipped, c cancelled), the flake rate (runs that passed only on a retry),
    the failure rate, the last pass, and the median and 90th-percentile duration.

    \b
    Examples:
      trailblaze results
      trailblaze results shop/checkout --last 50
      trailblaze results --flaky --json
    """
    from ..results.store import ResultsStore

    path = results_db or _default_path()
    if not path.is_file():
        from ..errors import BadInputError

        raise BadInputError(f"no run history at {path}",
                            hint="run trails first (trailblaze run), or pass --results-db PATH")
    with ResultsStore(path) as store:
        rows = store.history(list(trails) or None, last=last)
    if flaky:
        rows = sorted((r for r in rows if r.flake_rate > 0), key=lambda r: (-r.flake_rate, r.trail_id))
    if as_json:
        import json

        click.echo(json.dumps([r.model_dump(mode="json") for r in rows], indent=2, ensure_ascii=False))
        return
    if not rows:
        none = "No runs recorded" + (" for these trails." if trails else ".")
        click.echo("No flaky trails." if flaky else none)
        return
    header = ("TRAIL", "DEVICE", "RUNS", "LAST (newest first)", "FLAKY", "FAILED", "LAST PASS", "MEDIAN",
              "P90")
    table = [header] + [(
        r.trail_id, r.device + (" (quarantined)" if r.quarantined else ""), str(r.runs),
        "".join(MARKS.get(s, "?") for s in r.last_statuses), f"{r.flake_rate:.0%}", f"{r.fail_rate:.0%}",
        r.last_pass or "never", _secs(r.median_duration_s), _secs(r.p90_duration_s)) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        click.echo("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())



def _default_path() -> Path:
    from ..config import find_workspace
    from ..results.store import DEFAULT_RELATIVE

    root = find_workspace(Path.cwd())
    return root / DEFAULT_RELATIVE if root is not None else Path.cwd() / "logs" / "reports" / "results.db"


def _secs(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f} s"
