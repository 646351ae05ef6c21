"""The core must not pull in a driver SDK or the MCP SDK (ARCHITECTURE: **must**)."""

from __future__ import annotations

import subprocess
import sys


def test_core_and_cli_import_no_heavy_sdk() -> None:
    code = ("import sys, trailblaze, trailblaze.cli, trailblaze.runner.run, trailblaze.plugins; "
            "from trailblaze.plugins import PluginHost; PluginHost(); "
            "heavy = [m for m in ('playwright', 'appium', 'selenium', 'mcp', 'openai', 'anthropic') if m in sys.modules]; "
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"heavy modules imported at start-up: {out.stdout}"
