"""The built-in commands that are more than a few lines of ``cli.py``: ``trailblaze check`` and
``trailblaze snapshot``. ``cli.py`` declares every command's flags and calls in here; ``trailblaze
step``/``verify`` are added by the agent's built-in plugin (``trailblaze.agent.agent_commands``)."""
