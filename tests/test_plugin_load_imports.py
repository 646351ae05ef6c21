"""Loading every plugin stays cheap: a command that loads them all but uses few (``merge-reports``,
``--help``) must not import what only a workspace, a session or the agent needs. ruamel.yaml, the YAML
tools' catalog and the agent loop cost about a third of a second of imports together; the plugin modules
import them inside the hooks that use them, and the core reads no YAML where there is no config file. Run
in a subprocess, so nothing a test imported counts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

DEFERRED = ("ruamel.yaml", "trailblaze_yaml_tools.catalog", "trailblaze_mcp_subprocess.config", "trailblaze.agent.loop",
            "trailblaze.llm.config")
"""Imported by no plugin module at load time (each is imported when a hook or call site needs it)."""

LOADED = ("trailblaze_yaml_tools.plugin", "trailblaze_mcp_subprocess.plugin", "trailblaze.agent.agent_client",
          "trailblaze.llm.llm_config")
"""The plugin modules that used to pull those in: loaded, or the test would prove nothing."""

PROBE = """
import json, sys
from trailblaze.cli import main
code = 0
try:
    main(["merge-reports", "--help"])
except SystemExit as exc:
    code = exc.code
from trailblaze.config import current_workspace_config  # what merge-reports' writers read, outside a workspace
assert current_workspace_config() is not None
print("PROBE" + json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def test_merge_reports_help_loads_every_plugin_without_their_heavy_imports(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("TRAILBLAZE_LOAD_PLUGINS", "TRAILBLAZE_DISABLE_PLUGINS", "TRAILBLAZE_STRICT_PLUGINS")}
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=120, check=False)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("PROBE")), None)
    assert line is not None, proc.stdout + proc.stderr
    result = json.loads(line[5:])
    assert result["code"] == 0, proc.stdout + proc.stderr
    modules = set(result["modules"])
    assert not [m for m in LOADED if m not in modules], "the plugins were not loaded: " + proc.stderr
    assert [m for m in DEFERRED if m in modules] == []
