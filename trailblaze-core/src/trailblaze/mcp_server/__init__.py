"""``trailblaze mcp``: Trailblaze as an MCP server for coding agents.

An agent (Claude Code, Cursor, VS Code, ...) connects a device, looks at it, acts on it through the
same tools and dispatcher a trail uses, and the calls it made become a trail that ``trailblaze run``
replays with no model. ``workbench`` holds the devices, the recording and the trail writing and knows
nothing of MCP; ``server`` maps it onto the protocol and is the only module that imports the ``mcp``
SDK, so ``trailblaze --help`` and every other command never load it (it is the optional extra
``trailblaze[mcp]``). The command itself, and its flags, are ``trailblaze/commands/mcp.py``.
"""

from __future__ import annotations
