"""`trailblaze` and a third-party plugin installed from wheels in a clean venv, no workspace around."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.wheels


def test_core_and_acme_from_wheels(wheelhouse, clean_venv, tmp_path: Path) -> None:
    clean_venv.install(wheelhouse("trailblaze-core"), wheelhouse("examples/trailblaze-acme"))
    work = tmp_path / "elsewhere"
    work.mkdir()

    plugins = clean_venv.run("trailblaze", "plugins", "--json", cwd=work)
    assert plugins.returncode == 0, plugins.stderr
    listed = {p["name"]: p for p in json.loads(plugins.stdout)}
    assert sorted(listed) == ["acme", "builtin.agent_client", "builtin.anthropic_provider", "builtin.contract",
                              "builtin.host_driver", "builtin.llm_config", "builtin.openai_provider", "builtin.outputs",
                              "builtin.tools"]
    assert listed["acme"]["version"] == "0.1.0" and listed["acme"]["hooks"] == ["trailblaze_register_tools"]
    assert listed["builtin.tools"]["builtin"] is True

    tools = clean_venv.run("trailblaze", "tools", "--json", cwd=work)
    assert tools.returncode == 0, tools.stderr
    acme = {t["name"]: t for t in json.loads(tools.stdout)}["acme_greet"]
    assert acme["sourceInfo"] == {"plugin": "acme", "distribution": "trailblaze-acme", "version": "0.1.0"}
    assert acme["inputSchema"]["required"] == ["person"]

    trail = work / "greet.trail.yaml"
    shutil.copy(REPO / "examples/trailblaze-acme/trails/greet.trail.yaml", trail)
    run = clean_venv.run("trailblaze", "run", str(trail), "--arg", "person=Lin", cwd=work)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Results: 1 passed, 0 failed, 0 skipped" in run.stdout
    assert list((work / "logs" / "reports").glob("trailblaze_test_results_*.json"))
