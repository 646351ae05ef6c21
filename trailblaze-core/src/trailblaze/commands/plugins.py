"""``trailblaze plugins``: the installed plugins, their hooks and status (works while one is broken)."""

from __future__ import annotations

import click

from .shared import CONTEXT_SETTINGS, handle_errors


@click.command("plugins", context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--all", "show_all", is_flag=True, help="Include the core's built-in plugins (always in --json).")
@click.option("--hook", metavar="NAME", help="Only plugins implementing this hook (built-ins included).")
@handle_errors
def command(as_json: bool, show_all: bool, hook: str | None) -> None:
    """List installed plugins with version, hooks and status.

    Works even when a plugin is broken: its status says why (and how to disable it). Each plugin's
    discovery hooks run and every tool it registers is built, so a plugin whose tool model cannot be
    built, or whose tool names are invalid or taken, shows as an error here.
    """
    import json

    from ..plugins import get_host

    host = get_host()
    host.probe()
    infos = host.plugins(include_builtins=show_all or as_json or bool(hook))
    if hook:
        infos = [i for i in infos if hook in i.hooks]
    if as_json:
        click.echo(json.dumps([i.to_json() for i in infos], indent=2))
        return
    if not infos:
        click.echo("No plugins installed." + ("" if show_all else " (use --all to include built-ins)"))
        return
    for info in infos:
        version = f" {info.version}" if info.version else ""
        dist = f" ({info.distribution}{version})" if info.distribution else ""
        click.echo(f"{info.name}{dist}: {info.status}")
        if info.hooks:
            click.echo(f"    hooks: {', '.join(info.hooks)}")
        for warning in info.warnings:
            click.echo(f"    warning: {warning}")
