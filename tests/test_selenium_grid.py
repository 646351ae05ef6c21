"""Trails through a real Selenium Grid 4 on loopback (tests/selenium_grid.py starts it from the npm
package's jar, Debian's Java and chromedriver): the example web shop through a standalone Grid
(``grid_url``), two workers queueing on one slot, a hub that does not answer, and the fake-shop Android
trail through a hub whose node relays to a local Appium server (``server_url``)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from xml.etree import ElementTree

sys.path.insert(0, str(Path(__file__).parent))
from selenium_grid import GridTools, SeleniumGrid, free_port, grid_tools, start_appium_relay, start_standalone  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHOP = REPO / "examples" / "web-shop"
FAKE_SHOP = REPO / "examples" / "mobile" / "fake-shop"

pytestmark = pytest.mark.browser


@pytest.fixture(scope="session")
def tools() -> GridTools:
    found = grid_tools()
    if isinstance(found, str):
        pytest.skip(found)
    return found


@pytest.fixture(scope="session")
def one_slot_grid(tools: GridTools, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeleniumGrid]:
    """A standalone Grid with one Chromium slot, once per test session (it takes ~25 s to be ready)."""
    grid = start_standalone(tools, tmp_path_factory.mktemp("grid"), slots=1)
    try:
        yield grid
    finally:
        grid.stop()


def _trailblaze(*args: str, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False, env=dict(os.environ))


def test_the_example_web_shop_trails_pass_through_the_grid(one_slot_grid: SeleniumGrid, tmp_path: Path) -> None:
    done = _trailblaze("run", str(SHOP / "trails"), "-o", f"grid_url={one_slot_grid.url}",
                       "--output-dir", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    trails = len(list((SHOP / "trails").glob("*.trail.yaml")))
    assert done.stdout.splitlines()[-1] == f"Results: {trails - 1} passed, 0 failed, 1 skipped"
    assert one_slot_grid.busy_slots() == 0  # every session was given back


def test_two_workers_queue_on_one_slot_and_both_pass(one_slot_grid: SeleniumGrid, tmp_path: Path) -> None:
    # The pool lets the hub serve two workers; it has one slot, so the second worker's session waits in
    # the hub's queue until the first worker's browser is closed.
    hub = f"grid+{one_slot_grid.url}"
    trails = [str(SHOP / "trails" / name) for name in ("sign-in.trail.yaml", "cart.trail.yaml")]
    done = _trailblaze("run", *trails, "-n", "2", "--endpoint", f"{hub}#slots=2",
                       "--junit-xml", str(tmp_path / "junit.xml"), "--output-dir", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = ElementTree.parse(tmp_path / "junit.xml").getroot().iter("testcase")
    endpoints = [{p.get("name"): p.get("value") for p in case.iter("property")}.get("trailblaze.endpoint")
                 for case in cases]
    assert endpoints == [hub, hub]
    assert one_slot_grid.busy_slots() == 0


def test_a_pool_with_fewer_slots_than_workers_is_refused(tmp_path: Path) -> None:
    done = _trailblaze("run", str(SHOP / "trails"), "-n", "2", "--endpoint", "grid+http://127.0.0.1:9#slots=1",
                       cwd=tmp_path, timeout=120)
    assert done.returncode == 3
    assert "2 workers need at least 2 endpoints (--endpoint given 1)" in done.stderr


def _one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in done.stdout.splitlines() if "ERROR:" in line]
    assert len(lines) == 1, done.stdout + done.stderr
    return lines[0]


def test_a_hub_that_is_not_there_fails_in_one_line_naming_it(tmp_path: Path) -> None:
    hub = f"http://127.0.0.1:{free_port()}"
    done = _trailblaze("run", str(SHOP / "trails" / "sign-in.trail.yaml"), "-o", f"grid_url={hub}",
                       cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"Selenium Grid {hub} does not answer" in _one_error_line(done)


def test_a_hub_that_never_answers_ends_the_wait_after_the_queue_timeout(tmp_path: Path) -> None:
    # A listener that takes the connection and never replies: a hub whose queue never moves.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        hub = f"http://127.0.0.1:{listener.getsockname()[1]}"
        held: list[socket.socket] = []
        accepting = threading.Thread(target=lambda: held.append(listener.accept()[0]), daemon=True)
        accepting.start()
        done = _trailblaze("run", str(SHOP / "trails" / "sign-in.trail.yaml"), "-o", f"grid_url={hub}",
                           "-o", "grid_queue_timeout_ms=2000", cwd=tmp_path, timeout=120)
        for conn in held:
            conn.close()
    assert done.returncode == 2, done.stdout + done.stderr
    line = _one_error_line(done)
    assert f"Selenium Grid {hub} started no session within 2 s" in line and "grid_queue_timeout_ms" in line


def test_other_browsers_are_refused_with_a_grid(tmp_path: Path) -> None:
    done = _trailblaze("run", str(SHOP / "trails" / "sign-in.trail.yaml"), "-o", "grid_url=http://127.0.0.1:9",
                       "-o", 'grid_capabilities={"browserName": "firefox"}', cwd=tmp_path, timeout=120)
    assert done.returncode == 3
    assert "a Selenium Grid serves Playwright Chromium only (browserName 'chrome'), not browserName 'firefox'" \
        in done.stdout + done.stderr


@pytest.mark.appium
def test_the_fake_shop_android_trail_runs_through_a_grid_relay_to_appium(tools: GridTools, tmp_path: Path) -> None:
    from trailblaze_driver_android.appium import server as managed

    binary = os.environ.get(managed.ENV_BIN) or str(REPO / ".tools" / "node" / "node_modules" / ".bin" / "appium")
    if not Path(binary).exists():
        pytest.fail("Appium is not installed: run scripts/bootstrap.sh")
    appium = managed.ManagedServer(binary, ())
    appium.start(timeout=90)
    try:
        grid = start_appium_relay(tools, tmp_path / "grid", appium.url,
                                  {"platformName": "Fake", "appium:automationName": "Fake"})
        try:
            done = _trailblaze("run", str(FAKE_SHOP / "trails" / "sign-in.trail.yaml"), "-o", f"server_url={grid.url}",
                               "--output-dir", str(tmp_path / "out"), cwd=tmp_path, timeout=600)
            assert done.returncode == 0, done.stdout + done.stderr
            assert done.stdout.splitlines()[-1] == "Results: 1 passed, 0 failed, 0 skipped"
            assert grid.busy_slots() == 0
        finally:
            grid.stop()
    finally:
        appium.stop()
