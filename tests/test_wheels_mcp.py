"""`trailblaze` and `trailblaze-mcp-subprocess` installed alone from wheels in a clean venv, no workspace
around: the plugin loads through its entry point without importing `mcp` at CLI start, `trailblaze tools`
spawns the example's Python tool server, lists its tools and stops it, and a trail calling them runs."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheels

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_SERVER = REPO / "examples" / "mcp-tools" / "servers" / "inventory.py"


def make_workspace(root: Path) -> Path:
    (root / "trails" / "config").mkdir(parents=True)
    (root / "servers").mkdir()
    shutil.copy(EXAMPLE_SERVER, root / "servers" / "inventory.py")
    (root / "trails" / "config" / "trailblaze.yaml").write_text(textwrap.dedent("""
        mcpServers:
          - name: inventory
            script: ../../servers/inventory.py
    """))
    (root / "trails" / "stock.trail.yaml").write_text(textwrap.dedent("""
        config:
          id: stock
        trail:
          - step: Restock and audit
            recording:
              host:
                - mcpdemo_restock: {names: [apple, pear]}
                - mcpdemo_auditInventory: {}
    """))
    return root


def test_tools_lists_an_example_servers_tools_from_wheels(wheelhouse, clean_venv, tmp_path: Path) -> None:
    clean_venv.install(wheelhouse("trailblaze-core"), wheelhouse("trailblaze-mcp-subprocess"))
    work = make_workspace(tmp_path / "elsewhere")

    plugins = clean_venv.run("trailblaze", "plugins", "--json", cwd=work)
    assert plugins.returncode == 0, plugins.stderr
    ours = {p["name"]: p for p in json.loads(plugins.stdout)}["mcp_subprocess"]
    assert (ours["distribution"], ours["status"]) == ("trailblaze-mcp-subprocess", "ok")

    lazy = clean_venv.run("python", "-c", "import sys, trailblaze.cli, trailblaze.plugins as p; p.get_host(); "
                                          "print('mcp' in sys.modules)", cwd=work)
    assert lazy.stdout.strip() == "False", lazy.stderr

    tools = clean_venv.run("trailblaze", "tools", "--json", "--all", cwd=work)
    assert tools.returncode == 0, tools.stderr
    by_name = {t["name"]: t for t in json.loads(tools.stdout)}
    assert {"mcpdemo_addItem", "mcpdemo_countItems", "mcpdemo_restock", "mcpdemo_auditInventory"} <= set(by_name)
    add = by_name["mcpdemo_addItem"]
    assert add["kind"] == "mcp" and add["sourceInfo"]["server"] == "inventory"
    assert add["sourceInfo"]["file"].endswith("servers/inventory.py")
    assert add["inputSchema"]["required"] == ["name"]

    run = clean_venv.run("trailblaze", "run", "trails", cwd=work)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Results: 1 passed, 0 failed, 0 skipped" in run.stdout
