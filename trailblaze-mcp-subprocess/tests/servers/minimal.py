"""The smallest useful server (one tool, no resources): what the benchmarks start and call."""

from mcp.server.mcpserver import MCPServer

app = MCPServer("minimal")


@app.tool(name="min_echo", description="Echo a text back.")
async def echo(text: str) -> str:
    return text


if __name__ == "__main__":
    app.run()
