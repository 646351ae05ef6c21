"""The pytest plugin ships with ``trailblaze`` and costs nothing in test suites that do not use it."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points


def test_the_plugin_is_a_pytest11_entry_point_of_trailblaze() -> None:
    found = [ep for ep in entry_points(group="pytest11") if ep.name == "trailblaze"]
    assert len(found) == 1 and found[0].value == "trailblaze.pytest_plugin"
    assert found[0].dist is not None and found[0].dist.name == "trailblaze"


def test_loading_the_plugin_loads_no_runner_driver_or_sdk() -> None:
    code = ("import sys, pytest, trailblaze.pytest_plugin; "
            "loaded = [m for m in ('trailblaze.runner.run', 'trailblaze.plugins', 'playwright', 'appium', 'mcp', "
            "'openai', 'anthropic') if m in sys.modules]; print(loaded)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
