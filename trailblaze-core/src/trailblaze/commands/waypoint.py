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

from typing import TYPE_CHECKING

import click

from ..errors import BadInputError, ExitCode

if TYPE_CHECKING:
    from ..config import WorkspaceConfig


def _workspace(workspace: Path | None) -> WorkspaceConfig:
    from ..config import find_workspace, load_workspace

    return load_workspace(workspace.resolve() if workspace else find_workspace(None))


def run_list(workspace: Path | None, as_json: bool) -> int:
    from ..waypoints import load_workspace_waypoints

    found = load_workspace_waypoints(_workspace(workspace))
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
    from ..waypoints import WaypointFileError, discover, load_file, load_workspace_waypoints

    if paths:
        files: list[Path] = []
        for p in paths:
            files.extend(discover(p) if p.is_dir() else [p])
        errors: list[WaypointFileError] = []
        count = 0
        for f in files:
            try:
                load_file(f)
                count += 1
            except BadInputError as exc:
                errors.append(exc if isinstance(exc, WaypointFileError) else WaypointFileError(str(exc)))
    else:
        found = load_workspace_waypoints(_workspace(workspace))
        count, errors = len(found.by_id), found.errors
    for error in errors:
        click.echo(f"error: {error}", err=True)
    click.echo(f"{count} waypoint(s) valid, {len(errors)} error(s)")
    return int(ExitCode.BAD_INPUT) if errors else 0


def run_locate(*, driver: str | None, device: str | None, driver_options: dict[str, object], url: str | None,
               headed: bool, workspace: Path | None, as_json: bool) -> int:
    """Open the device (as ``trailblaze snapshot`` does) and name the waypoints its screen matches."""
    from ..runner.lifecycle import SessionFactory
    from ..runner.options import RunOptions
    from ..session import SessionOutcome
    from ..waypoints import device_classifiers, load_workspace_waypoints, match
    from .snapshot import choose_driver

    options = RunOptions(driver=driver, driver_options=dict(driver_options), headed=headed, logging=False,
                         report=False, save_recording=False, test_name="waypoint-locate")
    factory = SessionFactory(options)
    ws = factory.workspace_for(workspace.resolve() if workspace else None)
    if ws.error is not None:
        raise ws.error
    found = load_workspace_waypoints(ws.config)
    for error in found.errors:
        click.echo(f"error: {error}", err=True)
    dev = factory.parse_device(device) if device else None
    cls = factory.pick_driver(ws.config, dev, fallback=None) or choose_driver(factory.drivers, url)
    with factory.open(workspace=ws, driver=cls, device=dev) as lifecycle:
        session = lifecycle.session
        drv = session.driver
        assert drv is not None
        if url:
            drv.open_url(url)
        classifiers = device_classifiers(session.device)
        results = [match(w, drv, classifiers) for w in found.by_id.values()]
        lifecycle.outcome = SessionOutcome.SUCCEEDED
    matched = [r.waypoint for r in results if r.matched]
    if as_json:
        click.echo(json.dumps({"matched": matched, "checked": [
            {"id": r.waypoint, "matched": r.matched, "why": None if r.matched else r.explain()} for r in results]},
            indent=2))
    else:
        for r in results:
            click.echo(f"{'✓' if r.matched else '✗'} {r.waypoint}" + ("" if r.matched else f"  ({r.explain()})"))
        click.echo(f"matches: {', '.join(matched) if matched else 'none'}")
    return 0 if matched else int(ExitCode.TRAIL_FAILED)


def make_command() -> click.Group:
    """The ``waypoint`` group (built on demand: ``cli`` imports this module while it is loading)."""
    from ..cli import CONTEXT_SETTINGS, handle_errors, parse_driver_options

    workspace_option = click.option("--workspace", type=click.Path(path_type=Path, file_okay=False),
                                    help="Workspace root (default: found from the current directory).")

    @click.group(context_settings=CONTEXT_SETTINGS)
    def waypoint() -> None:
        """Waypoints: named places of the app (*.waypoint.yaml under trails/config/).

        \b
        Examples:
          trailblaze waypoint list
          trailblaze waypoint validate trails/config/trailmaps/shop/waypoints
          trailblaze waypoint locate --url http://127.0.0.1:8000/cart.html
        """

    @waypoint.command("list", context_settings=CONTEXT_SETTINGS)
    @click.option("--json", "as_json", is_flag=True, help="Print JSON.")
    @workspace_option
    @handle_errors
    def list_command(as_json: bool, workspace: Path | None) -> None:
        """List the workspace's waypoints with the device classifiers they describe."""
        sys.exit(run_list(workspace, as_json))

    @waypoint.command("validate", context_settings=CONTEXT_SETTINGS)
    @click.argument("paths", nargs=-1, type=click.Path(path_type=Path, exists=True))
    @workspace_option
    @handle_errors
    def validate_command(paths: tuple[Path, ...], workspace: Path | None) -> None:
        """Load waypoint files (given, or all of the workspace) and report each error as file:line (exit 3)."""
        sys.exit(run_validate(paths, workspace))

    @waypoint.command("locate", context_settings=CONTEXT_SETTINGS)
    @click.option("--driver", metavar="NAME", help="Driver key, as for `snapshot`.")
    @click.option("-d", "--device", metavar="PLATFORM[/ID]", help="Device to look at, as for `run`.")
    @click.option("-o", "--driver-option", "driver_options", multiple=True, metavar="KEY=VALUE",
                  help="Driver setting (repeatable).")
    @click.option("--url", metavar="URL", help="Open this page or deep link first.")
    @click.option("--headed", is_flag=True, help="Show the browser window.")
    @click.option("--json", "as_json", is_flag=True, help="Print JSON.")
    @workspace_option
    @handle_errors
    def locate_command(driver: str | None, device: str | None, driver_options: tuple[str, ...], url: str | None,
                       headed: bool, as_json: bool, workspace: Path | None) -> None:
        """Name the waypoints the current screen matches (exit 1 when none does)."""
        sys.exit(run_locate(driver=driver, device=device, driver_options=parse_driver_options(driver_options),
                            url=url, headed=headed, workspace=workspace, as_json=as_json))

    return waypoint
