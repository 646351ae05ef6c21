"""The LLM agent: solves steps that have no recording, and generates the recordings to save back.

The runner calls ``solve_step(session, step, trail=..., options=..., self_heal=...)``; see ``loop.py``
for the loop, ``recording.py`` for recording generation and ``docs/agent.md`` for the user's view.
Importing this package imports no LLM client: providers import theirs on the first request.
"""

from __future__ import annotations

from .loop import (LlmNotConfiguredError, StepAgent, StepSolveResult, needs_llm_message, offered_tools,
                   solve_step, tool_specs)
from .model_calls import AgentState, agent_state
from .recording import (recording_from_executed, recording_trail_yaml, recordings_from_executed,
                        recordings_from_logs)

__all__ = ["AgentState", "LlmNotConfiguredError", "StepAgent", "StepSolveResult", "agent_state", "needs_llm_message",
           "offered_tools", "recording_from_executed", "recording_trail_yaml", "recordings_from_executed",
           "recordings_from_logs", "solve_step", "tool_specs"]
