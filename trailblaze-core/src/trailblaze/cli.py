"""The ``trailblaze`` command group: the root options, and the registration of every command.

The commands themselves live in ``trailblaze/commands/`` (one module each, see its ``__init__``);
plugins add theirs through ``trailblaze_register_commands`` and can never replace a built-in.
Start-up is kept cheap: ``trailblaze --version`` reads entry-point metadata only, a built-in command's
module is imported when that command is looked up, and plugins are loaded the first time a command
needs them (including to find a command a plugin adds). Every error a user
can cause ends as one line on stderr and an exit code (0 passed, 1 trail failed, 2 infrastructure,
3 bad input); ``--debug`` adds the traceback.
"""

from __future__ import annotations

import importlib

import click

from ._version import version_text
from .commands.shared import CONTEXT_SETTINGS, accept_debug, set_debug

OUTPUT_COMMANDS = ("run", "merge-reports")
"""The commands that write a run's outputs: they take the plugins' output options (``trailblaze_output_options``)."""

BUILTIN_COMMANDS = ("check", "mcp", "merge-reports", "plan", "plugin", "plugins", "record", "results", "run",
                    "schema", "session", "skill", "snapshot", "step", "tool", "tools", "verify", "waypoint")
"""Every built-in command: ``command`` of the module ``trailblaze.commands.<name>``."""


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    click.echo(version_text())
    ctx.exit(0)


class _CommandGroup(click.Group):
    """Imports a built-in command's module on its first lookup and adds plugin commands when a name is
    not a built-in (or for ``--help``), so ``--version`` and each command load only what they use."""

    _plugins_host: object = None
    """The host whose plugins' commands were added; another process-wide host (tests swap hosts with
    ``installed_host``) gets its commands added on its first lookup."""

    def builtin(self, name: str) -> click.Command | None:
        if name not in BUILTIN_COMMANDS:
            return None
        command = self.commands.get(name)
        if command is None:
            command = importlib.import_module(f"{__package__}.commands.{name.replace('-', '_')}").command
            self.add_command(command, name)
        return command

    def _load_plugin_commands(self) -> None:
        from .plugins import get_host

        host = get_host()
        if self._plugins_host is host:
            return
        self._plugins_host = host
        for name in BUILTIN_COMMANDS:  # present before any plugin adds its own, so none is replaced
            self.builtin(name)
        try:
            host.register_commands(self)
        except Exception as exc:  # noqa: BLE001 - recovery commands must keep working
            click.echo(f"trailblaze: could not load plugin commands: {exc}", err=True)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = self.builtin(cmd_name) or super().get_command(ctx, cmd_name)
        if command is None:
            self._load_plugin_commands()
            command = super().get_command(ctx, cmd_name)
        if command is not None and cmd_name in OUTPUT_COMMANDS:
            self._add_output_options(command)
        return accept_debug(command) if command is not None else None

    @staticmethod
    def _add_output_options(command: click.Command) -> None:
        """The plugins' output options (``--ctrf PATH``) on a command that writes a run's outputs."""
        from .commands.output_options import add_output_options
        from .plugins import get_host

        try:
            add_output_options(command, get_host())
        except Exception as exc:  # noqa: BLE001 - the command itself must keep working
            click.echo(f"trailblaze: could not add the plugins' output options: {exc}", err=True)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_plugin_commands()
        return super().list_commands(ctx)


@click.group(cls=_CommandGroup, context_settings=CONTEXT_SETTINGS)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version of trailblaze and of every installed plugin, then exit.")
@click.option("--debug", is_flag=True, expose_value=False, callback=set_debug,
              help="Print Python tracebacks for errors (also TRAILBLAZE_DEBUG=1; after the subcommand too).")
def cli() -> None:
    """Trailblaze: AI-driven UI testing with recorded, replayable trails.

    A trail is a YAML file of natural-language steps, each with optional per-device recordings of
    tool calls. `trailblaze run` replays the recordings on a real browser or device (and hands
    unrecorded steps to an LLM agent when one is configured).

    \b
    Start here:
      trailblaze run examples/web-shop/trails     run trails (files, directories or globs)
      trailblaze tools --driver playwright-native list the tools a trail can call
      trailblaze check trails/                    validate trails and tool definitions
      trailblaze snapshot --url URL | -d android  what the agent sees on a page or screen
      trailblaze plugins                          list installed plugins and their status

    Exit codes: 0 passed, 1 a trail failed, 2 infrastructure failure, 3 bad input or usage.
    """


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    cli.main(args=argv, prog_name="trailblaze")


if __name__ == "__main__":
    main()
