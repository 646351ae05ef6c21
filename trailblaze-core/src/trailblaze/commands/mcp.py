"""``trailblaze mcp``: serve Trailblaze to coding agents over MCP. Importing this module imports click
only: the ``mcp`` SDK (~0.8 s), the server and the devices are loaded when the command runs."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from types import FrameType
from typing import Any

import click

from .session_options import session_options, session_values
from .shared import CONTEXT_SETTINGS, handle_errors

LOOPBACK = ("127.0.0.1", "::1", "localhost")
TOKEN_ENV = "TRAILBLAZE_MCP_TOKEN"


@click.command("mcp", context_settings=CONTEXT_SETTINGS)
@click.option("--http", "use_http", is_flag=True, help="Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="HTTP port (0: a free one, printed at start).")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP address to bind.")
@click.option("--allow-remote", is_flag=True, help="Allow --host to be a non-loopback address (other machines can "
              "then reach the server; they still need the token).")
@click.option("--token-file", type=click.Path(path_type=Path, dir_okay=False),
              help=f"Write the HTTP URL and bearer token to this file (mode 600). The token is random per start "
                   f"unless {TOKEN_ENV} is set.")
@click.option("--allow-host-tools", is_flag=True,
              help="Offer host-only tools (exec, android_adbShell): they run programs on this machine.")
@session_options("mcp")
@handle_errors
def command(use_http: bool, port: int, host: str, allow_remote: bool, token_file: Path | None, allow_host_tools: bool,
            **session: Any) -> None:
    """Serve Trailblaze to coding agents over MCP; what they do on a device becomes a replayable trail.

    Agents connect a browser or phone (`device`), read the screen (`snapshot`), act with the device's
    tools or natural-language `step`s, and `trail` SAVE writes a *.trail.yaml that `trailblaze run`
    replays with no model. stdio by default (one client); --http serves Streamable HTTP on 127.0.0.1
    with a bearer token. See docs/mcp-server.md for client configuration.

    \b
    Examples:
      trailblaze mcp                                   (in .mcp.json / mcp.json of your agent)
      trailblaze mcp --workspace examples/web-shop --secret password=secret123
      trailblaze mcp --http --port 8765 --token-file .trailblaze-mcp.json
    """
    from ..errors import BadInputError, InfrastructureError

    try:
        import mcp as _sdk  # noqa: F401 - fail early with the fix, before a device starts
    except ImportError:
        raise InfrastructureError("the MCP SDK is not installed",
                                  hint="pip install 'trailblaze[mcp]' (or: pip install 'mcp>=2.3,<3')") from None
    if use_http and host not in LOOPBACK and not allow_remote:
        raise BadInputError(f"--host {host} is not a loopback address",
                            hint="pass --allow-remote as well to serve other machines (they still need the token)")
    from ..mcp_server.workbench import McpSettings, Workbench

    settings = McpSettings(**session_values("mcp", session), allow_host_tools=allow_host_tools)
    workbench = Workbench(settings)
    _interrupt_on(signal.SIGTERM, signal.SIGHUP)
    interrupted = False
    try:
        if settings.device:  # upstream's mcp -d: the session starts pinned to that device
            workbench.submit(workbench.connect, device_id=settings.device).result()  # on the device thread
        if use_http:
            _run_http(workbench, host, port, token_file, allow_remote)
        else:
            import anyio

            from ..mcp_server.server import serve_stdio

            anyio.run(serve_stdio, workbench)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        for problem in workbench.close():
            click.echo(f"trailblaze mcp: warning: {problem}", err=True)
    if interrupted and not use_http:
        _exit_now()


def _run_http(workbench: Any, host: str, port: int, token_file: Path | None, allow_remote: bool) -> None:
    import secrets  # here: this module is imported by every `trailblaze` command, for `mcp`'s options
    import socket

    import anyio

    from ..mcp_server.server import serve_http

    token = os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(32)
    if len(token) < 16:
        from ..errors import BadInputError

        raise BadInputError(f"{TOKEN_ENV} is too short to be a secret (16 characters at least)")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        from ..errors import InfrastructureError

        raise InfrastructureError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(64)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}/mcp"
    if host not in LOOPBACK and allow_remote:
        click.echo(f"trailblaze mcp: warning: listening on {host}, reachable from other machines", err=True)
    if token_file is not None:
        from ..mcp_server.token_file import write_token_file

        write_token_file(token_file, {"url": url, "token": token,
                                      "headers": {"Authorization": f"Bearer {token}"}})
    click.echo(f"trailblaze mcp: Streamable HTTP on {url}", err=True)
    click.echo(f"trailblaze mcp: send the header  Authorization: Bearer {token}", err=True)
    try:
        anyio.run(serve_http, workbench, sock, token, host)
    finally:
        sock.close()


def _exit_now() -> None:
    """Leave after a signal, with the devices already stopped. A normal exit would wait for the SDK's
    stdin reader thread, blocked until the client closes the pipe (which a client that only signalled
    may never do); the exit handlers (a managed Appium server's shutdown) still run first."""
    import atexit
    import sys

    sys.stdout.flush()
    sys.stderr.flush()
    atexit._run_exitfuncs()
    os._exit(0)


def _interrupt_on(*signals: signal.Signals) -> None:
    """SIGTERM/SIGHUP end the server like Ctrl-C, so the devices are stopped on the way out."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    for sig in signals:
        try:
            signal.signal(sig, handler)
        except (ValueError, OSError):  # not the main thread (tests calling the command in-process)
            pass


__all__ = ["command"]
