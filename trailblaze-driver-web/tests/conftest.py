"""Fixtures for the web driver: real headless Chromium, the example shop on 127.0.0.1, sessions.

Every browser and server a test starts is stopped by the fixture that started it; ``descendants``
lets tests check that no Chromium or Playwright driver process of this test process is left.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trailblaze_driver_web.plugin as web_plugin
from trailblaze.plugins import PluginHost
from trailblaze.session import Session, SessionOutcome
from trailblaze.testing import make_session, new_host
from trailblaze.tools.base import ToolCall, ToolResult
from trailblaze_driver_web.browser import find_chromium
from trailblaze_driver_web.config import WebDriverConfig
from trailblaze_driver_web.driver import PlaywrightDriver

REPO = Path(__file__).resolve().parents[2]
SHOP = REPO / "examples" / "web-shop"


@pytest.fixture(scope="session")
def chromium() -> str:
    """The Chromium the tests launch (fails with the set-up command when there is none)."""
    from trailblaze.errors import DriverError

    try:
        choice = find_chromium(WebDriverConfig())
    except DriverError as exc:
        pytest.fail(f"{exc} — run scripts/bootstrap.sh")
    return choice.path or "playwright"


@pytest.fixture
def shop_server() -> Iterator[str]:
    """The example shop on a free 127.0.0.1 port; its base URL (no trailing slash)."""
    from trailblaze_example_web_shop.plugin import load_server_module

    server = load_server_module(SHOP).ShopServer("127.0.0.1", port=0)
    url = str(server.start()).rstrip("/")
    try:
        yield url
    finally:
        server.stop()
    assert not port_open(url), f"the shop server at {url} still accepts connections after stop()"


def port_open(url: str) -> bool:
    from urllib.parse import urlparse

    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 80), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.fixture
def web_host() -> PluginHost:
    host = new_host()
    host.register(web_plugin, name="web")
    return host


class WebSession:
    """A started session on a real browser with helpers to call tools through the dispatcher."""

    def __init__(self, session: Session, driver: PlaywrightDriver) -> None:
        self.session = session
        self.driver = driver

    def call(self, name: str, step_index: int | None = 1, **args: Any) -> ToolResult:
        return self.session.dispatcher.call(ToolCall(name, args), self.session.context(step_index=step_index))

    def ok(self, name: str, **args: Any) -> ToolResult:
        result = self.call(name, **args)
        assert result.success, f"{name} {args} failed: {result.message}"
        return result

    def fails(self, name: str, **args: Any) -> str:
        result = self.call(name, **args)
        assert not result.success, f"{name} {args} unexpectedly passed: {result.message}"
        return result.message or ""

    def ref_of(self, role: str, name: str) -> str:
        snap = self.driver.take_snapshot()
        for node in snap.nodes():
            if node.role == role and node.name == name and node.ref:
                return node.ref
        raise AssertionError(f'no {role} "{name}" in the snapshot:\n{snap.render()}')


@pytest.fixture
def web_session(web_host: PluginHost, tmp_path: Path, chromium: str,
                shop_server: str) -> Iterator[Callable[..., WebSession]]:
    """Factory: ``web_session(secrets={...}, **driver settings)`` → a session on the example shop."""
    made: list[WebSession] = []

    def make(*, secrets: dict[str, str] | None = None, memory: dict[str, str] | None = None,
             **settings: Any) -> WebSession:
        cfg = WebDriverConfig.model_validate({"base_url": shop_server, **settings})
        driver = PlaywrightDriver(cfg)
        session = make_session(web_host, root=tmp_path, driver=driver, secrets=secrets, memory=memory,
                               session_id=f"web-{len(made)}")
        ws = WebSession(session, driver)
        made.append(ws)
        return ws

    try:
        yield make
    finally:
        for ws in made:
            web_host.session_finished(ws.session, SessionOutcome.SUCCEEDED)
            ws.driver.stop()
            ws.session.log.close()


def descendants(pid: int | None = None) -> list[tuple[int, str]]:
    """Live descendant processes of ``pid`` (default: this process) as (pid, command line)."""
    root = pid or os.getpid()
    children: dict[int, list[int]] = {}
    cmds: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            state = stat.rsplit(")", 1)[1].split()[0]
            if state == "Z":
                continue
            cmds[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    out: list[tuple[int, str]] = []
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            if child in cmds:
                out.append((child, cmds[child]))
                stack.append(child)
    return out


def browser_processes() -> list[tuple[int, str]]:
    """This test process's Chromium and Playwright-driver descendants."""
    return [(p, c) for p, c in descendants() if "chrom" in c.lower() or "playwright" in c.lower()]


@pytest.fixture
def playwright_servers() -> Iterator[Callable[[], str]]:
    """Starts ``playwright run-server`` on a free loopback port per call (``--unsafe`` so the client picks
    the binary) and returns its ws:// URL; every server is stopped, process group and all, at teardown."""
    procs: list[subprocess.Popen[str]] = []

    def start() -> str:
        binary = Path(sys.executable).parent / "playwright"
        proc = subprocess.Popen([str(binary), "run-server", "--host", "127.0.0.1", "--port", "0", "--unsafe"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        procs.append(proc)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"ws://\S+", line)
        assert match, f"playwright run-server did not start: {line!r}"
        return match.group(0)

    try:
        yield start
    finally:
        leftovers = [_stop_group(proc) for proc in procs]
    if any(leftovers):
        pytest.fail("playwright run-server left processes behind after SIGTERM")


def _stop_group(proc: subprocess.Popen[str]) -> bool:
    """SIGTERM the server's process group, SIGKILL what is left; True when something had to be killed."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    if proc.stdout is not None:
        proc.stdout.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the node driver under the wrapper exits just after it
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return False
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    return True


def upstream_layout(root: Path, page_html: str, trail_text: str, *, page: str = "index.html") -> Path:
    """Upstream's repository layout: ``examples/sample-app/<page>`` and
    ``trails/playwright-native/test-parts/trail.yaml`` (which navigates ``../../../examples/…``); the trail."""
    import textwrap

    app = root / "repo" / "examples" / "sample-app" / page
    app.parent.mkdir(parents=True)
    app.write_text(page_html)
    trail = root / "repo" / "trails" / "playwright-native" / "test-parts" / "trail.yaml"
    trail.parent.mkdir(parents=True)
    trail.write_text(textwrap.dedent(trail_text))
    return trail


def run_trail(trail: Path, cwd: Path, out: Path) -> Any:
    """``trailblaze run TRAIL`` in a subprocess (no report), from ``cwd``."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", str(trail), "--output-dir", str(out),
                           "--no-report"], capture_output=True, text=True, timeout=300, cwd=cwd, check=False,
                          env=dict(os.environ))
