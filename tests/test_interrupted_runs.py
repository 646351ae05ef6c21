"""Signals against a real ``trailblaze run``: nothing a run knew is lost, and nothing it started lives on.

SIGINT, SIGTERM and SIGHUP end the running trail as CANCELLED (with the step it reached), list the trails
not started, write the summary and the report, stop every child and exit 2; a second signal ends the
process at once. After SIGKILL no browser, Playwright driver or managed Appium server of the run is left. Each run gets a
unique environment marker, which every process it starts inherits (``trailblaze.testing.CliProcess``):
counting the processes that carry it finds the run's children wherever they were reparented to.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from trailblaze.testing import CliProcess


def web_trail(name: str, wait_for_ever: bool) -> str:
    last = ("- web_verifyTextVisible: {text: never on this page}" if wait_for_ever
            else "- web_verifyTextVisible: {text: Hello}")
    return f"""\
config:
  id: signals/{name}
  title: {name}
  devices: {{web: PLAYWRIGHT_NATIVE}}
trail:
  - step: Open a page
    recording:
      web:
        - web_navigate: {{url: "data:text/html,<h1>Hello {name}</h1>"}}
  - verify: The page says what we wait for
    recording:
      web:
        {last}
"""


ANDROID_WAITING = """\
config:
  id: signals/android
  title: android
  devices: {android: ANDROID_ONDEVICE_ACCESSIBILITY}
trail:
  - verify: A text that never comes
    recording:
      android:
        - assertVisibleBySelector:
            nodeSelector: {androidAccessibility: {textRegex: never on this screen}}
