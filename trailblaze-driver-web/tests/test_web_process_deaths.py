"""A browser or Playwright driver that dies is an infrastructure failure (exit 2) told in one line naming
the process and what it said, not a failed step; a tool that fails on a live page stays exit 1; and no
asyncio warning leaks when the connection is gone. Real processes, killed for real, mid-trail."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from trailblaze.testing import CliProcess

TRAIL = """\
config:
  id: deaths/web
  title: web
  devices: {web: PLAYWRIGHT_NATIVE}
trail:
  - step: Open a page
    recording:
      web:
        - web_navigate: {url: "data:text/html,<h1>Hello</h1>"}
  - verify: A text that never comes
    recording:
      web:
        - web_verifyTextVisible: {text: never on this page}
"""


def workspace(root: Path, timeout_ms: int) -> Path:
    (root / "trails" / "config").mkdir(parents=True)
    (root / "trails" / "config" / "trailblaze.yaml").write_text(
        f"drivers:\n  playwright-native:\n    timeout_ms: {timeout_ms}\n")
    (root / "trails" / "web.trail.yaml").write_text(TRAIL)
    return root


def waiting_run(ws: Path) -> CliProcess:
    run = CliProcess(["run", "trails", "--output-dir", str(ws / "out")], cwd=ws)
    run.wait_until(lambda: any("never comes" in p.read_text() for p in (ws / "out").glob("*/session.ndjson")))
    return run


def result(ws: Path) -> dict[str, object]:
    summary = next((ws / "out" / "reports").glob("trailblaze_test_results_*.json"))
    return json.loads(summary.read_text())["results"][0]  # type: ignore[no-any-return]


def assert_clean(output: str) -> None:
    for noise in ("Traceback", "never awaited", "never retrieved", "Error occurred in event listener"):
        assert noise not in output, output


def test_the_playwright_driver_killed_mid_trail_is_exit_2_naming_it(tmp_path: Path, chromium: str) -> None:
    ws = workspace(tmp_path / "ws", 60000)
    run = waiting_run(ws)
    (pid, _cmd), = run.children("run-driver")
    os.kill(pid, signal.SIGKILL)
    code, output = run.finish()
    assert code == 2, output
    assert f"the Playwright driver process (node, pid {pid}) was killed by SIGKILL" in output, output
    assert_clean(output)
    outcome = result(ws)
    assert outcome["outcome"] == "ERROR" and outcome["failure_kind"] == "DriverError", outcome
    assert run.children_left() == []


def test_the_browser_killed_mid_trail_is_exit_2_naming_it(tmp_path: Path, chromium: str) -> None:
    ws = workspace(tmp_path / "ws", 60000)
    run = waiting_run(ws)
    # The browser process (and the launcher script a distribution may wrap it in), not its renderers.
    browser = [pid for pid, cmd in run.children("--remote-debugging-pipe") if "--type=" not in cmd]
    assert browser, run.children()
    for pid in browser:
        os.kill(pid, signal.SIGKILL)
    code, output = run.finish()
    assert code == 2, output
    # Which of the two Playwright notices first depends on timing: the browser's disconnection, or its
    # page closing with it. Either way it is the browser, told in one line.
    assert ("the browser (" in output and "disconnected" in output) or \
        "the web driver has no open page (the browser was closed" in output, output
    assert_clean(output)
    assert result(ws)["failure_kind"] == "DriverError"
    assert run.children_left() == []


def test_a_verification_failing_on_a_live_page_stays_exit_1(tmp_path: Path, chromium: str) -> None:
    ws = workspace(tmp_path / "ws", 300)
    code, output = CliProcess(["run", "trails", "--output-dir", str(ws / "out")], cwd=ws).finish()
    assert code == 1, output
    assert result(ws)["failure_kind"] == "ToolFailure"
    assert_clean(output)


def test_a_browser_that_dies_at_launch_is_reported_with_its_own_stderr(tmp_path: Path) -> None:
    broken = tmp_path / "chromium"
    broken.write_text("#!/bin/sh\necho 'chromium: error while loading shared libraries: libnss3.so' >&2\n"
                      "echo 'the second line it wrote' >&2\nexit 127\n")
    broken.chmod(0o755)
    ws = workspace(tmp_path / "ws", 5000)
    run = CliProcess(["run", "trails", "--output-dir", str(ws / "out")], cwd=ws,
                     env={"TRAILBLAZE_CHROMIUM": str(broken)})
    code, output = run.finish()
    assert code == 2, output
    assert (f"Chromium {broken} (TRAILBLAZE_CHROMIUM) exited at launch with code 127; its stderr: chromium: error "
            "while loading shared libraries: libnss3.so | the second line it wrote") in output, output
    assert_clean(output)
    assert run.children_left() == []


@pytest.fixture(autouse=True)
def _linux_only() -> None:
    if not Path("/proc/self/environ").exists():
        pytest.fail("these tests find processes through Linux /proc")
