"""``trailblaze session start|stop|list|save``: a browser or device kept open between CLI calls.

A person or a coding agent looks (``snapshot --session``), acts (``tool``, ``step``, ``verify`` with
``--session``) and saves what it did as a trail, each a separate short process, while the device stays
where the last call left it. See docs/recording.md.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from ..live.protocol import Reply

SESSION_ENV = "TRAILBLAZE_SESSION"


def session_option() -> click.Option:
    """``--session NAME`` of the commands that can act on a live session (default: $TRAILBLAZE_SESSION)."""
    return click.Option(["--session", "session_name"], metavar="NAME", envvar=SESSION_ENV,
                        help=f"Act on the live session NAME (trailblaze session start) instead of starting a "
                             f"device; default ${SESSION_ENV}.")


def make_command() -> click.Group:
    from .session_options import session_options, session_values
    from .shared import CONTEXT_SETTINGS, handle_errors

    @click.group("session", context_settings=CONTEXT_SETTINGS)
    def session() -> None:
        """Keep a browser or device open between commands (for agents and for writing trails by hand).

        \b
        Examples:
          trailblaze session start --name shop --url /
          trailblaze snapshot --session shop
          trailblaze tool web_click ref='button "Sign in"' --session shop
          trailblaze verify "Signed in" --session shop --tools '[{web_verifyTextVisible: {text: Welcome}}]'
          trailblaze session save --name shop trails/sign-in.trail.yaml
          trailblaze session stop --name shop
        """

    @session.command("start", context_settings=CONTEXT_SETTINGS)
    @click.option("--name", required=True, help="The session's name (one session per name and user).")
    @click.option("--url", metavar="URL",
                  help="Open this page first (web: relative to the base URL; recorded).")
    @session_options("session")
    @click.option("--idle-timeout", type=click.FloatRange(1, 86_400), default=1800, show_default=True,
                  metavar="SECONDS", help="Stop by itself after this long without a command.")
    @click.option("--allow-host-tools", is_flag=True, help="Allow host-only tools (exec, android_adbShell).")
    @handle_errors
    def start(name: str, url: str | None, idle_timeout: float, allow_host_tools: bool, **params: Any) -> None:
        """Start a live session NAME in the background and return once it is ready."""
        from ..live import launcher
        from ..live.server import SessionConfig

        values = session_values("session", params)
        for key in ("workspace", "output_dir"):  # the session process may run elsewhere: absolute paths
            values[key] = str(values[key].resolve()) if values[key] else None
        values["setup"] = [str(Path(p).resolve()) for p in values["setup"]]
        config = SessionConfig(name=name, idle_timeout_s=idle_timeout, url=url,
                               allow_host_tools=allow_host_tools, **values)
        state = launcher.start(config)
        where = f" at {state['url']}" if state.get("url") else ""
        click.echo(f"Session {name} started: {state.get('driver')}{where} (pid {state['pid']}; stops after "
                   f"{idle_timeout:g} s idle)")

    @session.command("stop", context_settings=CONTEXT_SETTINGS)
    @click.option("--name", required=True, help="The session to stop.")
    @handle_errors
    def stop(name: str) -> None:
        """Stop a live session: its device is closed and its process ends."""
        from ..live import launcher

        click.echo(launcher.stop(name))

    @session.command("list", context_settings=CONTEXT_SETTINGS)
    @click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
    @handle_errors
    def list_(as_json: bool) -> None:
        """List this user's live sessions."""
        from ..live.registry import live_sessions

        sessions = [{k: s.get(k) for k in ("name", "pid", "driver", "platform", "url", "workspace", "started",
                                           "idleTimeoutS")} for s in live_sessions()]
        if as_json:
            click.echo(json.dumps(sessions, indent=2))
            return
        if not sessions:
            click.echo("No live sessions.")
            return
        for s in sessions:
            age = int(time.time() - float(s["started"] or 0))
            click.echo(f"{s['name']}  {s['driver']}  pid {s['pid']}  up {age} s  {s['url'] or ''}".rstrip())

    @session.command("save", context_settings=CONTEXT_SETTINGS)
    @click.option("--name", required=True, help="The session whose actions to save.")
    @click.argument("path", type=click.Path(path_type=Path, dir_okay=False))
    @handle_errors
    def save(name: str, path: Path) -> None:
        """Write what was done in the session since the last save as a trail at PATH (NAME.trail.yaml):
        created with a config naming the driver, or appended to."""
        from ..live.protocol import request

        reply = request(name, "save", {"path": str(path.expanduser().resolve())})
        finish(reply)

    return session


def session_step(kind: str, text: str, tools_text: str | None, session_name: str) -> None:
    """``trailblaze step|verify TEXT --session NAME [--tools YAML]``: the step on the live session, given
    as its tool calls (no model) or solved by the session's model; recorded under TEXT for ``save``."""
    from ..errors import BadInputError
    from ..live.protocol import request
    from ..yamlio import load_fast

    tools = None
    if tools_text:
        tools = load_fast(tools_text, "--tools")
        if isinstance(tools, dict):
            tools = [tools]
        if not isinstance(tools, list):
            raise BadInputError("--tools must be a YAML list of {toolName: {args}}")
    finish(request(session_name, "steps", {"kind": kind, "text": text, "tools": tools}))


def finish(reply: Reply) -> None:
    """Print a session's reply and end with its exit code (errors as one line on stderr). Both quote
    pages and programs: no escape sequence of theirs reaches the terminal, and an error is capped as
    files are (a tool's reply is capped by the session)."""
    import sys

    from ..untrusted import MAX_OUTPUT_CHARS, terminal_text

    if reply.output:
        click.echo(terminal_text(reply.output))
    if reply.error:
        hint = f" (hint: {reply.hint})" if reply.hint else ""
        click.echo(terminal_text(f"trailblaze: error: {reply.error}{hint}", limit=MAX_OUTPUT_CHARS), err=True)
    if reply.exit_code:
        sys.exit(reply.exit_code)


command = make_command()
