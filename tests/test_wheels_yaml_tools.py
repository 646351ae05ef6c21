"""`trailblaze` and `trailblaze-yaml-tools` installed alone from wheels in a clean venv, no workspace around:
YAML tools load, the packaged framework trailmap is in the wheel, and a `script:` tool file without the MCP
plugin gives the install hint."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheels

FILES = {
    "trails/config/trailblaze.yaml": "defaults: {}\n",
    "trails/config/trailmaps/notes/trailmap.yaml": """
        id: notes
        target:
          display_name: Notes
          platforms: {host: {}}
        """,
    "trails/config/trailmaps/notes/tools/notes_remember.tool.yaml": """
        id: notes_remember
        description: Remember a value, then print the memory.
        parameters:
          - {name: key, type: string}
          - {name: value, type: string}
        tools:
          - rememberValue: {variable: "{{params.key}}", value: "{{params.value}}"}
          - dumpMemory: {}
        """,
    "trails/config/trailmaps/notes/tools/notes_seed.tool.yaml": """
        id: notes_seed
        description: Seed notes with a script.
        parameters: []
        script: ./seed.py
        """,
    "trails/config/trailmaps/notes/tools/seed.py": "print('never run here')\n",
    "trails/remember.trail.yaml": """
        config:
          id: notes/remember
          target: notes
        trail:
          - step: Remember a value
            recording:
              host:
                - notes_remember: {key: colour, value: blue}
        """,
}


def make_workspace(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def test_yaml_tools_from_wheels_with_the_install_hint_for_scripts(wheelhouse, clean_venv, tmp_path: Path) -> None:
    clean_venv.install(wheelhouse("trailblaze-core"), wheelhouse("trailblaze-yaml-tools"))
    work = make_workspace(tmp_path / "elsewhere", FILES)

    plugins = clean_venv.run("trailblaze", "plugins", "--json", cwd=work)
    assert plugins.returncode == 0, plugins.stderr
    ours = {p["name"]: p for p in json.loads(plugins.stdout)}["yaml_tools"]
    assert (ours["distribution"], ours["status"]) == ("trailblaze-yaml-tools", "ok")

    tools = clean_venv.run("trailblaze", "tools", "--json", cwd=work)
    assert tools.returncode == 0, tools.stderr
    by_name = {t["name"]: t for t in json.loads(tools.stdout)}
    remember = by_name["notes_remember"]
    assert remember["kind"] == "yaml" and remember["trailmap"] == "notes"
    assert remember["sourceInfo"]["distribution"] == "trailblaze-yaml-tools"
    assert remember["sourceInfo"]["file"].endswith("trailmaps/notes/tools/notes_remember.tool.yaml")
    assert remember["inputSchema"]["required"] == ["key", "value"]
    assert "notes_seed" not in by_name
    hint = [line for line in tools.stderr.splitlines() if "notes_seed.tool.yaml" in line]
    assert len(hint) == 1, tools.stderr
    assert "notes_seed.tool.yaml:4:1: 'script': 'seed.py' is a script tool" in hint[0]
    assert "need the trailblaze-mcp-subprocess plugin (pip install trailblaze-mcp-subprocess)" in hint[0]

    # the framework trailmap shipped inside the wheel gives the host platform its default toolsets
    target = clean_venv.run("trailblaze", "tools", "--json", "--target", "notes", "--driver", "host", cwd=work)
    assert target.returncode == 0, target.stderr
    assert sorted(t["name"] for t in json.loads(target.stdout)) == [
        "assertEquals", "assertMath", "assertNotEquals", "assertWithAi", "dumpMemory", "notes_remember",
        "rememberNumber", "rememberText", "rememberValue", "rememberWithAi", "wait"]


def test_check_and_run_from_wheels(wheelhouse, clean_venv, tmp_path: Path) -> None:
    clean_venv.install(wheelhouse("trailblaze-core"), wheelhouse("trailblaze-yaml-tools"))
    work = make_workspace(tmp_path / "elsewhere", FILES)

    check = clean_venv.run("trailblaze", "check", "trails", cwd=work)
    assert check.returncode == 3, check.stdout + check.stderr
    assert "pip install trailblaze-mcp-subprocess" in check.stdout + check.stderr

    (work / "trails/config/trailmaps/notes/tools/notes_seed.tool.yaml").unlink()
    check = clean_venv.run("trailblaze", "check", "--strict", "trails", cwd=work)
    assert check.returncode == 0, check.stdout + check.stderr

    run = clean_venv.run("trailblaze", "run", "trails", cwd=work)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Results: 1 passed, 0 failed, 0 skipped" in run.stdout
