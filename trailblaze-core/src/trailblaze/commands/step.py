"""``trailblaze step|verify TEXT --session NAME``: one named step on a live session.

With ``--tools`` the step is those tool calls (no model); without, the session's model solves it as
``trailblaze run`` would. Either way it is recorded under TEXT for ``session save``.
"""

from __future__ import annotations

from typing import Literal

import click


def make_commands() -> list[click.Command]:
    from ..cli import CONTEXT_SETTINGS, handle_errors
    from .session import finish, session_option

    def build(kind: Literal["step", "verify"]) -> click.Command:
        what = "Do" if kind == "step" else "Check"

        @click.command(kind, context_settings=CONTEXT_SETTINGS, help=f"""{what} TEXT on a live session (--session).

        --tools gives the step's tool calls as a YAML list ([{{web_click: {{ref: e12}}}}]); without it the
        session's model (session start --llm) solves TEXT. The step is recorded for `session save`.
        {'A verify step accepts verification tools only.' if kind == 'verify' else ''}
        Exit 0 passed, 1 failed, 3 bad input.""")
        @click.argument("text")
        @click.option("--tools", "tools_text", metavar="YAML", help="The tool calls, as a YAML/JSON list.")
        @handle_errors
        def command(text: str, tools_text: str | None, session_name: str | None) -> None:
            from ..errors import BadInputError
            from ..live.protocol import request
            from ..yamlio import load_fast

            if not session_name:
                raise BadInputError(f"trailblaze {kind} acts on a live session: pass --session NAME",
                                    hint="start one with: trailblaze session start --name NAME --url URL")
            tools = None
            if tools_text:
                tools = load_fast(tools_text, "--tools")
                if isinstance(tools, dict):
                    tools = [tools]
                if not isinstance(tools, list):
                    raise BadInputError("--tools must be a YAML list of {toolName: {args}}")
            finish(request(session_name, "steps", {"kind": kind, "text": text, "tools": tools}))

        command.params.append(session_option())
        return command

    return [build("step"), build("verify")]
