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


def debug_flag() -> bool:
    """``trailblaze --debug`` was given: commands pass it on to the run (``TRAILBLAZE_DEBUG=1`` only adds
    tracebacks to errors)."""
    return bool(click.get_current_context().find_root().params.get("debug"))


def handle_errors(fn: F) -> F:
    """Turn our errors into one line and an exit code; tracebacks only with ``--debug``."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from ..errors import ExitCode, TrailblazeError
        from ..untrusted import terminal_text  # messages quote file names, pages and programs

        debug = debug_flag() or os.environ.get("TRAILBLAZE_DEBUG") == "1"
        try:
            return fn(*args, **kwargs)
        except TrailblazeError as exc:
            if debug:
                traceback.print_exc()
            click.echo(terminal_text(f"trailblaze: error: {exc}"), err=True)
            sys.exit(int(exc.exit_code))
        except KeyboardInterrupt:
            click.echo("trailblaze: interrupted", err=True)
            sys.exit(int(ExitCode.INFRASTRUCTURE))
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001
            if debug:
                traceback.print_exc()
            click.echo(terminal_text(f"trailblaze: internal error: {type(exc).__name__}: {exc} "
                                     "(run with --debug for the traceback)"), err=True)
            sys.exit(int(ExitCode.INFRASTRUCTURE))

    return wrapper  # type: ignore[return-value]
