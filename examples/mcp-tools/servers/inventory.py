"""An example MCP tool server in Python (official ``mcp`` SDK), run by Trailblaze as a subprocess.

Trailblaze starts it once per session (``python inventory.py``, working directory = this folder), talks
MCP over stdin/stdout, and stops it when the session ends. Log to stderr: stdout is the protocol.

Three kinds of tools:

* ``mcpdemo_addItem`` / ``mcpdemo_countItems``: plain tools; ``addItem`` also writes session memory
  through ``_meta.trailblaze.memoryDelta``.
* ``mcpdemo_restock``: a *delegating* tool. It does nothing itself; it returns ``_trailblaze_delegates``,
  Trailblaze runs those calls and records them (not the wrapper), so a replay needs no server logic.
* ``mcpdemo_auditInventory``: calls Trailblaze back (``TrailblazeClient.from_context``) to run other
  tools in the same session, then returns a summary.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent
from trailblaze_mcp_subprocess.client import TrailblazeClient, memory_result

app = MCPServer("mcpdemo-inventory", version="1.0.0")
TOOLSET = {"trailblaze/toolset": "mcpdemo_inventory"}
stock: dict[str, int] = {}


@app.tool(name="mcpdemo_addItem", description="Add some quantity of an item to the inventory.", meta=TOOLSET)
async def add_item(name: str, quantity: int = 1) -> CallToolResult:
    stock[name] = stock.get(name, 0) + quantity
    text = f"{name}: {stock[name]}"
    print(f"inventory: {text}", file=sys.stderr, flush=True)
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          _meta=memory_result(delta={"lastItem": name}))


@app.tool(name="mcpdemo_countItems", description="How many units of every item are in stock.", meta=TOOLSET)
async def count_items() -> CallToolResult:
    total = sum(stock.values())
    return CallToolResult(content=[TextContent(type="text", text=f"{total} units")],
                          structured_content={"total": total, "items": dict(stock)})


@app.tool(name="mcpdemo_restock", description="Restock several items (one unit each).",
          meta={**TOOLSET, "trailblaze/isRecordable": False})
async def restock(names: list[str]) -> dict:
    return {"_trailblaze_delegates": [{"tool": "mcpdemo_addItem", "args": {"name": n, "quantity": 1}}
                                      for n in names]}


@app.tool(name="mcpdemo_auditInventory", description="Count the stock through Trailblaze and remember the total.",
          meta=TOOLSET)
async def audit_inventory(ctx: Context) -> str:
    tb = TrailblazeClient.from_context(ctx)
    counted = await tb.call_tool("mcpdemo_countItems")
    await tb.remember("auditTotal", str(counted.structured["total"]))
    return f"audited in session {tb.session_id}: {counted.text}"


if __name__ == "__main__":
    app.run()
