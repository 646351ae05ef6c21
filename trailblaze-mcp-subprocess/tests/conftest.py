"""Fixtures for the MCP plugin tests: real tool server subprocesses, real loopback HTTP, real sessions."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trailblaze_mcp_subprocess.plugin as mcp_plugin
from trailblaze.config import load_workspace
from trailblaze.driver import DeviceInfo
from trailblaze.plugins import PluginHost
from trailblaze.session import Session, SessionOutcome
from trailblaze.testing import installed_host, make_session, new_host
from trailblaze.testing.offline import RegistrySentinel, link_node_modules
from trailblaze_mcp_subprocess import runtimes

SERVERS = Path(__file__).parent / "servers"
REPO = Path(__file__).resolve().parents[2]
NODE_BIN = REPO / ".tools" / "node" / "node_modules" / ".bin"
NODE_MODULES = REPO / ".tools" / "node" / "node_modules"


@pytest.fixture
def host() -> Iterator[PluginHost]:
    h = new_host()
    h.register(mcp_plugin, "mcp_subprocess")
    with installed_host(h):
        yield h


@pytest.fixture(autouse=True)
def _fast_teardown(monkeypatch: pytest.MonkeyPatch) -> None:
    """Well-behaved servers exit on stdin EOF at once; the hang test restores the real 5 s / 2 s."""
    monkeypatch.setenv("TRAILBLAZE_MCP_STDIN_GRACE_MS", "3000")
    monkeypatch.setenv("TRAILBLAZE_MCP_TERM_GRACE_MS", "1000")


def _group_members(pgid: int) -> list[tuple[int, str]]:
    """Live (non-zombie) processes in process group ``pgid``, from /proc."""
    out: list[tuple[int, str]] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            out.append((int(entry), fields[0]))
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1 and fields[1] == str(pid) and fields[0] != "Z":
            found.append(int(entry))
    return found


class ProcessCheck:
    """Remembers the server process groups a session spawned and asserts none survives."""

    def __init__(self) -> None:
        self.groups: set[int] = set()

    def note(self, session: Session) -> None:
        state = session.resources.get("mcp_subprocess")
        if state is not None:
            for rs in state.servers.values():
                if rs.process is not None and rs.process.pid is not None:
                    self.groups.add(rs.process.pid)

    def assert_none_left(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        left: dict[int, list[tuple[int, str]]] = {}
        while time.monotonic() < deadline:
            left = {g: m for g in self.groups if (m := _group_members(g))}
            if not left:
                break
            time.sleep(0.05)
        assert not left, f"server processes outlived the session: {left}"
        stray = [p for p in _children(os.getpid()) if p in self.groups]
        assert not stray, f"child processes remain: {stray}"
        # the SIGKILL watchdog lives exactly as long as some server does
        watchdogs = [p for p in _children(os.getpid()) if _cmdline(p).startswith((sys.executable + " -I -S -c",))]
        assert not watchdogs, f"the watchdog outlived the servers: {watchdogs}"


@pytest.fixture
def procs() -> Iterator[ProcessCheck]:
    check = ProcessCheck()
    yield check
    check.assert_none_left()


Workspace = Callable[..., Path]


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    """``workspace(yaml)`` writes ``trails/config/trailblaze.yaml`` (with ``{servers}`` = tests/servers)."""

    def _make(config: str, root: Path | None = None, files: dict[str, str] | None = None) -> Path:
        base = root or tmp_path / "ws"
        (base / "trails" / "config").mkdir(parents=True, exist_ok=True)
        text = textwrap.dedent(config).replace("{servers}", str(SERVERS)).replace("{python}", sys.executable)
        (base / "trails" / "config" / "trailblaze.yaml").write_text(text)
        for rel, content in (files or {}).items():
            path = base / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(content))
        return base

    return _make


class Sessions:
    """Starts sessions against a workspace and finishes every one at teardown."""

    def __init__(self, host: PluginHost, procs: ProcessCheck) -> None:
        self.host = host
        self.procs = procs
        self.open: list[Session] = []

    def start(self, root: Path, *, device: DeviceInfo | None = None, memory: dict[str, Any] | None = None,
              secrets: dict[str, Any] | None = None, session_id: str = "test-session",
              target: str | None = None, options: dict[str, Any] | None = None) -> Session:
        ws = load_workspace(root, self.host)
        session = make_session(self.host, root=root, workspace=ws, memory=memory, secrets=secrets,
                               start=False, session_id=session_id)
        session.device = device or DeviceInfo(platform="host", driver="host", width=1080, height=2400)
        session.target = target
        for key, value in (options or {}).items():  # e.g. agent_mode="ondevice"
            setattr(session.options, key, value)
        self.open.append(session)
        try:
            self.host.session_started(session)
        finally:
            self.procs.note(session)
        return session

    def finish(self, session: Session) -> None:
        self.procs.note(session)
        errors = self.host.session_finished(session, SessionOutcome.SUCCEEDED)
        session.log.close()
        if session in self.open:
            self.open.remove(session)
        assert not errors, errors

    def close_all(self) -> None:
        for session in list(self.open):
            self.finish(session)


@pytest.fixture
def sessions(host: PluginHost, procs: ProcessCheck) -> Iterator[Sessions]:
    s = Sessions(host, procs)
    yield s
    s.close_all()


# -- TypeScript runtimes --------------------------------------------------------------------------
def _node_path() -> str:
    return os.pathsep.join(p for p in (str(NODE_BIN), os.environ.get("PATH", "")) if p)


def bun_path() -> str | None:
    """A PATH where ``bun`` is found (the project's .tools first), or None."""
    path = _node_path()
    return path if shutil.which("bun", path=path) else None


def tsx_only_path(tmp: Path) -> str | None:
    """A PATH with node and tsx but no bun (to test the node + tsx fallback), or None."""
    node = shutil.which("node")
    tsx = shutil.which("tsx", path=_node_path())
    if node is None or tsx is None:
        return None
    only = tmp / "tsx-only-bin"
    only.mkdir(exist_ok=True)
    for name, target in (("node", node), ("tsx", tsx)):
        link = only / name
        if not link.exists():
            link.symlink_to(target)
    return os.pathsep.join([str(only), "/usr/bin", "/bin"])


@pytest.fixture(params=["bun", "node+tsx"])
def ts_runtime(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
               offline: RegistrySentinel) -> str:
    """Runs the test under bun, then under node + tsx; skipped (with the reason) where one is absent."""
    if request.param == "bun":
        path = bun_path()
        if path is None:
            pytest.skip("bun is not installed (scripts/bootstrap.sh puts it in .tools/node)")
    else:
        path = tsx_only_path(tmp_path)
        if path is None:
            pytest.skip("node and tsx are not both installed (scripts/bootstrap.sh puts tsx in .tools/node)")
    if not (NODE_MODULES / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.skip("@modelcontextprotocol/sdk is not installed (scripts/bootstrap.sh installs it in .tools/node)")
    link_node_modules(REPO, NODE_MODULES)  # what scripts/bootstrap.sh links: servers resolve the SDK from it
    monkeypatch.setenv("PATH", path)
    monkeypatch.delenv("NODE_PATH", raising=False)  # a real node_modules, not a lookup path, serves imports
    for name, value in offline.env().items():
        monkeypatch.setenv(name, value)
    runtimes.clear_cache()
    return str(request.param)


@pytest.fixture
def offline() -> Iterator[RegistrySentinel]:
    """Registry and proxies on a loopback listener, an empty bun cache: no server may fetch a package."""
    with RegistrySentinel() as sentinel:
        yield sentinel
    assert sentinel.connections == 0, "a tool server tried the network (package registry or proxy)"


PostJson = Callable[..., tuple[int, dict[str, Any]]]


def _post(url: str, body: bytes, *, headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json",
                                                                          **(headers or {})})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


@pytest.fixture
def post_json() -> PostJson:
    """``post_json(url, body_bytes)`` → ``(status, parsed JSON)``, HTTP errors included, never via a proxy."""
    return _post


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_tool_server() -> Iterator[str]:
    """The Python tool server in streamable-HTTP mode on a free loopback port (not ours to stop by the plugin)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVERS / "py_tools.py"), "http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "PY_TOOLS_PREFIX": "web"})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"HTTP tool server exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
