"""``trailblaze tools``: the toolbox, every tool a trail or the agent can call, with its source."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .shared import CONTEXT_SETTINGS, handle_errors


@click.command("tools", context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (descriptors and sources).")
@click.option("--driver", metavar="NAME", help="Only tools that run on this driver (and the toolsets it enables).")
@click.option("--target", metavar="ID", help="Only tools of this target's toolsets (trailmaps).")
@click.option("--search", "-s", metavar="TEXT", help="Only tools whose name or description contains TEXT.")
@click.option("--all", "show_all", is_flag=True, help="Include tools hidden from the model (recording-only).")
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False), help="Workspace directory (default: found from the current directory).")
@handle_errors
def command(as_json: bool, driver: str | None, target: str | None, search: str | None, show_all: bool,
          workspace: Path | None) -> None:
    """List the toolbox: every tool a trail or the agent can call, with its source.

    \b
    Examples:
      trailblaze tools --driver playwright-native
      trailblaze tools --search tap --json
    """
    import json

    from ..errors import ExitCode, PluginToolError
    from ..listings.toolbox import list_toolbox

    broken: list[PluginToolError] = []
    entries = list_toolbox(driver=driver, target=target, search=search, include_hidden=show_all or bool(as_json),
                           workspace=workspace, unbuildable=broken.append)
    for error in broken:  # each broken tool on its own line; the others are listed, and the exit code is 2
        click.echo(f"trailblaze: error: {error.message}", err=True)
    if as_json:
        click.echo(json.dumps(entries, indent=2))
    elif not entries:
        click.echo("No tools match.")
    else:
        _print(entries)
    if broken:
        raise SystemExit(int(ExitCode.INFRASTRUCTURE))


def _print(entries: list[dict[str, Any]]) -> None:
    for e in entries:
        flags = []
        if not e["surfaceToLlm"]:
            flags.append("recording-only")
        if e["isVerification"]:
            flags.append("verification")
        if e["requiresHost"]:
            flags.append("host")
        flag_text = f" [{', '.join(flags)}]" if flags else ""
        click.echo(f"{e['name']}{flag_text}  — {e['source']}")
        desc = (e["description"] or "").strip().splitlines()
        if desc:
            click.echo(f"    {desc[0][:110]}")
