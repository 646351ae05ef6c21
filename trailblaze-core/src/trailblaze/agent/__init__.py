"""The LLM agent: solves steps that have no recording, and generates the recordings to save back.

The runner calls ``solve_step(session, step, trail=..., options=..., self_heal=...)``; see ``loop.py``
for the loop, ``recording.py`` for recording generation and ``docs/agent.md`` for the user's view.
Importing this package imports no LLM client: providers import theirs on the first request.

The names below resolve lazily (``_LAZY``: the module each comes from): the host loads the core plugin
``trailblaze.agent.agent_client``, which runs this ``__init__`` first, and a command that never runs the
agent (``merge-reports``, ``--help``) must not pay for the loop and the session it imports. The same
names are imported under ``TYPE_CHECKING``, so type checkers see every export.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .loop import (LlmNotConfiguredError, StepAgent, StepSolveResult, needs_llm_message, offered_tools,
                       solve_step, tool_specs)
    from .model_calls import AgentState, agent_state
    from .recording import (recording_from_executed, recording_trail_yaml, recordings_from_executed,
                            recordings_from_logs)

__all__ = ["AgentState", "LlmNotConfiguredError", "StepAgent", "StepSolveResult", "agent_state", "needs_llm_message",
           "offered_tools", "recording_from_executed", "recording_trail_yaml", "recordings_from_executed",
           "recordings_from_logs", "solve_step", "tool_specs"]

_LAZY = {
    **dict.fromkeys(("LlmNotConfiguredError", "StepAgent", "StepSolveResult", "needs_llm_message", "offered_tools",
                     "solve_step", "tool_specs"), ".loop"),
    **dict.fromkeys(("AgentState", "agent_state"), ".model_calls"),
    **dict.fromkeys(("recording_from_executed", "recording_trail_yaml", "recordings_from_executed",
                     "recordings_from_logs"), ".recording"),
}


if not TYPE_CHECKING:  # hidden from type checkers, so a name outside __all__ is an error there, not Any
    from .._lazy import lazy_attributes

    __getattr__ = lazy_attributes(__name__, _LAZY)
