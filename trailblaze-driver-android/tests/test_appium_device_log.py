"""A failed attempt on Appium keeps the device's own logs (``device_logs``; the fake driver's ``actions``
log stands in for logcat/syslog), redacted and linked from the JUnit XML; a log type the driver does
not have is noted, never fatal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_appium_trail_run import write_trail

pytestmark = pytest.mark.appium


def test_a_failed_attempt_keeps_the_device_log(appium_server, fake_workspace, run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ws = fake_workspace(tmp_path / "ws", appium_server.url)
    write_trail(ws / "trails" / "fails.trail.yaml", [
        {"step": "Tap sign in", "recording": {"android": [
            {"tapOnElementBySelector": {"nodeSelector": {"androidAccessibility": {"textRegex": "Sign in"}}}}]}},
        {"verify": "The order confirmation is shown", "recording": {"android": [
            {"assertVisibleBySelector": {"nodeSelector": {"androidAccessibility": {"textRegex": "Order placed"}},
                                         "timeoutMs": 300}}]}},
    ])
    result = run(["run", "trails/fails.trail.yaml", "--no-report", "-o", "device_logs=[actions, logcat]",
                  "--junit-xml", "junit.xml"], cwd=ws)
    assert result.returncode == 1, result.stdout + result.stderr
    (session,) = [p for p in (ws / "logs").iterdir() if p.is_dir() and p.name != "reports"]
    actions = [json.loads(line) for line in (session / "device-actions.log").read_text().splitlines()]
    assert actions, "the tap's W3C actions are in the fake driver's log"
    assert f"device_log_actions: {session / 'device-actions.log'}" in (ws / "junit.xml").read_text()
    entries = [json.loads(line) for line in (session / "session.ndjson").read_text().splitlines()]
    (logged,) = [e for e in entries if e["class"].endswith(".AppiumDeviceLog")]
    assert logged["evidence"] == {"device_log_actions": "device-actions.log"}
    assert "logcat" in logged["errors"]  # the fake driver has no logcat: noted, the run goes on


def test_a_passing_attempt_keeps_none(appium_server, fake_workspace, run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ws = fake_workspace(tmp_path / "ws", appium_server.url)
    write_trail(ws / "trails" / "ok.trail.yaml", [
        {"step": "Tap sign in", "recording": {"android": [
            {"tapOnElementBySelector": {"nodeSelector": {"androidAccessibility": {"textRegex": "Sign in"}}}}]}}])
    result = run(["run", "trails/ok.trail.yaml", "--no-report", "-o", "device_logs=[actions]"], cwd=ws)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not list((ws / "logs").rglob("device-*.log"))
