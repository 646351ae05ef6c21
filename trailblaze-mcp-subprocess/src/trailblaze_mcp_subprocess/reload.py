"""``reloadTools``: re-read the tool lists of a running session's servers (Decision 029)."""

from __future__ import annotations

from trailblaze import Tool, ToolContext, ToolResult, session_of


class ReloadToolsTool(Tool):
    """Re-read the tool lists of this session's MCP tool servers and update the available tools.

    Use it after a tool server added or removed tools while the session runs. Returns the names added
    and removed and the total number of tools.
    """

    name = "reloadTools"
    is_recordable = False
    requires_host = True
    toolsets = ("meta",)

    def execute(self, ctx: ToolContext) -> ToolResult:
        from .servers import state_of

        state = state_of(session_of(ctx))
        if state is None:
            total = len(ctx.session.registry)
            return ToolResult.ok(f"no MCP tool servers in this session; {total} tools",
                                 {"added": [], "removed": [], "total": total})
        result = state.reload()
        return ToolResult.ok(
            f"added {len(result['added'])} ({', '.join(result['added']) or 'none'}), removed "
            f"{len(result['removed'])} ({', '.join(result['removed']) or 'none'}); {result['total']} tools", result)
