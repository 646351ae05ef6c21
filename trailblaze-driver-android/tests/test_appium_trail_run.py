"""`trailblaze run` end to end on the fake driver: a recording made through tap(ref) replays, a failing
step exits 1 with artifacts, the managed server comes and goes, and a missing Appium is exit 2."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from trailblaze.logs import read_log
from trailblaze.tools.base import ToolCall

pytestmark = pytest.mark.appium

REPO = Path(__file__).resolve().parents[2]

def write_trail(path: Path, steps: list[dict[str, Any]]) -> Path:
    doc = {"config": {"id": "fake/recorded", "title": "Recorded on the fake driver",
                      "devices": {"android": "ANDROID_ONDEVICE_ACCESSIBILITY"}},
           "trail": steps}
    with open(path, "w", encoding="utf-8") as fh:
        YAML().dump(doc, fh)
    return path


def summary(cwd: Path) -> dict[str, Any]:
    reports = sorted((cwd / "logs" / "reports").glob("trailblaze_test_results_*.json"))
    assert reports, "no JSON summary written"
    return json.loads(reports[-1].read_text())


def recorded_calls(session: Any) -> list[dict[str, Any]]:
    """What a recorder keeps: the recordable call at the top of each delegation chain."""
    out: list[dict[str, Any]] = []
    for e in session.executed:
        if e.depth == 0 and e.is_recordable or e.depth == 1 and e.is_recordable:
            out.append(e.authored.to_yaml())
    top_delegates = {id(e) for e in session.executed if e.depth == 0 and not e.is_recordable}
    assert top_delegates, "the session used tap(ref)"
    return out


def test_a_recorded_trail_replays_with_trailblaze_run(fake_session, appium_server, fake_workspace, run,
                                                     tmp_path: Path) -> None:
    session = fake_session()
    drv = session.driver
    tree = drv.capture(refs=True)
    ref_of = {n.text or n.hint: n.ref for n in tree.nodes if n.ref}
    ctx = session.context(step_index=0)
    steps_calls: list[list[ToolCall]] = [
        [ToolCall("tap", {"ref": ref_of["Email"]}), ToolCall("inputText", {"text": "ada@example.com"})],
        [ToolCall("tap", {"ref": ref_of["Remember me"]}), ToolCall("tap", {"ref": ref_of["Sign in"]})],
        [ToolCall("assertVisible", {"ref": ref_of["$3.00 off your first order"]})],
    ]
    steps: list[dict[str, Any]] = []
    for i, calls in enumerate(steps_calls):
        start = len(session.executed)
        for c in calls:
            assert session.dispatcher.call(c, ctx).success
        chunk = type("S", (), {"executed": session.executed[start:]})()
        key = "verify" if i == 2 else "step"
        steps.append({key: f"recorded step {i + 1}", "recording": {"android": recorded_calls(chunk)}})
    assert steps[0]["recording"]["android"][0] == {"tapOnElementBySelector": {"nodeSelector": {
        "androidAccessibility": {"resourceIdRegex": "com.example.fakeshop:id/email"}}}}
    ws = fake_workspace(tmp_path / "ws", appium_server.url)
    write_trail(ws / "trails" / "recorded.trail.yaml", steps)
    result = run(["run", "trails/recorded.trail.yaml", "--no-report"], cwd=ws)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASSED" in result.stdout and "1 passed, 0 failed" in result.stdout
    assert summary(ws)


def test_a_failing_step_exits_1_with_a_screenshot(appium_server, fake_workspace, run, tmp_path: Path) -> None:
    ws = fake_workspace(tmp_path / "ws", appium_server.url)
    write_trail(ws / "trails" / "fails.trail.yaml", [
        {"step": "Tap sign in", "recording": {"android": [
            {"tapOnElementBySelector": {"nodeSelector": {"androidAccessibility": {"textRegex": "Sign in"}}}}]}},
        {"verify": "The order confirmation is shown", "recording": {"android": [
            {"assertVisibleBySelector": {"nodeSelector": {"androidAccessibility": {"textRegex": "Order placed"}},
                                         "timeoutMs": 300}}]}},
    ])
    result = run(["run", "trails/fails.trail.yaml", "--no-report"], cwd=ws)
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout + result.stderr
    assert "Order placed" in out and "assertVisibleBySelector" in out
    session_dirs = [p for p in (ws / "logs").iterdir() if p.is_dir() and p.name != "reports"]
    files = {f.name for d in session_dirs for f in d.iterdir()}
    assert "step_002_failed.png" in files and "step_002_failed.xml" in files, files  # the verify: step 2


def test_bad_selector_in_a_recording_is_bad_input(appium_server, fake_workspace, run, tmp_path: Path) -> None:
    ws = fake_workspace(tmp_path / "ws", appium_server.url)
    write_trail(ws / "trails" / "typo.trail.yaml", [
        {"step": "Tap", "recording": {"android": [
            {"tapOnElementBySelector": {"nodeSelector": {"androidAccessibility": {"textRegx": "Sign in"}}}}]}}])
    result = run(["run", "trails/typo.trail.yaml", "--no-report"], cwd=ws)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "textRegx" in result.stdout + result.stderr
    assert "typo.trail.yaml:" in result.stdout + result.stderr


def test_managed_server_is_started_and_stopped(appium_env, appium_processes, run, tmp_path: Path) -> None:
    binary, env = appium_env
    shutil.copytree(REPO / "examples" / "mobile" / "fake-shop", tmp_path / "fake-shop")
    ws = tmp_path / "fake-shop"
    result = run(["run", "trails", "--no-report"], cwd=ws, env={**env, "TRAILBLAZE_APPIUM_BIN": binary})
    assert result.returncode == 0, result.stdout + result.stderr
    starts = [read_log(p)[0] for p in ws.glob("logs/*") if p.name != "reports"]
    assert len(starts) == 2
    infos = [s["sessionStatus"]["trailblazeDeviceInfo"]["appium"] for s in starts]
    assert all(i["managedServer"] for i in infos)
    urls = {i["serverUrl"] for i in infos}
    assert len(urls) == 1, "one managed server serves the whole run"
    port = next(iter(urls)).rsplit(":", 1)[1]
    assert not [p for p, cmd in appium_processes() if f"--port {port}" in cmd], "the managed server outlived the run"


def test_no_appium_anywhere_is_exit_2(fake_workspace, run, tmp_path: Path) -> None:
    ws = fake_workspace(tmp_path / "ws", None)
    write_trail(ws / "trails" / "t.trail.yaml", [{"step": "Tap", "recording": {"android": [
        {"tapOnPoint": {"x": 1, "y": 1}}]}}])
    env = {"PATH": str(Path(sys.executable).parent) + os.pathsep + "/usr/bin:/bin", "TRAILBLAZE_APPIUM_BIN": ""}
    result = run(["run", "trails/t.trail.yaml", "--no-report"], cwd=ws, env=env)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "no Appium server" in result.stdout + result.stderr
    assert "server_url" in result.stdout + result.stderr