"""


def start_run(ws: Path, env: dict[str, str] | None = None) -> CliProcess:
    return CliProcess(["run", "trails", "--output-dir", str(ws / "out")], cwd=ws, env=env)


def step_started(ws: Path, trail: str, step_text: str) -> bool:
    """Whether the session of ``trail`` logged the start of the step with ``step_text``."""
    return any(step_text in path.read_text() for path in (ws / "out").glob(f"*_{trail}_*/session.ndjson"))


def three_web_trails(workspace: Callable[..., Path], root: Path) -> Path:
    return workspace(root, {"a.trail.yaml": web_trail("a", False), "b.trail.yaml": web_trail("b", True),
                            "c.trail.yaml": web_trail("c", False)}, wait_ms=60000, web_timeout_ms=60000)


def outcomes(ws: Path) -> dict[str, tuple[str, str | None]]:
    summaries = list((ws / "out" / "reports").glob("trailblaze_test_results_*.json"))
    assert len(summaries) == 1, summaries
    results = json.loads(summaries[0].read_text())["results"]
    return {r["title"]: (r["outcome"], r["failure_reason"]) for r in results}


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_mid_run_keeps_every_result_and_stops_every_child(
        sig: signal.Signals, fake_shop_workspace: Callable[..., Path], tmp_path: Path) -> None:
    ws = three_web_trails(fake_shop_workspace, tmp_path / "ws")
    run = start_run(ws)
    run.wait_until(lambda: step_started(ws, "b", "The page says what we wait for"))
    assert run.children(), "the run has a browser"
    os.kill(run.pid, sig)
    code, output = run.finish()

    assert code == 2, output
    assert "Traceback" not in output and "never awaited" not in output and "never retrieved" not in output, output
    assert f"interrupted by {sig.name}" in output
    assert "Results: 1 passed, 2 failed, 0 skipped (2 cancelled" in output, output
    assert outcomes(ws) == {
        "a": ("PASSED", None),
        "b": ("CANCELLED", f'interrupted by {sig.name} while running verify 2 "The page says what we wait for"'),
        "c": ("CANCELLED", f"interrupted by {sig.name}: not started"),
    }
    report = next((ws / "out" / "reports").glob("trailblaze_report_*.html")).read_text()
    assert f"interrupted by {sig.name}" in report and report.count("badge CANCELLED") == 2
    assert run.children_left() == []


def test_a_second_signal_exits_at_once_and_still_leaves_no_child(
        fake_shop_workspace: Callable[..., Path], tmp_path: Path) -> None:
    ws = three_web_trails(fake_shop_workspace, tmp_path / "ws")
    run = start_run(ws)
    run.wait_until(lambda: step_started(ws, "b", "The page says what we wait for"))
    # Two different signals are both pending: the first starts the orderly stop, the second cuts it short.
    os.kill(run.pid, signal.SIGTERM)
    os.kill(run.pid, signal.SIGINT)
    code, output = run.finish()
    assert code == 2, output
    # Python handles signals pending together in number order (SIGINT, then SIGTERM); on a busy machine
    # the run may be scheduled between the two kills and take SIGTERM first. Either way the second cuts.
    assert ("trailblaze: SIGTERM after SIGINT: exiting now" in output
            or "trailblaze: SIGINT after SIGTERM: exiting now" in output), output
    assert run.children_left() == []


def test_sigkill_of_the_runner_leaves_no_browser(fake_shop_workspace: Callable[..., Path], tmp_path: Path) -> None:
    ws = three_web_trails(fake_shop_workspace, tmp_path / "ws")
    run = start_run(ws)
    run.wait_until(lambda: step_started(ws, "b", "The page says what we wait for"))
    browsers = run.children()
    assert any("chrom" in cmd for _, cmd in browsers), browsers
    run.kill()
    # Playwright's Node driver exits when its pipe from the runner closes, and closes the browser.
    assert run.children_left() == []


def test_sigterm_to_a_pytest_n_controller_stops_its_workers_and_their_browsers(
        fake_shop_workspace: Callable[..., Path], tmp_path: Path) -> None:
    # CI stops `pytest --trails … -n 2` with SIGTERM to pytest alone: the workers, their Playwright drivers
    # and browsers must go too, and the merged summary must still list every trail.
    ws = three_web_trails(fake_shop_workspace, tmp_path / "ws")
    run = CliProcess(["-p", "xdist", "-p", "no:cacheprovider", "-c", os.devnull, "--rootdir", str(ws), "--trails",
                      "trails", "-n", "2", "--trailblaze-output-dir", "out", "--trailblaze-junit-xml", "out/j.xml"],
                     cwd=ws, program=[sys.executable, "-m", "pytest"])
    run.wait_until(lambda: any("The page says what we wait for" in p.read_text()
                               for p in (ws / "out").glob("gw*/*_b_*/session.ndjson")))
    assert run.children("chrom"), "the workers have browsers"
    os.kill(run.pid, signal.SIGTERM)
    code, output = run.finish()
    assert code == 2, output
    results = json.loads((ws / "out" / "summary.json").read_text())
    assert results["metadata"]["interrupted_by"] == "SIGTERM"
    found = {r["title"]: (r["outcome"], r["failure_reason"]) for r in results["results"]}
    assert found["b"] == ("CANCELLED", 'interrupted by SIGTERM while running verify 2 "The page says what we wait for"')
    assert sorted(found) == ["a", "b", "c"] and (ws / "out" / "j.xml").read_text().count("<testcase") == 3
    assert run.children_left(timeout=90) == []


def managed_server_url(ws: Path) -> str:
    from trailblaze.logs import read_log

    for directory in (ws / "out").glob("*_android_*"):
        for entry in read_log(directory):
            status = entry.get("sessionStatus", {})
            if "trailblazeDeviceInfo" in status:
                return str(status["trailblazeDeviceInfo"]["appium"]["serverUrl"])
    return ""


def listening(url: str) -> bool:
    """An Appium server answers at ``url``: its ``/status`` says so. (A bare connect is not enough under
    ``-n 2``: another test's server may have been given the port the moment Appium let it go.)"""
    import urllib.request

    try:
        with urllib.request.urlopen(url.rstrip("/") + "/status", timeout=2) as answer:
            return b'"build"' in answer.read(4096)
    except (OSError, ValueError):
        return False


@pytest.mark.appium
def test_sigterm_during_an_appium_trail_stops_the_managed_server(
        appium_run_env: dict[str, str], fake_shop_workspace: Callable[..., Path], tmp_path: Path) -> None:
    trails = {"android.trail.yaml": ANDROID_WAITING, "z.trail.yaml": web_trail("z", False)}
    ws = fake_shop_workspace(tmp_path / "ws", trails, wait_ms=60000, web_timeout_ms=60000)
    run = start_run(ws, appium_run_env)
    run.wait_until(lambda: step_started(ws, "android", "A text that never comes"))
    url = run.wait_until(lambda: managed_server_url(ws))
    assert listening(url)
    os.kill(run.pid, signal.SIGTERM)
    code, output = run.finish()
    assert code == 2, output
    assert outcomes(ws) == {"android": ("CANCELLED", 'interrupted by SIGTERM while running verify 1 "A text that never comes"'),
                            "z": ("CANCELLED", "interrupted by SIGTERM: not started")}
    assert run.children_left() == []
    assert not listening(url)


@pytest.mark.appium
def test_sigkill_of_the_runner_takes_the_managed_appium_server_down(
        appium_run_env: dict[str, str], fake_shop_workspace: Callable[..., Path], tmp_path: Path) -> None:
    ws = fake_shop_workspace(tmp_path / "ws", {"android.trail.yaml": ANDROID_WAITING}, wait_ms=60000,
                             web_timeout_ms=60000)
    run = start_run(ws, appium_run_env)
    run.wait_until(lambda: step_started(ws, "android", "A text that never comes"))
    url = run.wait_until(lambda: managed_server_url(ws))
    assert any("appium" in cmd for _, cmd in run.children())
    run.kill()
    assert run.children_left() == []
    assert not listening(url)
