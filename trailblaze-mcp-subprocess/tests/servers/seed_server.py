"""A script server declared by a `script:` tool file: serves the declared tool and one more."""

from mcp.server.mcpserver import MCPServer

app = MCPServer("seed")


@app.tool(name="shop_seedDatabase", description="Seed the example shop database.")
async def seed(rows: int = 10) -> str:
    return f"seeded {rows} rows"


@app.tool(name="shop_countRows", description="Count rows.")
async def count() -> str:
    return "0 rows"


if __name__ == "__main__":
    app.run()
