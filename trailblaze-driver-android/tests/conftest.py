"""Fixtures for the Appium drivers: page-source fixtures, and a real Appium server with the fake driver.

The server fixture is session-scoped, so under xdist each worker starts its own on a free loopback port;
at the end it stops the server's whole process group and asserts nothing of it is left running.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
import trailblaze_driver_android.appium.plugin as mobile_plugin
import trailblaze_driver_android.plugin as android_plugin
from trailblaze.plugins import PluginHost
from trailblaze.session import Session
from trailblaze.testing import finish_session, installed_host, make_session, new_host
from trailblaze_driver_android.appium import server as managed
from trailblaze_driver_android.appium.hierarchy import Hierarchy, parse_page_source

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
FAKE_APP_DIR = REPO / "examples" / "mobile" / "fake-shop" / "app"
FAKE_ANDROID_APP = FAKE_APP_DIR / "shop-android.xml"
FAKE_IOS_APP = FAKE_APP_DIR / "shop-ios.xml"


def appium_setup() -> tuple[str, dict[str, str]]:
    """The appium binary and the environment it needs (APPIUM_HOME with the fake driver)."""
    env: dict[str, str] = {}
    binary = os.environ.get(managed.ENV_BIN)
    local = REPO / ".tools" / "node" / "node_modules" / ".bin" / "appium"
    if not binary and local.exists():
        binary = str(local)
    binary = binary or shutil.which("appium")
    if not binary:
        pytest.fail("Appium is not installed: run scripts/bootstrap.sh (npm appium@3 + @appium/fake-driver into "
                    ".tools), or set TRAILBLAZE_APPIUM_BIN")
    home = os.environ.get("APPIUM_HOME") or (str(REPO / ".tools" / "appium-home")
                                            if (REPO / ".tools" / "appium-home").exists() else None)
    if home:
        env["APPIUM_HOME"] = home
    return binary, env


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def list_appium_processes() -> list[tuple[int, str]]:
    """Every running process whose command line mentions appium (Linux /proc)."""
    out: list[tuple[int, str]] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if "appium" in cmd and "pytest" not in cmd:
            out.append((int(entry.name), cmd.strip()))
    return out


@pytest.fixture
def appium_processes() -> Callable[[], list[tuple[int, str]]]:
    """Lists running appium processes (pid, command line)."""
    return list_appium_processes


@pytest.fixture(scope="session")
def appium_env() -> Iterator[tuple[str, dict[str, str]]]:
    binary, env = appium_setup()
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield binary, env
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="session")
def appium_server(appium_env: tuple[str, dict[str, str]]) -> Iterator[managed.ManagedServer]:
    """A real Appium 3 server with @appium/fake-driver on a free 127.0.0.1 port (one per xdist worker)."""
    binary, _env = appium_env
    # session_discovery lets tests list the server's live sessions (GET /appium/sessions).
    server = managed.ManagedServer(binary, ("--allow-insecure", "*:session_discovery"))
    server.start(timeout=90)
    pid = server.pid
    assert pid is not None
    try:
        yield server
    finally:
        server.stop()
        managed.shutdown_all()
        assert not group_alive(pid), "the Appium server's process group is still alive"
        leftovers = [p for p, cmd in list_appium_processes() if f"--port {server.port}" in cmd]
        assert not leftovers, f"Appium processes left running: {leftovers}"


@pytest.fixture
def mobile_host() -> Iterator[PluginHost]:
    """Core built-ins plus the android and mobile plugins (no installed entry points)."""
    host = new_host()
    host.register(android_plugin, "android")
    host.register(mobile_plugin, "mobile")
    try:
        import trailblaze_driver_ios.plugin as ios_plugin

        host.register(ios_plugin, "ios")
    except ImportError:  # the iOS distribution is optional for these tests
        pass
    with installed_host(host):
        yield host


SessionFactory = Callable[..., Session]


@pytest.fixture
def fake_session(mobile_host: PluginHost, appium_server: managed.ManagedServer,
                 tmp_path: Path) -> Iterator[SessionFactory]:
    """``fake_session(platform="android", **settings)``: a started session on the fake driver."""
    from trailblaze_driver_android.driver import AndroidAppiumDriver, AndroidDriverConfig

    sessions: list[Session] = []

    def make(platform: str = "android", **settings: Any) -> Session:
        base: dict[str, Any] = {"server_url": appium_server.url, "platform_name": "Fake", "automation_name": "Fake",
                                "wait_timeout_ms": 1500, "poll_interval_ms": 50}
        base.update(settings)
        if platform == "android":
            base.setdefault("app", str(FAKE_ANDROID_APP))
            driver: Any = AndroidAppiumDriver(AndroidDriverConfig(**base))
        else:
            from trailblaze_driver_ios.driver import IosAppiumDriver, IosDriverConfig

            base.setdefault("app", str(FAKE_IOS_APP))
            driver = IosAppiumDriver(IosDriverConfig(**base))
        session = make_session(mobile_host, root=tmp_path, driver=driver, session_id=f"s{len(sessions)}")
        sessions.append(session)
        return session

    try:
        yield make
    finally:
        for session in sessions:
            finish_session(session)


def load_fixture(name: str, platform: str | None = None) -> Hierarchy:
    return parse_page_source((FIXTURES / name).read_text(encoding="utf-8"), platform)


@pytest.fixture
def fixture_tree() -> Callable[[str], Hierarchy]:
    """``fixture_tree("uia2_settings.xml")``: a parsed page-source fixture."""
    return load_fixture


TRAILBLAZE = Path(sys.executable).parent / "trailblaze"


def _run_trailblaze(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    full.update(env or {})
    return subprocess.run([str(TRAILBLAZE), *args], cwd=cwd, capture_output=True, text=True, env=full, timeout=300,
                          check=False)


@pytest.fixture
def run() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run(["run", "trails"], cwd=ws, env={...})``: the installed ``trailblaze`` command in a subprocess."""
    return _run_trailblaze


def _fake_workspace(root: Path, server_url: str | None) -> Path:
    shutil.copytree(FAKE_APP_DIR, root / "app")
    drivers: dict[str, Any] = {}
    for key, app in (("android-appium-uiautomator2", "app/shop-android.xml"), ("ios-appium-xcuitest", "app/shop-ios.xml")):
        settings: dict[str, Any] = {"platform_name": "Fake", "automation_name": "Fake", "app": app,
                                    "wait_timeout_ms": 800, "poll_interval_ms": 50}
        if server_url:
            settings["server_url"] = server_url
        drivers[key] = settings
    (root / "trails" / "config").mkdir(parents=True)
    with open(root / "trails" / "config" / "trailblaze.yaml", "w", encoding="utf-8") as fh:
        YAML().dump({"drivers": drivers}, fh)
    return root


@pytest.fixture
def fake_workspace() -> Callable[[Path, str | None], Path]:
    """``fake_workspace(dir, server_url)``: a workspace whose Android and iOS drivers use the fake app
    (``server_url=None``: Trailblaze manages the Appium server)."""
    return _fake_workspace
