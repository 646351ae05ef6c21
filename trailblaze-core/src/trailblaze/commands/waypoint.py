"""``trailblaze waypoint list|validate|locate``: the workspace's waypoints, checked and found on a screen.

Upstream has the same verbs (``WaypointListCommand.kt``, ``WaypointValidateCommand.kt``,
``WaypointLocateCommand.kt``); ``locate`` here opens the device the way ``trailblaze snapshot`` does
(same driver choice, ``-o``, ``-d``, ``--url``) and names every waypoint whose block for that device
matches the live screen.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from typing import TYPE_CHECKING, Any

import click

from ..errors import BadInputError, ExitCode, SourceLocation
from .session_options import session_options, session_values
from .shared import CONTEXT_SETTINGS, handle_errors
from .snapshot import SnapshotRequest

if TYPE_CHECKING:
    from ..config import WorkspaceConfig


def _workspace(workspace: Path | None) -> WorkspaceConfig:
    """The workspace config read as ``check`` reads it: the sections installed plugins claim (upstream's
    ``targets:``...) are known."""
    from ..config import find_workspace, load_workspace
    from ..plugins import get_host

    return load_workspace(workspace.resolve() if workspace else find_workspace(None), get_host())


def _warn(warnings: list[tuple[str, SourceLocation]]) -> None:
    for message, location in warnings:
        click.echo(f"warning: {location}: {message}", err=True)


def run_list(workspace: Path | None, as_json: bool) -> int:
    from ..waypoints.model import load_workspace_waypoints

    found = load_workspace_waypoints(_workspace(workspace))
    _warn(found.warnings)
    if as_json:
        click.echo(json.dumps([{"id": w.id, "description": w.description, "route": w.route,
                                "classifiers": sorted(w.blocks), "file": str(w.file)}
                               for w in found.by_id.values()], indent=2))
    else:
        for w in found.by_id.values():
            click.echo(f"{w.id}  [{', '.join(sorted(w.blocks)) or 'no blocks'}]" +
                       (f"  {w.description}" if w.description else ""))
        click.echo(f"{len(found.by_id)} waypoint(s)")
    for error in found.errors:
        click.echo(f"error: {error}", err=True)
    return int(ExitCode.BAD_INPUT) if found.errors else 0


def run_validate(paths: tuple[Path, ...], workspace: Path | None) -> int:
    from ..waypoints.model import WaypointFileError, discover, load_file, load_workspace_waypoints

    if paths:
        files: list[Path] = []
        for p in paths:
            files.extend(discover(p) if p.is_dir() else [p])
        errors: list[WaypointFileError] = []
        count = 0
        for f in files:
            try:
                _warn(load_file(f).warnings)
                count += 1
            except BadInputError as exc:
                errors.append(exc if isinstance(exc, WaypointFileError) else WaypointFileError(str(exc)))
    else:
        found = load_workspace_waypoints(_workspace(workspace))
        _warn(found.warnings)
        count, errors = len(found.by_id), found.errors
    for error in errors:
        click.echo(f"error: {error}", err=True)
    click.echo(f"{count} waypoint(s) valid, {len(errors)} error(s)")
    return int(ExitCode.BAD_INPUT) if errors else 0


def run_locate(request: SnapshotRequest, *, as_json: bool) -> int:
    """Open the device (as ``trailblaze snapshot`` does) and name the waypoints its screen matches."""
    from ..session import SessionOutcome
    from ..builtin.waypoint_tool import target_app_ids
    from ..waypoints.model import device_classifiers, load_workspace_waypoints, match
    from .snapshot import open_screen

    with open_screen(request, test_name="waypoint-locate") as lifecycle:
        session = lifecycle.session
        drv = session.driver
        assert drv is not None
        found = load_workspace_waypoints(session.workspace)  # its warnings: printed by the session's checks
        for error in found.errors:
            click.echo(f"error: {error}", err=True)
        classifiers = device_classifiers(session.device)
        app_ids = target_app_ids(session, session.device.platform)
        results = [match(w, drv, classifiers, app_ids=app_ids) for w in found.by_id.values()]
        lifecycle.outcome = SessionOutcome.SUCCEEDED
    matched = [r.waypoint for r in results if r.matched]
    if as_json:
        checked = [{"id": r.waypoint, "matched": r.matched, "why": None if r.matched else r.explain()}
                   for r in results]
        click.echo(json.dumps({"matched": matched, "checked": checked}, indent=2))
    else:
        for r in results:
            why = "" if r.matched else f"  ({r.explain()})"
            click.echo(f"{'✓' if r.matched else '✗'} {r.waypoint}{why}")
        click.echo(f"matches: {', '.join(matched) if matched else 'none'}")
    return 0  # a question, not an assertion: upstream's WaypointLocateCommand.kt ends with SUCCESS either way


_WORKSPACE = click.option("--workspace", type=click.Path(path_type=Path, file_okay=False),
                          help="Workspace root (default: found from the current directory).")


@click.group("waypoint", context_settings=CONTEXT_SETTINGS)
def command() -> None:
    """Waypoints: named places of the app (*.waypoint.yaml under trails/config/).

    \b
    Examples:
      trailblaze waypoint list
      trailblaze waypoint validate trails/config/trailmaps/shop/waypoints
      trailblaze waypoint locate --url http://127.0.0.1:8000/cart.html
    """


@command.command("list", context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@_WORKSPACE
@handle_errors
def list_command(as_json: bool, workspace: Path | None) -> None:
    """List the workspace's waypoints with the device classifiers they describe."""
    sys.exit(run_list(workspace, as_json))


@command.command("validate", context_settings=CONTEXT_SETTINGS)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path, exists=True))
@_WORKSPACE
@handle_errors
def validate_command(paths: tuple[Path, ...], workspace: Path | None) -> None:
    """Load waypoint files (given, or all of the workspace) and report each error as file:line (exit 3)."""
    sys.exit(run_validate(paths, workspace))


@command.command("locate", context_settings=CONTEXT_SETTINGS)
@session_options("snapshot")
@click.option("--url", metavar="URL", help="Open this page or deep link first.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@handle_errors
def locate_command(url: str | None, as_json: bool, **session: Any) -> None:
    """Name the waypoints the current page or screen matches (none is an answer too: exit 0).

    The device starts as for `trailblaze snapshot` (same driver choice and options)."""
    request = SnapshotRequest(**session_values("snapshot", session), url=url)
    sys.exit(run_locate(request, as_json=as_json))
