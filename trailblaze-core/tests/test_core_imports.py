"""The core must not pull in a driver SDK or the MCP SDK (ARCHITECTURE: **must**)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_core_and_cli_import_no_heavy_sdk() -> None:
    code = ("import sys, trailblaze, trailblaze.cli, trailblaze.runner.run, trailblaze.plugins; "
            "from trailblaze.plugins import PluginHost; PluginHost(); "
            "heavy = [m for m in ('playwright', 'appium', 'selenium', 'mcp', 'openai', 'anthropic') if m in sys.modules]; "
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"heavy modules imported at start-up: {out.stdout}"


def test_check_imports_neither_driver_classes_nor_waypoint_models_it_does_not_need(tmp_path: Path) -> None:
    # ``trailblaze check`` start-up is measured (bench_yaml_tools.py); these stay out of it: the drivers
    # (no driver starts; the web tools load theirs when a session calls one) and the waypoint models
    # (this workspace has no waypoint files).
    (tmp_path / "trails" / "config").mkdir(parents=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text("defaults: {}\n")
    (tmp_path / "trails" / "t.trail.yaml").write_text(
        "trail:\n  - step: wait\n    recording:\n      host:\n        - wait: {timeToWaitInSeconds: 0}\n")
    code = ("import sys; from trailblaze.commands.check import run_check; "
            "rc = run_check(['trails/t.trail.yaml']); "
            "print(rc, [m for m in ('trailblaze.waypoints.model', 'trailblaze_driver_android.driver', "
            "'trailblaze_driver_ios.driver', 'trailblaze_driver_web.driver') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=tmp_path)
    assert out.stdout.strip().splitlines()[-1] == "0 []", out.stdout + out.stderr
