"""``trailblaze results``: what the run history says about each trail on each device."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .shared import CONTEXT_SETTINGS, handle_errors

if TYPE_CHECKING:
    from ..results.store import TrailHistory

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
@click.option("--prompt", is_flag=True, help="Print the prompt for the latest failure of each TRAIL_ID (the "
              "HTML report's Copy prompt text): trail file and line, step, recording, error, screen, last pass, "
              "what to do.")
@click.option("--results-db", type=click.Path(path_type=Path, dir_okay=False), metavar="PATH",
              help="The run history (default: <workspace>/.trailblaze/results.db, found from the current "
                   "directory; outside a workspace logs/reports/results.db).")
@handle_errors
def command(trails: tuple[str, ...], as_json: bool, flaky: bool, last: int, prompt: bool,
            results_db: Path | None) -> None:
    """Show each trail's recent runs from the run history, per device.

    Every `trailblaze run` (and pytest --trails run) appends its attempts to the history. For each
    trail id and device this shows the last outcomes (newest first: ✓ passed, ≈ flaky, + healed,
    ✗ failed, E error, s skipped, c cancelled), the flake rate (runs that passed only on a retry),
    the failure rate, the agent-step rate (the share of its steps the model solved instead of
    replaying a recording: unrecorded, recordable: false or healed), the last pass, and the median
    and 90th-percentile duration.

    \b
    Examples:
      trailblaze results
      trailblaze results shop/checkout --last 50
      trailblaze results --flaky --json
      trailblaze results shop/checkout --prompt
    """
    from ..errors import BadInputError
    from ..untrusted import terminal_text

    path = results_db or _default_path()
    if not path.is_file():
        raise BadInputError(f"no run history at {path}",
                            hint="run trails first (trailblaze run), or pass --results-db PATH")
    if prompt:
        _print_prompts(path, list(trails))
        return
    rows = _read(path, list(trails) or None, last)
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
    header = ("TRAIL", "DEVICE", "RUNS", "LAST (newest first)", "FLAKY", "FAILED", "AGENT STEPS", "LAST PASS",
              "MEDIAN", "P90")
    # What the store holds came from trails, devices and tools: shown with control characters escaped.
    table = [header] + [tuple(terminal_text(cell) for cell in (
        r.trail_id, r.device + (" (quarantined)" if r.quarantined else ""), str(r.runs),
        "".join(MARKS.get(s, "?") for s in r.last_statuses), f"{r.flake_rate:.0%}", f"{r.fail_rate:.0%}",
        "–" if r.agent_step_rate is None else f"{r.agent_step_rate:.0%}", r.last_pass or "never", _secs(r.median_duration_s), _secs(r.p90_duration_s))) for r in rows]
    if len({r.workspace for r in rows}) > 1:  # the same trail from two workspaces: two histories, told apart
        table = [(*row, terminal_text(r.workspace or "?") if r else "WORKSPACE")
                 for row, r in zip(table, [None, *rows], strict=True)]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        click.echo("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())


def _read(path: Path, trails: list[str] | None, last: int) -> list[TrailHistory]:
    """The histories in the store at ``path``; a store that is not one, or is damaged (a truncated copy,
    a CI cache cut short, rows of the wrong type), is one line naming it (exit 3), not a traceback."""
    import sqlite3

    from ..errors import BadInputError
    from ..results.store import ResultsStore

    try:
        with ResultsStore(path) as store:
            return store.history(trails, last=last)
    except (sqlite3.Error, OSError, RuntimeError, TypeError, ValueError, OverflowError) as exc:
        reason = str(exc).splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BadInputError(f"{path}: not a readable run history ({reason})",
                            hint="delete it to start a new history, or pass --results-db PATH") from None



def _print_prompts(path: Path, trails: list[str]) -> None:
    """The latest failure prompt of each trail (per device), as the run stored it (already redacted)."""
    import sqlite3

    from ..errors import BadInputError
    from ..results.store import ResultsStore
    from ..untrusted import terminal_text

    if not trails:
        raise BadInputError("--prompt needs the trail: trailblaze results TRAIL_ID --prompt")
    try:
        with ResultsStore(path) as store:
            found = store.failure_prompts(trails)
    except (sqlite3.Error, OSError, RuntimeError, TypeError, ValueError) as exc:
        raise BadInputError(f"{path}: not a readable run history ({exc})") from None
    if not found:
        click.echo(f"No failed run of {', '.join(trails)} in the run history.")
        return
    for i, (_, _, text) in enumerate(found):
        if i:
            click.echo("")
        click.echo(terminal_text(text), nl=False)  # what the store holds came from trails, apps and tools


def _default_path() -> Path:
    from ..config import find_workspace
    from ..results.store import DEFAULT_RELATIVE

    root = find_workspace(Path.cwd())
    return root / DEFAULT_RELATIVE if root is not None else Path.cwd() / "logs" / "reports" / "results.db"


def _secs(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f} s"
