"""What every ``trailblaze`` command shares: its help settings and the one way errors become exit codes.

It sits below ``cli.py`` (which registers the commands) and below every command module, so a command
never imports the group that registers it. Importing it costs click only: ``trailblaze --version``
stays fast.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


_DEBUG_KEY = "trailblaze.debug"


def set_debug(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """The ``--debug`` flag's callback, at the root and after every subcommand."""
    if value:
        ctx.meta[_DEBUG_KEY] = True  # ``meta`` is shared by the whole context chain


def enable_debug() -> None:
    """Turn the tracebacks on for this command line, as ``--debug`` does (upstream's ``run -v``)."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta[_DEBUG_KEY] = True


def debug_flag() -> bool:
    """``--debug`` given anywhere on the command line (``trailblaze --debug run …`` or ``trailblaze run
    … --debug``), or ``TRAILBLAZE_DEBUG=1``: print the tracebacks behind errors (commands pass it on
    to the run, which prints those behind each trail's one-line error)."""
    ctx = click.get_current_context(silent=True)
    return os.environ.get("TRAILBLAZE_DEBUG") == "1" or bool(ctx is not None and ctx.meta.get(_DEBUG_KEY))


def accept_debug(command: click.Command) -> click.Command:
    """Give ``command`` (and, for a group, its subcommands) the ``--debug`` flag, so it works after
    the subcommand as before it; the group adds it to every command it hands out, plugins' included."""
    if not any("--debug" in getattr(p, "opts", ()) for p in command.params):
        command.params.append(click.Option(["--debug"], is_flag=True, expose_value=False, callback=set_debug,
                                           help="Print Python tracebacks for errors (also TRAILBLAZE_DEBUG=1)."))
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            accept_debug(sub)
    return command


def handle_errors(fn: F) -> F:
    """Turn our errors into one line and an exit code; tracebacks only with ``--debug``."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from ..errors import ExitCode, TrailblazeError
        from ..untrusted import MAX_OUTPUT_CHARS, terminal_text  # messages quote file names, pages, programs

        try:
            return fn(*args, **kwargs)
        except TrailblazeError as exc:
            if debug_flag():  # read now: the command may have turned it on (upstream's run -v)
                traceback.print_exc()
            click.echo(terminal_text(f"trailblaze: error: {exc}", limit=MAX_OUTPUT_CHARS), err=True)
            sys.exit(int(exc.exit_code))
        except KeyboardInterrupt:
            click.echo("trailblaze: interrupted", err=True)
            sys.exit(int(ExitCode.INFRASTRUCTURE))
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001
            if debug_flag():
                traceback.print_exc()
            click.echo(terminal_text(f"trailblaze: internal error: {type(exc).__name__}: {exc} "
                                     "(run with --debug for the traceback)"), err=True)
            sys.exit(int(ExitCode.INFRASTRUCTURE))

    return wrapper  # type: ignore[return-value]
