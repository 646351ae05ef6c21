"""``trailblaze tool TOOL_NAME [KEY=VALUE]...``: one tool call on a live session, as an agent makes it.

The call goes through the session's dispatcher and is recorded like a ``trailblaze mcp`` tool call, so
``session save`` writes it as a replayable step. Output is the tool's own one-line answer: an agent
reads a few dozen tokens per action instead of a tool list and a JSON envelope.
"""

from __future__ import annotations

import click


def make_command() -> click.Command:
    from .session_options import parse_driver_options
    from .shared import CONTEXT_SETTINGS, handle_errors
    from .session import finish, session_option

    @click.command("tool", context_settings=CONTEXT_SETTINGS)
    @click.argument("tool_name")
    @click.argument("arguments", nargs=-1)
    @click.option("--args", "args_text", metavar="YAML",
                  help="The arguments as one YAML/JSON map (before KEY=VALUE).")
    @click.option("--step", "step_text", metavar="TEXT",
                  help="The step text the call is saved under (default: what the tool said it did).")
    @handle_errors
    def tool(tool_name: str, arguments: tuple[str, ...], args_text: str | None, step_text: str | None,
             session_name: str | None) -> None:
        """Call TOOL_NAME once on a live session; ARGUMENTS are KEY=VALUE (YAML values, dotted keys nest).

        Exit 0 when the tool succeeded, 1 when it failed (its message says why), 3 for an unknown tool
        or bad arguments.

        \b
        Examples:
          trailblaze tool web_click ref=e12 --session shop
          trailblaze tool web_type ref='textbox "Email"' text=hiker@example.com --session shop
          trailblaze tool web_fillSecret ref='textbox "Password"' value='{{password}}' --session shop
        """
        from ..errors import BadInputError
        from ..live.protocol import request
        from ..yamlio import load_fast

        if not session_name:
            raise BadInputError("trailblaze tool acts on a live session: pass --session NAME",
                                hint="start one with: trailblaze session start --name NAME --url URL")
        args: dict[str, object] = {}
        if args_text:
            loaded = load_fast(args_text, "--args")
            if not isinstance(loaded, dict):
                raise BadInputError("--args must be a map, e.g. --args '{ref: e12}'")
            args.update(loaded)
        args.update(parse_driver_options(arguments))
        finish(request(session_name, "tool", {"name": tool_name, "args": args, "step": step_text}))

    tool.params.append(session_option())
    return tool


command = make_command()
