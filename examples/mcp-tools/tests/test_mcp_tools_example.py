"""The MCP tools example works end to end: `trailblaze run` replays both trails on the host driver against
the Python and TypeScript tool servers (in a copy of the example), `trailblaze tools` lists their tools,
and no server process is left behind."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import trailblaze_mcp_subprocess.plugin as mcp_plugin
import trailblaze_yaml_tools.plugin as yaml_plugin
from trailblaze.plugins import PluginHost
from trailblaze.logs import read_log
from trailblaze.testing import installed_host, new_host, run_cli
from trailblaze.testing.offline import RegistrySentinel, link_node_modules
from trailblaze_mcp_subprocess import runtimes

EXAMPLE = Path(__file__).resolve().parents[1]
REPO = EXAMPLE.parents[1]
NODE_BIN = REPO / ".tools" / "node" / "node_modules" / ".bin"
NODE_MODULES = REPO / ".tools" / "node" / "node_modules"


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch, offline: RegistrySentinel) -> Iterator[PluginHost]:
    """yaml-tools (trailmaps) + the MCP plugin; bun/tsx from .tools; no runtime may fetch a package."""
    path = os.pathsep.join([str(NODE_BIN), os.environ.get("PATH", "")])
    if not shutil.which("bun", path=path) and not (shutil.which("node", path=path) and shutil.which("tsx", path=path)):
        pytest.skip("the TypeScript example server needs bun or node + tsx (scripts/bootstrap.sh installs them)")
    monkeypatch.setenv("PATH", path)
    monkeypatch.delenv("NODE_PATH", raising=False)  # the copy's node_modules serves the SDK (see workspace)
    for name, value in offline.env().items():
        monkeypatch.setenv(name, value)
    runtimes.clear_cache()
    h = new_host()
    h.register(yaml_plugin, "yaml_tools")
    h.register(mcp_plugin, "mcp_subprocess")
    with installed_host(h):
        yield h


@pytest.fixture
def offline() -> Iterator[RegistrySentinel]:
    with RegistrySentinel() as sentinel:
        yield sentinel
    assert sentinel.connections == 0, "a tool server tried the network (package registry or proxy)"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A copy of the example with a ``node_modules`` (what `npm install` in the example makes)."""
    copy = tmp_path / "mcp-tools"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("tests", "logs", "node_modules", "__pycache__"))
    link_node_modules(copy, NODE_MODULES)
    return copy


def _servers_running(root: Path) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if str(root / "servers") in cmdline:
            found.append(f"{entry}: {cmdline}")
    return found


def test_run_replays_both_trails(host: PluginHost, workspace: Path) -> None:
    out = workspace / "logs"
    result = run_cli(["run", str(workspace / "trails"), "--output-dir", str(out), "--no-report"], host=host)
    assert result.exit_code == 0, result.output
    assert "Results: 2 passed, 0 failed" in result.output
    assert not _servers_running(workspace)
    inventory = next(p for p in out.iterdir() if "inventory" in p.name.lower() or "stock" in p.name.lower())
    logs = read_log(inventory)
    kinds = [(e["class"].rsplit(".", 1)[1], e.get("toolName"), e.get("depth")) for e in logs]
    # the delegating wrapper ran its delegates (depth 1) and was logged as delegating
    assert ("DelegatingTrailblazeToolLog", "mcpdemo_restock", 0) in kinds
    assert kinds.count(("TrailblazeToolLog", "mcpdemo_addItem", 1)) == 2
    # the callback ran countItems and rememberValue inside the audit call
    assert ("TrailblazeToolLog", "mcpdemo_countItems", 1) in kinds
    dump = next(e for e in logs if e.get("toolName") == "dumpMemory")
    assert dump["resultData"] == {"lastItem": "plum", "auditTotal": "4"}
    assert (inventory / "mcp_inventory_stderr.log").read_text().count("inventory: ") == 3


def test_tools_lists_the_servers_tools(host: PluginHost, workspace: Path) -> None:
    result = run_cli(["tools", "--json", "--all", "--workspace", str(workspace)], host=host)
    assert result.exit_code == 0, result.output
    tools = {t["name"]: t for t in json.loads(result.stdout)}
    assert {"mcpdemo_addItem", "mcpdemo_countItems", "mcpdemo_restock", "mcpdemo_auditInventory",
            "mcpdemo_greet", "mcpdemo_greetTeam", "mcpdemo_checkGreeting"} <= set(tools)
    assert tools["mcpdemo_addItem"]["toolsets"] == ["mcpdemo_inventory"]
    assert tools["mcpdemo_addItem"]["sourceInfo"]["server"] == "inventory"
    assert tools["mcpdemo_greet"]["sourceInfo"]["server"] == "mcpdemo"  # named after its trailmap
    assert tools["mcpdemo_greet"]["kind"] == "mcp" and tools["mcpdemo_greet"]["trailmap"] == "mcpdemo"
    assert tools["mcpdemo_greet"]["inputSchema"]["properties"]["name"]["description"] == "Who to greet"
    assert not _servers_running(workspace)


def test_the_documented_offline_commands_list_the_typescript_servers_tools(offline: RegistrySentinel) -> None:
    """docs/mcp-tools.md's block runs as shown, from the repository root: the greeter server starts under
    `bun --no-install` (empty cache, registry on the sentinel) and its tools are listed from the server."""
    import re
    import subprocess
    import sys

    doc = (REPO / "docs" / "mcp-tools.md").read_text(encoding="utf-8")
    block = re.search(r"### Packages are never fetched while a trail runs\n.*?```bash\n(.*?)```", doc, re.DOTALL)
    assert block is not None
    assert block.group(1).splitlines()[0] == "source .tools/env.sh"
    link_node_modules(REPO, NODE_MODULES)  # what scripts/bootstrap.sh links
    env = {**os.environ, **offline.env(), "PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                                                   os.environ.get("PATH", "")])}
    env.pop("NODE_PATH", None)
    done = subprocess.run(["bash", "-ec", block.group(1)], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Greet every member of a team" in done.stdout  # the description comes from servers/greeter.ts
