"""Every command that reads trails decodes through the same codec, so the same plugin hooks.

An installed plugin (a distribution with a ``trailblaze`` entry point, discovered by a real
``trailblaze`` process) maps a legacy tool name with ``trailblaze_decode_tool``. ``run``, ``check`` and
the pytest plugin must all see the mapped call; before the codec, ``check`` parsed trails without the
host, so it called the legacy name unknown while ``run`` replayed it. ``trailblaze schema`` reads no
trails: it describes tools, through the same codec (``workspace_tools`` hands it out).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

LEGACY = '''\
from trailblaze import hookimpl
from trailblaze.tools import ToolCall


@hookimpl
def trailblaze_decode_tool(name, args):
    """Trails written before ``wait`` took its upstream name still say ``legacyPause``."""
    return ToolCall("wait", args) if name == "legacyPause" else None
'''

TRAIL = """\
trail:
  - step: pause a moment
    recording:
      host:
        - legacyPause: {timeToWaitInSeconds: 0}
"""


@pytest.fixture
def legacy_workspace(fake_site: Any, tmp_path: Path) -> Path:
    fake_site("trailblaze-legacy-names", "tb_legacy_names", LEGACY, "legacy_names")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "trailblaze.yaml").write_text("defaults:\n  driver: host\n")
    (root / "pause.trail.yaml").write_text(TRAIL)
    return root


def _env(fake_site: Any, *plugins: str) -> dict[str, str]:
    """The fake site on the path; only ``plugins`` of it (and the core's built-ins) loaded."""
    return {"TRAILBLAZE_LOAD_PLUGINS": ",".join(plugins), "PYTHONPATH": str(fake_site.path)}


def test_check_and_run_both_honour_the_plugin_decoder(legacy_workspace: Path, fake_site: Any,
                                                      trailblaze_cmd: Any) -> None:
    env = _env(fake_site, "legacy_names")
    check = trailblaze_cmd(["check", "pause.trail.yaml"], env=env, cwd=legacy_workspace)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "0 error(s), 0 warning(s)" in check.stdout and "legacyPause" not in check.stdout + check.stderr
    run = trailblaze_cmd(["run", "--no-report", "pause.trail.yaml"], env=env, cwd=legacy_workspace)
    assert run.returncode == 0, run.stdout + run.stderr


def test_without_the_plugin_both_call_the_legacy_name_unknown(legacy_workspace: Path, fake_site: Any,
                                                              trailblaze_cmd: Any) -> None:
    env = _env(fake_site)  # the distribution is installed but not loaded
    check = trailblaze_cmd(["check", "pause.trail.yaml"], env=env, cwd=legacy_workspace)
    assert check.returncode == 3 and "legacyPause" in check.stdout + check.stderr
    run = trailblaze_cmd(["run", "--no-report", "pause.trail.yaml"], env=env, cwd=legacy_workspace)
    assert run.returncode != 0 and "legacyPause" in run.stdout + run.stderr


def test_the_pytest_plugin_honours_the_plugin_decoder(legacy_workspace: Path, fake_site: Any) -> None:
    ini = legacy_workspace / "pytest.ini"
    ini.write_text("[pytest]\n")
    env = {**os.environ, **_env(fake_site, "legacy_names")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c", str(ini), "-q",
                           "--trails", str(legacy_workspace / "pause.trail.yaml"),
                           "--trailblaze-output-dir", str(legacy_workspace / "logs")],
                          cwd=legacy_workspace, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
