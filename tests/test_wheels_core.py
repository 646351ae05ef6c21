"""`trailblaze` and a third-party plugin installed from wheels in a clean venv, no workspace around."""

from __future__ import annotations

import json
import re
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
    assert sorted(listed) == ["acme", "acme_timings", "builtin.agent_client", "builtin.anthropic_provider",
                              "builtin.contract", "builtin.host_driver", "builtin.llm_config", "builtin.openai_provider",
                              "builtin.outputs", "builtin.tools"]
    assert listed["acme"]["version"] == "0.1.0" and listed["acme"]["hooks"] == ["trailblaze_register_tools"]
    assert listed["acme_timings"]["hooks"] == ["trailblaze_execute_tool"]
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
    assert re.search(r"acme timing: acme_greet \[class\] \d+\.\d ms", run.stderr), run.stderr


def test_the_installed_example_registers_what_writing_a_plugin_section_7_shows(wheelhouse, clean_venv,
                                                                                 tmp_path: Path) -> None:
    """docs/writing-a-plugin.md §7 shows the example's entry points, each hook module its own plugin so
    users can turn one off: what an installed trailblaze-acme lists is exactly that."""
    doc = (REPO / "docs" / "writing-a-plugin.md").read_text()
    section = doc[doc.index("## 7. "):doc.index("## 8. ")]
    block = re.search(r"```toml\n\[project\.entry-points\.trailblaze\]\n(.*?)```", section, re.S)
    assert block is not None, "section 7 shows no entry points"
    shown = dict(re.findall(r'^(\w+) = "([\w.]+)"', block.group(1), re.M))
    assert shown == {"acme": "trailblaze_acme.plugin", "acme_timings": "trailblaze_acme.timings"}
    disable = re.search(r"TRAILBLAZE_DISABLE_PLUGINS=(\w+)", section)
    assert disable is not None and disable.group(1) == "acme_timings"

    clean_venv.install(wheelhouse("trailblaze-core"), wheelhouse("examples/trailblaze-acme"))
    plugins = clean_venv.run("trailblaze", "plugins", "--json", cwd=tmp_path)
    assert plugins.returncode == 0, plugins.stderr
    ours = {p["name"]: p for p in json.loads(plugins.stdout) if p["distribution"] == "trailblaze-acme"}
    assert sorted(ours) == sorted(shown)
    assert all(p["status"] == "ok" for p in ours.values()), ours
    assert ours["acme"]["hooks"] == ["trailblaze_register_tools"]  # trailblaze_acme.plugin
    assert ours["acme_timings"]["hooks"] == ["trailblaze_execute_tool"]  # trailblaze_acme.timings

    off = clean_venv.run("trailblaze", "plugins", "--json", cwd=tmp_path,
                         env={"TRAILBLAZE_DISABLE_PLUGINS": disable.group(1)})
    status = {p["name"]: p["status"] for p in json.loads(off.stdout)}
    assert status["acme_timings"] == "disabled" and status["acme"] == "ok"  # the tools stay
