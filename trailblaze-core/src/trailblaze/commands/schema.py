"""``trailblaze schema``: JSON Schemas for editors, from the loader's own rules and the workspace's tools."""

from __future__ import annotations

from pathlib import Path

import click

from .shared import CONTEXT_SETTINGS, handle_errors


@click.command("schema", context_settings=CONTEXT_SETTINGS)
@click.argument("kind", required=False, type=click.Choice(["trail", "tool", "trailmap", "toolset", "workspace"]))
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False), metavar="DIR",
              help="Write <kind>.schema.json files here (every kind when KIND is not given).")
@click.option("--no-servers", is_flag=True, help="Do not start declared MCP tool servers (tool names nobody else "
              "serves are then allowed, untyped).")
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False), help="Workspace whose tools type the tool calls (default: found from the current directory).")
@handle_errors
def command(kind: str | None, out_dir: Path | None, no_servers: bool, workspace: Path | None) -> None:
    """Print or write JSON Schemas for editors (completion and checks while you type).

    The schemas come from the same rules the loader applies, and tool calls in trails and YAML tools are
    typed from this workspace's tools (see docs/editors.md).

    \b
    Examples:
      trailblaze schema trail > trail.schema.json
      trailblaze schema --out .vscode/schemas
    """
    from ..schemas import run_schema

    for line in run_schema(kind, out_dir, workspace=workspace, start_servers=not no_servers):
        click.echo(line)
