"""``trailblaze skill show|install``: the agent skill file that teaches a coding agent the session CLI.

The file ships inside the package (``trailblaze/skill/``), so the skill always matches the installed
CLI. ``install`` copies it where coding agents look for skills: Claude Code's ``.claude/skills`` or the
``.agents/skills`` folder Codex, Cursor, Gemini CLI and Goose share (as upstream's ``skill install``).
"""

from __future__ import annotations

from pathlib import Path

import click

AGENT_DIRS = {"claude": ".claude/skills", "agents": ".agents/skills"}
AGENT_ALIASES = {"codex": "agents", "cursor": "agents", "gemini": "agents", "goose": "agents"}
SKILL_NAME = "trailblaze"


def skill_files() -> dict[str, str]:
    """The bundled files by their path inside the skill (``SKILL.md``, ...)."""
    from importlib.resources import files

    root = files("trailblaze") / "skill"
    return {entry.name: entry.read_text(encoding="utf-8") for entry in root.iterdir()
            if entry.name.endswith(".md")}


def make_command() -> click.Group:
    from .shared import CONTEXT_SETTINGS, handle_errors

    @click.group("skill", context_settings=CONTEXT_SETTINGS)
    def skill() -> None:
        """The agent skill file: teaches a coding agent the `trailblaze session` CLI loop."""

    @skill.command("show", context_settings=CONTEXT_SETTINGS)
    @click.argument("file", required=False, default="SKILL.md")
    @handle_errors
    def show(file: str) -> None:
        """Print a bundled skill file (default SKILL.md)."""
        from ..errors import BadInputError

        bundled = skill_files()
        if file not in bundled:
            raise BadInputError(f"no bundled skill file '{file}'",
                                hint=f"bundled: {', '.join(sorted(bundled))}")
        click.echo(bundled[file], nl=False)

    @skill.command("install", context_settings=CONTEXT_SETTINGS)
    @click.option("--agent", default="claude", show_default=True,
                  type=click.Choice([*AGENT_DIRS, *AGENT_ALIASES]),
                  help="claude (.claude/skills) or agents (.agents/skills, shared by Codex, Cursor, Gemini "
                       "CLI, Goose; those names are aliases).")
    @click.option("--all", "all_agents", is_flag=True,
                  help="Install into both .claude/skills and .agents/skills.")
    @click.option("--global", "user_wide", is_flag=True,
                  help="Under your home directory instead of this project.")
    @click.option("--dir", "directory", type=click.Path(path_type=Path, file_okay=False),
                  help="An explicit skills directory (the skill goes to DIR/trailblaze/).")
    @handle_errors
    def install(agent: str, all_agents: bool, user_wide: bool, directory: Path | None) -> None:
        """Write the skill into an agent's skills directory (the current project's by default)."""
        from ..errors import BadInputError
        from ..files import write_atomic

        if directory is not None and (all_agents or user_wide or agent != "claude"):
            raise BadInputError("--dir cannot be combined with --agent, --all or --global")
        base = Path.home() if user_wide else Path.cwd()
        if directory is not None:
            targets = [directory]
        else:
            kinds = list(AGENT_DIRS) if all_agents else [AGENT_ALIASES.get(agent, agent)]
            targets = [base / AGENT_DIRS[k] for k in kinds]
        for target in targets:
            dest = target / SKILL_NAME
            dest.mkdir(parents=True, exist_ok=True)
            for name, text in skill_files().items():
                write_atomic(dest / name, text)
            click.echo(f"Installed the trailblaze skill in {dest}")

    return skill


command = make_command()
