"""The plugin contract is the path every tool takes: ``trailblaze plugins --hook NAME`` shows, for each
contract hook, the core's built-in implementation and the installed plugins that answer it for their
own tool kinds — through the real console entry and the installed entry points."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

INSTALLED = "yaml_tools,mcp_subprocess,web,mobile,android"

EXPECTED = {
    # discovery
    "trailblaze_register_tools": ["builtin.tools", "android", "mcp_subprocess", "mobile", "web", "yaml_tools"],
    # descriptor generation
    "trailblaze_tool_descriptor": ["builtin.contract", "mcp_subprocess", "yaml_tools"],
    # execution
    "trailblaze_execute_tool": ["builtin.contract", "mcp_subprocess", "yaml_tools"],
    # serialization: the driver plugins read upstream's class names of their tools
    "trailblaze_decode_tool": ["builtin.contract", "builtin.tools", "android", "mobile", "web"],
    "trailblaze_encode_tool": ["builtin.contract"],
}


@pytest.mark.parametrize("hook", sorted(EXPECTED))
def test_plugins_lists_who_answers_each_contract_hook(hook: str) -> None:
    env = {**os.environ, "TRAILBLAZE_LOAD_PLUGINS": INSTALLED}
    proc = subprocess.run([sys.executable, "-m", "trailblaze.cli", "plugins", "--hook", hook, "--json"],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    plugins = json.loads(proc.stdout)
    assert sorted(p["name"] for p in plugins) == sorted(EXPECTED[hook])
    assert all(p["status"] == "ok" for p in plugins)
