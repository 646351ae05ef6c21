"""``trailblaze snapshot``, device form: the installed command against a real Appium server with the fake
driver, for both mobile drivers, and through a managed server that must be gone afterwards."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.appium

PNG = b"\x89PNG\r\n\x1a\n"


def test_android_snapshot_with_bounds(appium_server, fake_workspace, run, tmp_path: Path) -> None:
    ws = fake_workspace(tmp_path / "ws", appium_server.url)
    result = run(["snapshot", "-d", "android", "--bounds"], cwd=ws)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("# android-appium-uiautomator2 · Fake 1080x2400 · app ")
    sign_in = next(ln for ln in lines if 'Button "Sign in"' in ln)
    assert sign_in.startswith("[") and "[id=com.example.fakeshop:id/sign_in]" in sign_in
    assert sign_in.endswith("{x:60,y:820,w:960,h:150}")
    assert "RecyclerView [3 items]:" in result.stdout


def test_ios_snapshot_and_raw_page_source(appium_server, fake_workspace, run, tmp_path: Path) -> None:
    ws = fake_workspace(tmp_path / "ws", appium_server.url)
    compact = run(["snapshot", "--driver", "ios-appium-xcuitest"], cwd=ws)
    assert compact.returncode == 0, compact.stdout + compact.stderr
    assert compact.stdout.startswith("# ios-appium-xcuitest · ")
    assert 'Button "Sign in"' in compact.stdout
    raw = run(["snapshot", "--driver", "ios-appium-xcuitest", "--raw"], cwd=ws)
    assert raw.returncode == 0, raw.stderr
    assert "XCUIElementTypeButton" in raw.stdout and not raw.stdout.startswith("#")  # the XML, untouched
    assert run(["snapshot", "-d", "ios", "--page-source"], cwd=ws).stdout == raw.stdout


def test_wait_for_and_screenshot(appium_server, fake_workspace, run, tmp_path: Path) -> None:
    ws = fake_workspace(tmp_path / "ws", appium_server.url)
    shot = tmp_path / "screen.png"
    ok = run(["snapshot", "-d", "android", "--wait-for", "Carrot cake", "--screenshot", str(shot)], cwd=ws)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert shot.read_bytes().startswith(PNG)
    assert f"Screenshot saved to {shot}" in ok.stderr
    missing = run(["snapshot", "-d", "android", "--wait-for", "Checkout", "--timeout", "0.5"], cwd=ws)
    assert missing.returncode == 1, missing.stdout + missing.stderr
    assert "'Checkout' did not appear within 0.5 s" in missing.stderr
    assert 'Button "Sign in"' in missing.stdout  # the screen that was there instead


def test_bad_requests_are_clear_errors(appium_server, fake_workspace, run, tmp_path: Path) -> None:
    ws = fake_workspace(tmp_path / "ws", appium_server.url)
    urls = run(["snapshot", "-d", "android", "--urls"], cwd=ws)
    assert urls.returncode == 3
    assert "driver 'android-appium-uiautomator2' has no --urls snapshot detail" in urls.stderr
    assert "--bounds, --offscreen, --all" in urls.stderr
    ambiguous = run(["snapshot"], cwd=ws)
    assert ambiguous.returncode == 3 and "which device?" in ambiguous.stderr
    assert "android-appium-uiautomator2" in ambiguous.stderr and "ios-appium-xcuitest" in ambiguous.stderr
    # The fake device cannot open links: an infrastructure failure naming the URL and the automation.
    link = run(["snapshot", "-d", "android", "--url", "fakeshop://cart"], cwd=ws)
    assert link.returncode == 2, link.stdout + link.stderr
    assert "could not open fakeshop://cart on Appium automation 'Fake'" in link.stderr
    assert "Traceback" not in link.stderr


def test_managed_server_is_stopped_after_the_snapshot(appium_env, fake_workspace, run, tmp_path: Path) -> None:
    binary, env = appium_env
    ws = fake_workspace(tmp_path / "ws", None)
    # A wrapper that records the managed server's pid, then becomes the server (exec keeps the pid).
    pid_file = tmp_path / "appium.pid"
    wrapper = tmp_path / "appium"
    wrapper.write_text(f'#!/bin/sh\necho $$ > "{pid_file}"\nexec "{binary}" "$@"\n')
    wrapper.chmod(0o755)
    result = run(["snapshot", "-d", "android"], cwd=ws, env={**env, "TRAILBLAZE_APPIUM_BIN": str(wrapper)})
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'Button "Sign in"' in result.stdout
    pid = int(pid_file.read_text())
    assert not Path(f"/proc/{pid}").exists() or _no_longer_appium(pid), "the managed Appium server outlived the command"
    assert not (ws / "logs").exists(), "a snapshot writes no session logs"


def _no_longer_appium(pid: int) -> bool:
    """A pid that still exists must at least not be an Appium process any more (pid reuse)."""
    try:
        return b"appium" not in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True


def test_no_device_anywhere_is_exit_2(fake_workspace, run, tmp_path: Path) -> None:
    ws = fake_workspace(tmp_path / "ws", "http://127.0.0.1:9")  # nothing listens on the discard port
    result = run(["snapshot", "-d", "android"], cwd=ws, env={"PATH": os.environ.get("PATH", "")})
    assert result.returncode == 2, result.stdout + result.stderr
    assert "http://127.0.0.1:9" in result.stderr and "Traceback" not in result.stderr
