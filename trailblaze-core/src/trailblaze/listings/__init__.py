"""What the commands and the MCP server both list, below both so a server never imports a command.

``toolbox`` (the listing of ``trailblaze tools``), ``workspace_tools`` (every tool a workspace can offer,
for ``check`` and ``schema``) and ``screens`` (which driver looks at a screen, and the line that heads its
snapshot). The tools one session offers are ``trailblaze.session.session_tools``: the agent asks them too,
and it stands below the runner that ``toolbox`` opens sessions with. This ``__init__`` imports nothing.
"""
