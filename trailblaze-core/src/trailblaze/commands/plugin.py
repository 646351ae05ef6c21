"""``trailblaze plugin new NAME``: start a third-party plugin from a template that works as generated."""

from __future__ import annotations

from pathlib import Path

import click


@click.group(name="plugin")
def plugin_group() -> None:
    """Write Trailblaze plugins (see docs/writing-a-plugin.md)."""


@plugin_group.command(name="new")
@click.argument("name")
@click.option("--driver", "with_driver", is_flag=True, help="Also generate an example driver (Driver[Config]).")
@click.option("--output-dir", "-o", type=click.Path(path_type=Path, file_okay=False),
              help="Where to write it (default: ./trailblaze-NAME); must not exist or be empty.")
def new(name: str, with_driver: bool, output_dir: Path | None) -> None:
    """Generate a working plugin NAME (lower-case words joined by '-', e.g. acme-shop).

    \b
    It holds a class tool, a YAML tool in a packaged trailmap, optionally a driver, an example trail,
    tests written with trailblaze.testing, a pyproject.toml registering the entry point, and a CI
    recipe (.github/workflows/test.yml) that runs the tests in a clean virtual environment.

    \b
    Example:
      trailblaze plugin new acme-shop --driver
      cd trailblaze-acme-shop && python -m venv .venv && .venv/bin/pip install '.[test]' && .venv/bin/python -m pytest
    """
    from ..cli import handle_errors
    from .plugin_template import plugin_names, write_plugin

    @handle_errors
    def generate() -> None:
        names = plugin_names(name)
        target = output_dir or Path.cwd() / names.dist
        files = write_plugin(names, target, driver=with_driver)
        click.echo(f"Created {names.dist} in {target} ({len(files)} files): entry point '{names.prefix}', "
                   f"tools {names.prefix}_greet and {names.prefix}_greetTwice"
                   + (f", driver {names.name}-device" if with_driver else ""))
        click.echo(f"Next: cd {target} && python -m venv .venv && .venv/bin/pip install '.[test]' "
                   "&& .venv/bin/python -m pytest")

    generate()
