"""``trailblaze skill show|install``: the bundled skill file, written where coding agents look."""

from __future__ import annotations

from pathlib import Path

import pytest
from trailblaze.testing import run_cli


def test_show_prints_the_bundled_skill_with_its_front_matter() -> None:
    result = run_cli(["skill", "show"])
    assert result.exit_code == 0
    assert result.stdout.startswith("---\nname: trailblaze\ndescription: |\n")
    for command in ("trailblaze session start", "trailblaze snapshot", "trailblaze tool web_click",
                    "trailblaze verify", "trailblaze session save", "trailblaze session stop", "--secret-env"):
        assert command in result.stdout, command
    missing = run_cli(["skill", "show", "NOPE.md"])
    assert missing.exit_code == 3 and "no bundled skill file 'NOPE.md'" in missing.stderr


@pytest.mark.parametrize(("args", "where"), [
    ([], ".claude/skills/trailblaze/SKILL.md"),
    (["--agent", "codex"], ".agents/skills/trailblaze/SKILL.md"),
])
def test_install_writes_the_skill_into_the_project(tmp_path: Path, args: list[str], where: str) -> None:
    result = run_cli(["skill", "install", *args], cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / where).read_text() == run_cli(["skill", "show"]).stdout


def test_install_all_under_the_home_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    result = run_cli(["skill", "install", "--all", "--global"], cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    for folder in (".claude", ".agents"):
        assert (tmp_path / "home" / folder / "skills" / "trailblaze" / "SKILL.md").is_file()
    clash = run_cli(["skill", "install", "--dir", str(tmp_path / "x"), "--global"], cwd=tmp_path)
    assert clash.exit_code == 3 and "--dir cannot be combined" in clash.stderr
