"""An Appium server that dies mid-trail is an infrastructure failure (exit 2) told in one line naming the
server and what it said last — whether Trailblaze manages it or it runs at a configured ``server_url`` —
not a failed step with a raw ``MaxRetryError``. Real servers, killed for real, mid-trail."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from trailblaze.testing import CliProcess
from trailblaze_driver_android.appium import server as managed

pytestmark = pytest.mark.appium

WAITING = [{"verify": "A text that never comes", "recording": {"android": [
    {"assertVisibleBySelector": {"nodeSelector": {"androidAccessibility": {"textRegex": "never on this screen"}},
                                 "timeoutMs": 60000}}]}}]


def waiting_run(ws: Path, env: dict[str, str]) -> CliProcess:
    doc = {"config": {"id": "deaths/android", "devices": {"android": "ANDROID_ONDEVICE_ACCESSIBILITY"}},
           "trail": WAITING}
    with open(ws / "trails" / "waits.trail.yaml", "w", encoding="utf-8") as fh:
        YAML().dump(doc, fh)
    run = CliProcess(["run", "trails", "--output-dir", str(ws / "out")], cwd=ws, env=env)
    run.wait_until(lambda: any("never comes" in p.read_text() for p in (ws / "out").glob("*/session.ndjson")))
    return run


def result(ws: Path) -> dict[str, Any]:
    summary = next((ws / "out" / "reports").glob("trailblaze_test_results_*.json"))
    return json.loads(summary.read_text())["results"][0]  # type: ignore[no-any-return]


def test_the_managed_server_killed_mid_trail_is_exit_2_naming_it(appium_env, fake_workspace, tmp_path: Path) -> None:
    binary, env = appium_env
    ws = fake_workspace(tmp_path / "ws", None)
    run = waiting_run(ws, {**env, "TRAILBLAZE_APPIUM_BIN": binary})
    servers = run.children("--address 127.0.0.1")
    assert len(servers) == 1, run.children()
    pid = servers[0][0]
    os.killpg(pid, signal.SIGKILL)
    code, output = run.finish()
    assert code == 2, output
    assert f"the managed Appium server (pid {pid}, http://127.0.0.1:" in output, output
    assert "killed by SIGKILL; its last log lines:" in output, output
    assert "Traceback" not in output and "MaxRetryError" not in output, output
    outcome = result(ws)
    assert outcome["outcome"] == "ERROR" and outcome["failure_kind"] == "DriverError", outcome
    # The failed session keeps the server's log of its own time.
    assert list((ws / "out").glob("*/appium.log"))
    assert run.children_left() == []


def test_a_configured_server_that_dies_mid_trail_is_exit_2_naming_it(appium_env, fake_workspace,
                                                                      tmp_path: Path) -> None:
    binary, _env = appium_env
    server = managed.ManagedServer(binary, ())
    server.start(timeout=90)
    try:
        ws = fake_workspace(tmp_path / "ws", server.url)
        run = waiting_run(ws, {})
        assert server.pid is not None
        os.killpg(server.pid, signal.SIGKILL)
        code, output = run.finish()
    finally:
        server.stop()
    assert code == 2, output
    assert f"the Appium server at {server.url} stopped answering: " in output, output
    assert "Traceback" not in output, output
    assert result(ws)["failure_kind"] == "DriverError"
