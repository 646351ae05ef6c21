"""Tools served by MCP servers."""
