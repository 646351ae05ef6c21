"""Browser discovery and launch: no browser is one clear line and exit 2; a remote Playwright server works."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from trailblaze.errors import DriverError
from trailblaze.logs import read_log
from trailblaze_driver_web.browser import find_chromium, launch_args
from trailblaze_driver_web.config import WebDriverConfig

TRAIL = """\
config:
  id: blank
  devices: {web: PLAYWRIGHT_NATIVE}
trail:
  - step: Open a blank page
    recording:
      web:
        - web_navigate: {url: "about:blank"}
"""


def _workspace(tmp_path: Path, trail: str = TRAIL, config: str = "") -> Path:
    (tmp_path / "trails" / "config").mkdir(parents=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text(config or "defaults: {}\n")
    path = tmp_path / "trails" / "blank.trail.yaml"
    path.write_text(trail)
    return path


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from trailblaze.cli import main; main()", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120)


def test_no_browser_is_one_clear_message_and_exit_2(tmp_path: Path) -> None:
    trail = _workspace(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "TRAILBLAZE_CHROMIUM"}
    env.update(PATH=str(empty), PLAYWRIGHT_BROWSERS_PATH=str(empty), HOME=str(tmp_path))
    proc = _run(["run", str(trail), "--no-report"], tmp_path, env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out
    assert out.count("no Chromium browser was found for the web driver") == 1, out
    assert "apt-get install chromium-headless-shell" in out and "playwright install chromium" in out
    assert "Traceback" not in out


def test_a_bad_browser_path_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(DriverError, match="browser_path '/nowhere/chrome' is not an executable file"):
        find_chromium(WebDriverConfig.model_validate({"browser_path": "/nowhere/chrome"}))
    env_cfg = WebDriverConfig()
    old = os.environ.get("TRAILBLAZE_CHROMIUM")
    os.environ["TRAILBLAZE_CHROMIUM"] = str(tmp_path / "missing")
    try:
        with pytest.raises(DriverError, match="TRAILBLAZE_CHROMIUM="):
            find_chromium(env_cfg)
    finally:
        if old is None:
            os.environ.pop("TRAILBLAZE_CHROMIUM")
        else:
            os.environ["TRAILBLAZE_CHROMIUM"] = old


def test_launch_flags_keep_the_browser_quiet_and_container_safe() -> None:
    args = launch_args(WebDriverConfig.model_validate({"launch_args": ["--lang=de", "--no-sandbox"]}))
    assert args[:2] == ["--no-sandbox", "--disable-gpu"] and args.count("--no-sandbox") == 1
    assert "--disable-background-networking" in args and "--disable-component-update" in args
    assert args[-1] == "--lang=de"


@pytest.fixture
def playwright_server(playwright_servers: Callable[[], str]) -> str:
    return playwright_servers()


def test_remote_run_through_connect(tmp_path: Path, chromium: str, playwright_server: str, shop_server: str) -> None:
    """A whole trail on a browser served by ``playwright run-server`` (what a grid does)."""
    trail = _workspace(tmp_path, TRAIL.replace('"about:blank"', f'"{shop_server}/"') + """\
  - verify: The shop's home page is shown
    recording:
      web:
        - web_verifyElementVisible: {ref: "css=body"}
""")
    options = json.dumps({"executablePath": chromium, "args": ["--no-sandbox", "--disable-gpu"]})
    proc = _run(["run", str(trail), "--no-report", "-o", f"connect={playwright_server}",
                 "-o", f"connect_launch_options={options}"], tmp_path, dict(os.environ))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "Results: 1 passed, 0 failed" in out
    started = [e for p in (tmp_path / "logs").iterdir() if p.name != "reports" for e in read_log(p)
               if e["class"].endswith(".TrailblazeSessionStatusChangeLog")]
    device = next(s["sessionStatus"]["trailblazeDeviceInfo"] for s in started if s["sessionStatus"]["status"] == "Started")
    assert device["remote"] == playwright_server and device["platform"] == "web"


def test_remote_server_unreachable_is_infrastructure(tmp_path: Path) -> None:
    trail = _workspace(tmp_path)
    proc = _run(["run", str(trail), "--no-report", "-o", "connect=ws://127.0.0.1:9/",
                 "-o", "navigation_timeout_ms=3000"], tmp_path, dict(os.environ))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out
    assert "cannot connect to the Playwright server at ws://127.0.0.1:9/" in out
