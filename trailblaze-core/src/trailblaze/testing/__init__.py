"""Test helpers for plugin authors: an opt-in pytest plugin.

Enable it in a test suite with ``pytest_plugins = ["trailblaze.testing"]`` (it is deliberately not
auto-loaded, so it never touches unrelated suites). It gives you:

* ``plugin_host`` — a fresh ``PluginHost`` with only the core built-ins and this module's in-memory
  driver; installed entry points are *not* loaded, so tests see exactly what they register.
* ``register_plugin(host, obj)`` — a context manager that registers a plugin object for one block.
* ``MemoryDriver`` — an in-memory device (driver key ``in-memory``): a list of on-screen elements
  you set, and a record of every action tools performed on it, for testing tools without a device.
* ``make_session(host, ...)`` / ``memory_session`` fixture — a started session on the in-memory device,
  to call tools through the real dispatcher; ``finish_session(session)`` closes it (plugins, driver,
  log) in the order ``trailblaze.runner.lifecycle`` documents.
* ``run_cli(args, ...)`` — run the ``trailblaze`` command in-process and capture exit code and output.
* ``host_with_plugins(*names)`` — a test host plus chosen installed plugins (``yaml_tools``,
  ``mcp_subprocess``, a driver...), loaded from their entry points as ``trailblaze`` loads them.
* ``open_session(host, ...)`` — a started session that is closed on every path (plugins' session hooks,
  driver stopped, log flushed): MCP servers and devices a test starts are always stopped.
* ``make_driver(key_or_class, **settings)`` — a driver with its settings validated (defaults filled in)
  exactly as ``trailblaze run`` builds it.

Test modules may import these helpers and name the module in ``pytest_plugins`` at once: the module is
exempt from assertion rewriting (PYTEST_DONT_REWRITE), so pytest has nothing to warn about.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, overload

from ..config import WorkspaceConfig
from ..contract.markers import hookimpl
from ..driver import DeviceInfo, Driver, DriverConfig, DriverRegistry, StepInfo
from ..logs import SessionLog
from ..memory import Memory, Redactor
from ..plugins import PluginHost, set_host
from ..runner.lifecycle import SessionLifecycle, finish_session
from ..session import Session, SessionOutcome
from ..tools.registry import ToolRegistry


class MemoryDriverConfig(DriverConfig):
    width: int = 1080
    height: int = 2400
    classifiers: list[str] = ["memory"]
    elements: list[str] = []
    """Texts initially on the in-memory screen."""
    device: str | None = None
    """Instance id (``-d memory/<id>``); reported as the device id."""


class MemoryDriver(Driver[MemoryDriverConfig]):
    """A device that lives in memory: ``elements`` are what is on screen, ``actions`` what tools did."""

    key = "in-memory"
    aliases = ("IN_MEMORY", "MEMORY")
    platform = "memory"
    description = "In-memory device for tests: no screen, records actions."
    config_model = MemoryDriverConfig
    default_classifiers = ("memory",)

    def __init__(self, config: MemoryDriverConfig | None = None) -> None:
        super().__init__(config or MemoryDriverConfig())
        self.elements: list[str] = list(self.config.elements)
        self.actions: list[tuple[str, dict[str, Any]]] = []
        self.step_events: list[tuple[str, int, str | None]] = []
        """The step lifecycle as the driver was told it: ``("started", number, text)``, then
        ``("passed" | "failed", number, text)`` for each step."""
        self.started = False
        self.stopped = False

    def start(self, session: Session) -> DeviceInfo:
        cfg = self.config
        self.started = True
        return DeviceInfo(platform=self.platform, driver=self.key, classifiers=list(cfg.classifiers),
                          width=cfg.width, height=cfg.height, device_id=cfg.device or "memory-1")

    def stop(self) -> None:
        self.stopped = True

    def step_started(self, session: Session, step: StepInfo) -> None:
        self.step_events.append(("started", step.number, step.text))

    def step_finished(self, session: Session, step: StepInfo, ok: bool) -> None:
        self.step_events.append(("passed" if ok else "failed", step.number, step.text))

    def act(self, action: str, **details: Any) -> None:
        """Tools call this to record what they did."""
        self.actions.append((action, details))

    def snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        return "\n".join(f'[e{i + 1}] "{text}"' for i, text in enumerate(self.elements)) or "(empty screen)"


class _TestingPlugin:
    """Registers the in-memory driver into hosts built by these helpers."""

    @hookimpl
    def trailblaze_register_drivers(self, registry: DriverRegistry) -> None:
        registry.add_driver(MemoryDriver)


def new_host(*, load_entrypoints: bool = False) -> PluginHost:
    """A fresh host with the core built-ins and the in-memory driver."""
    host = PluginHost(load_entrypoints=load_entrypoints)
    host.register(_TestingPlugin(), name="trailblaze.testing")
    return host


@contextlib.contextmanager
def register_plugin(host: PluginHost, plugin: Any, name: str | None = None) -> Iterator[str]:
    """Register ``plugin`` on ``host`` for the duration of the block."""
    registered = host.register(plugin, name)
    try:
        yield registered
    finally:
        host.unregister(registered)


@contextlib.contextmanager
def installed_host(host: PluginHost) -> Iterator[PluginHost]:
    """Make ``host`` the process-wide host (what the CLI and runner use) for the block."""
    previous = set_host(host)
    try:
        yield host
    finally:
        set_host(previous)


def make_session(host: PluginHost, *, root: Path, driver: Driver | None = None,
                 memory: Mapping[str, Any] | None = None, secrets: Mapping[str, Any] | None = None,
                 workspace: WorkspaceConfig | None = None, start: bool = True, session_id: str = "test-session") -> Session:
    """A session on ``driver`` (default: a new ``MemoryDriver``) with every registered tool.

    With ``start`` (the default) it is opened by the same lifecycle as ``trailblaze run``'s sessions;
    close it with ``finish_session(session)`` (the ``memory_session`` fixture does). With
    ``start=False`` it is only built: start and finish it yourself."""
    ws = workspace or WorkspaceConfig(root=root)
    registry = ToolRegistry()
    host.register_tools(registry, ws)
    mem = Memory.seeded(cli_memory=memory, secrets=secrets)
    redactor = Redactor()  # this session is the whole "run": its memory's secrets, as they are added
    redactor.watch(mem)
    log_dir = root / "logs" / session_id
    session = Session(id=session_id, host=host, workspace=ws, registry=registry, memory=mem,
                      log=SessionLog(log_dir, session_id, redactor), log_dir=log_dir)
    session.driver = driver if driver is not None else MemoryDriver()
    from ..llm.registry import PROVIDERS_KEY

    session.resources[PROVIDERS_KEY] = host.llm_providers  # built when a tool first asks the model
    if start:
        lifecycle = SessionLifecycle(session)
        try:
            lifecycle.start()
        except BaseException:
            lifecycle.finish(SessionOutcome.ERROR)
            raise
    return session


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str
    output: str = field(init=False)

    def __post_init__(self) -> None:
        self.output = self.stdout + self.stderr


def run_cli(args: list[str], *, host: PluginHost | None = None, cwd: Path | None = None,
            env: Mapping[str, str] | None = None) -> CliResult:
    """Run ``trailblaze ARGS`` in this process (with ``host`` as the plugin host) and capture the result."""
    from click.testing import CliRunner

    from ..cli import cli

    runner = CliRunner()
    old_cwd = Path.cwd()
    with contextlib.ExitStack() as stack:
        if host is not None:
            stack.enter_context(installed_host(host))
        if cwd is not None:
            os.chdir(cwd)
            stack.callback(os.chdir, old_cwd)
        result = runner.invoke(cli, args, env=dict(env) if env else None, catch_exceptions=False)
    stderr = result.stderr if result.stderr_bytes is not None else ""
    return CliResult(result.exit_code, result.stdout, stderr)


# -- pytest fixtures (active only when a suite opts in with pytest_plugins = ["trailblaze.testing"]) ----
class CliProcess:
    """``trailblaze ARGS`` as a real subprocess, for tests that signal or kill a run.

    The process gets a session of its own (a signal sent to it reaches it alone, as a CI runner's
    would) and a unique ``TRAILBLAZE_TEST_RUN`` marker in its environment, which every process it
    starts inherits: ``children()`` finds a run's browsers and servers wherever they were reparented."""

    def __init__(self, args: list[str], *, cwd: Path, env: Mapping[str, str] | None = None,
                 program: Sequence[str] | None = None) -> None:
        """``program`` runs instead of ``trailblaze`` (``[sys.executable, "-m", "pytest"]`` signals a
        ``pytest --trails`` run the same way)."""
        import subprocess
        import sys
        import uuid

        self.marker = uuid.uuid4().hex
        full = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        full.update(env or {})
        full["TRAILBLAZE_TEST_RUN"] = self.marker
        command = list(program) if program is not None else [str(Path(sys.executable).parent / "trailblaze")]
        self.proc = subprocess.Popen([*command, *args], cwd=cwd, env=full, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_until(self, condition: Any, timeout: float = 120.0) -> Any:
        """Poll ``condition()`` until it is truthy and return it; AssertionError (with the run's output)
        if the run ends first or ``timeout`` passes."""
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = condition()
            if found:
                return found
            if self.proc.poll() is not None:
                code, output = self.finish()
                raise AssertionError(f"the run ended early (exit {code}):\n{output}")
            time.sleep(0.2)
        self.kill()
        raise AssertionError(f"timed out after {timeout:g}s waiting for the run")

    def finish(self, timeout: float = 120.0) -> tuple[int, str]:
        """Wait for the run; its exit code and its stdout followed by its stderr."""
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out + err

    def kill(self) -> None:
        """SIGKILL the runner alone (not its children: what they do then is what tests look at)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()

    def children(self, containing: str = "") -> list[tuple[int, str]]:
        """Live processes other than the runner that carry this run's marker (Linux ``/proc``), as
        (pid, command line), optionally only those whose command line contains ``containing``."""
        needle = f"TRAILBLAZE_TEST_RUN={self.marker}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == self.proc.pid:
                continue
            try:
                if needle not in (entry / "environ").read_bytes():
                    continue
                if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace").strip()
            except OSError:
                continue
            if containing in cmd:
                found.append((int(entry.name), cmd))
        return found

    def children_left(self, timeout: float = 30.0) -> list[tuple[int, str]]:
        """``children()`` once they are all gone, or what is still there after ``timeout``."""
        import time

        deadline = time.monotonic() + timeout
        left = self.children()
        while left and time.monotonic() < deadline:
            time.sleep(0.2)
            left = self.children()
        return left


try:
    import pytest as _pytest
except ImportError:  # pragma: no cover - pytest is optional for the library itself
    _pytest = None  # type: ignore[assignment]

if _pytest is not None:

    @_pytest.fixture
    def plugin_host() -> Iterator[PluginHost]:
        """A fresh plugin host (no installed entry points), installed as the process-wide host."""
        host = new_host()
        with installed_host(host):
            yield host

    @_pytest.fixture
    def memory_session(plugin_host: PluginHost, tmp_path: Path) -> Iterator[Session]:
        """A started session on a ``MemoryDriver``; finished and its log flushed afterwards."""
        session = make_session(plugin_host, root=tmp_path)
        try:
            yield session
        finally:
            finish_session(session)


__all__ = ["CliProcess", "CliResult", "MemoryDriver", "MemoryDriverConfig", "finish_session", "installed_host", "make_session", "new_host",
           "register_plugin", "run_cli"]


# -- more for plugin authors: chosen installed plugins, a session that always closes, a configured driver ----
def host_with_plugins(*names: str) -> PluginHost:
    """A fresh test host (core built-ins, in-memory driver) plus these installed plugins, by entry-point name.

    Loads exactly the plugins a test needs (``host_with_plugins("yaml_tools", "mcp_subprocess")``), the
    way ``trailblaze`` loads them, so a test does not depend on what else happens to be installed.
    ``new_host(load_entrypoints=True)`` loads every installed plugin instead.
    """
    from ..errors import BadInputError
    from ..host.loader import installed_entry_points

    host = new_host()
    by_name = {ep.name: ep for ep in installed_entry_points()}
    for name in names:
        ep = by_name.get(name)
        if ep is None:
            raise BadInputError(f"no installed plugin named '{name}'",
                                hint=f"installed: {', '.join(sorted(by_name)) or 'none'}")
        host.register(ep.load(), ep.name)
    return host


@contextlib.contextmanager
def open_session(host: PluginHost, *, root: Path, driver: Driver | None = None,
                 memory: Mapping[str, Any] | None = None, secrets: Mapping[str, Any] | None = None,
                 workspace: WorkspaceConfig | None = None, session_id: str = "test-session") -> Iterator[Session]:
    """``make_session`` that also ends the session, however the block exits.

    Ending runs ``trailblaze_session_finished`` for every plugin (MCP servers stop there), stops the
    driver and flushes the log, which is what a run does; the outcome is ``Error`` when the block raised.
    Pass ``workspace=load_workspace(root, host)`` to use the workspace's ``trailblaze.yaml`` (YAML tools,
    ``mcpServers``).
    """
    session = make_session(host, root=root, driver=driver, memory=memory, secrets=secrets, workspace=workspace,
                           session_id=session_id)
    outcome = SessionOutcome.SUCCEEDED
    try:
        yield session
    except BaseException:
        outcome = SessionOutcome.ERROR
        raise
    finally:
        finish_session(session, outcome)


D = TypeVar("D", bound=Driver)


@overload
def make_driver(driver: type[D], *, host: PluginHost | None = None, **settings: Any) -> D: ...
@overload
def make_driver(driver: str, *, host: PluginHost | None = None, **settings: Any) -> Driver: ...
def make_driver(driver: type[Driver] | str, *, host: PluginHost | None = None, **settings: Any) -> Driver:
    """A driver built as ``trailblaze run`` builds it: ``settings`` validated by its ``config_model``
    (unknown or wrong settings raise ``ConfigError`` naming the key; the rest get their defaults).

    ``driver`` is a ``Driver`` subclass or a driver key/alias registered on ``host`` (default: the
    process-wide host).
    """
    from ..config import validate_config
    from ..plugins import get_host

    if isinstance(driver, str):
        registry = DriverRegistry()
        (host or get_host()).register_drivers(registry)
        cls = registry.resolve(driver)
    else:
        cls = driver
    return cls(validate_config(cls.config_model, settings, owner=f"driver '{cls.key}'"))


__all__ += ["host_with_plugins", "make_driver", "open_session"]


def endpoints_by_worker(output_dir: Path, pool: list[str]) -> dict[str, str]:
    """The one endpoint each xdist worker of a merged ``run -n`` used (asserting every trail names one of
    ``pool``, each worker used exactly one, and no endpoint served two workers)."""
    from ..report.bundle import read_bundle

    used: dict[str, set[str]] = {}
    for record in read_bundle(output_dir).records:
        assert record.endpoint in pool, f"{record.title} ran on {record.endpoint!r}, not one of {pool}"
        used.setdefault(str(record.worker), set()).add(str(record.endpoint))
    assert all(len(endpoints) == 1 for endpoints in used.values()), f"a worker used several endpoints: {used}"
    chosen = {worker: next(iter(endpoints)) for worker, endpoints in used.items()}
    assert len(set(chosen.values())) == len(chosen), f"an endpoint served two workers: {chosen}"
    return chosen


__all__ += ["endpoints_by_worker"]
