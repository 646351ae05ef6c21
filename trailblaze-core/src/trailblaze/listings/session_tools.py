"""Which tools a session offers: for the agent's model, the MCP server's client and ``trailblaze tools``.

The agent (below the runner) and the listings (above it) both ask, so the answer stands below both.
"""

from __future__ import annotations

from ..session import Session
from ..tools.base import ToolDefinition


def session_tools(session: Session, *, for_llm: bool = False,
                  verification_only: bool = False) -> list[ToolDefinition]:
    """The tools this session offers: supported by its driver, narrowed by plugins (toolsets)."""
    device = session.device
    any_device = device.driver == "any"
    tools = session.registry.for_device(driver=None if any_device else device.driver,
                                        platform=None if any_device else device.platform)
    if for_llm:
        tools = [t for t in tools if t.surface_to_llm]
    if verification_only:
        tools = [t for t in tools if t.is_verification]
    return session.host.filter_tools(session, tools)


__all__ = ["session_tools"]
