"""What the commands and the MCP server both list, below both so a server never imports a command.

``session_tools`` (the tools a session offers, which the agent asks too), ``toolbox`` (the listing of
``trailblaze tools``), ``workspace_tools`` (every tool a workspace can offer, for ``check`` and ``schema``)
and ``screens`` (which driver looks at a screen, and the line that heads its snapshot). This ``__init__``
imports nothing: the agent takes ``session_tools`` without the runner that ``toolbox`` opens sessions with.
"""
