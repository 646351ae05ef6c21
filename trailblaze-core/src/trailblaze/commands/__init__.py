"""Every built-in ``trailblaze`` subcommand, one module each; ``cli.py`` registers them on the group.

Each module exposes ``command`` (a ``click.Command``) and imports click and this package only at the
top: what a command needs (the runner, the plugin host, the MCP server) is imported when it runs, so
``trailblaze --version`` stays fast. The flags that open a session (``--driver``, ``-o``, ``--headed``,
``--memory``, ``--secret``, ``--llm``, …) are declared once, in ``session_options.py``, and shared by
``run``, ``step``, ``verify``, ``snapshot``, ``plan``, ``mcp`` and the pytest plugin; ``shared.py`` holds the
help settings and the error-to-exit-code handling every command uses.

A new built-in command: a module here with ``command``, its name added to ``BUILTIN_COMMANDS`` in
``cli.py`` (which imports the module when the command is first looked up), documented in docs/cli.md. A plugin's command goes through the ``trailblaze_register_commands`` hook instead.
"""
