"""``trailblaze plugin new NAME``: start a third-party plugin from a template that works as generated."""

from __future__ import annotations

from pathlib import Path

import click

from .shared import CONTEXT_SETTINGS, handle_errors


@click.group(name="plugin", context_settings=CONTEXT_SETTINGS)
def command() -> None:
    """Write Trailblaze plugins (see docs/writing-a-plugin.md)."""


@command.command(name="new", context_settings=CONTEXT_SETTINGS)
@click.argument("name")
@click.option("--kind", type=click.Choice(["tools", "output", "hooks"]), default="tools", show_default=True,
              help="tools: a class tool and a YAML tool; output: a file per run (run-output hooks); "
                   "hooks: per-session work (session_started/finished), no tools.")
@click.option("--driver", "with_driver", is_flag=True,
              help="Also generate an example driver (Driver[Config]); --kind tools only.")
@click.option("--output-dir", "-o", type=click.Path(path_type=Path, file_okay=False),
              help="Where to write it (default: ./trailblaze-NAME); must not exist or be empty.")
@handle_errors
def new(name: str, kind: str, with_driver: bool, output_dir: Path | None) -> None:
    """Generate a working plugin NAME (lower-case words joined by '-', e.g. acme-shop; a leading
    'trailblaze-' is dropped, the distribution adds it).

    \b
    --kind tools (default): a class tool, a YAML tool in a packaged trailmap, optionally a driver.
    --kind output: writes a Markdown summary of every run (trailblaze_write_run_outputs).
    --kind hooks: records each session's outcome (trailblaze_session_started/finished).
    Every kind has an example trail, tests written with trailblaze.testing, a pyproject.toml
    registering the entry point, and a CI recipe (.github/workflows/test.yml) that runs the tests in a
    clean virtual environment.

    \b
    Example:
      trailblaze plugin new acme-shop --driver
      cd trailblaze-acme-shop && python -m venv .venv && .venv/bin/pip install '.[test]' && .venv/bin/python -m pytest
    """
    from .plugin_template import plugin_names, write_plugin

    names = plugin_names(name)
    target = output_dir or Path.cwd() / names.dist
    files = write_plugin(names, target, driver=with_driver, kind=kind)
    what = {"tools": f"tools {names.prefix}_greet and {names.prefix}_greetTwice"
                     + (f", driver {names.name}-device" if with_driver else ""),
            "output": f"run output reports/{names.prefix}_summary_*.md",
            "hooks": f"session hooks writing {names.prefix}_session.json"}[kind]
    click.echo(f"Created {names.dist} in {target} ({len(files)} files): entry point '{names.prefix}', {what}")
    click.echo(f"Next: cd {target} && python -m venv .venv && .venv/bin/pip install '.[test]' "
               "&& .venv/bin/python -m pytest")
