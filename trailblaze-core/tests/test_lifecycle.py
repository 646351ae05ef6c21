"""One session lifecycle (``trailblaze.runner.lifecycle``): the documented order, every exit path, and a
plugin whose ``session_started`` raises never leaving another plugin's process or port behind — for
``run``, ``snapshot`` and ``tools`` alike.

The plugin under test here starts a real child process and listens on a real loopback port, the two
resources a tool-server plugin holds, so "nothing leaked" is checked against the operating system."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from trailblaze import hookimpl
from trailblaze.driver import DeviceInfo
from trailblaze.plugins import PluginHost
from trailblaze.runner.lifecycle import SessionFactory, SessionLifecycle, finish_session
from trailblaze.runner.options import RunOptions
from trailblaze.session import Session, SessionOutcome
from trailblaze.testing import MemoryDriver, make_session, register_plugin, run_cli

TRAIL = """\
trail:
  - step: wait a moment
    recording:
      memory:
        - wait: {timeToWaitInSeconds: 0}
"""


class Holder:
    """Holds a child process and a listening loopback socket for the session, like a tool-server plugin."""

    def __init__(self, events: list[str]) -> None:
        self.events = events
        self.procs: list[subprocess.Popen[bytes]] = []
        self.ports: list[int] = []
        self._socks: list[socket.socket] = []

    @hookimpl
    def trailblaze_session_started(self, session: Session) -> None:
        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        self.procs.append(proc)
        self._socks.append(sock)
        self.ports.append(sock.getsockname()[1])
        self.events.append("holder.started")

    @hookimpl
    def trailblaze_session_finished(self, session: Session, outcome: SessionOutcome) -> None:
        self.events.append(f"holder.finished:{outcome.value}")
        for proc in self.procs:
            proc.terminate()
            proc.wait(10)
        for sock in self._socks:
            sock.close()

    def assert_nothing_left(self) -> None:
        assert self.procs, "the holder never started"
        assert all(p.poll() is not None for p in self.procs)
        for port in self.ports:
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection(("127.0.0.1", port), timeout=2).close()


class Broken:
    def __init__(self, events: list[str]) -> None:
        self.events = events

    @hookimpl
    def trailblaze_session_started(self, session: Session) -> None:
        self.events.append("broken.started")
        raise RuntimeError("the licence server is down")

    @hookimpl
    def trailblaze_session_finished(self, session: Session, outcome: SessionOutcome) -> None:
        self.events.append(f"broken.finished:{outcome.value}")


@pytest.fixture
def holder_and_broken(plugin_host: PluginHost) -> Iterator[tuple[Holder, list[str]]]:
    """``Broken`` is registered first, so pluggy's last-in-first-out order starts ``Holder`` before it."""
    events: list[str] = []
    holder = Holder(events)
    with register_plugin(plugin_host, Broken(events), "broken"), register_plugin(plugin_host, holder, "holder"):
        yield holder, events
    for proc in holder.procs:  # never leak from the test itself, even when an assertion failed
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("command", [
    ["run", "t.trail.yaml", "--driver", "in-memory", "--no-report"],
    ["snapshot", "--driver", "in-memory"],
    ["tools", "--driver", "in-memory"],
])
def test_a_failing_session_started_still_finishes_every_started_plugin(
        command: list[str], tmp_path: Path, holder_and_broken: tuple[Holder, list[str]],
        plugin_host: PluginHost) -> None:
    holder, events = holder_and_broken
    (tmp_path / "t.trail.yaml").write_text(TRAIL)
    result = run_cli(command, host=plugin_host, cwd=tmp_path)
    assert result.exit_code == 2, result.output
    assert ("plugin 'broken' failed in trailblaze_session_started: RuntimeError: the licence server is down "
            "-- disable it with TRAILBLAZE_DISABLE_PLUGINS=broken") in result.output
    assert "Traceback" not in result.output
    # Both were started (the broken one is recorded before its hook runs), so both are told it ended.
    assert events == ["holder.started", "broken.started", "broken.finished:Error", "holder.finished:Error"]
    holder.assert_nothing_left()


class _Recorder(MemoryDriver):
    events: list[str]

    def start(self, session: Any) -> DeviceInfo:
        self.events.append("driver.start")
        return super().start(session)

    def trail_finished(self, session: Any, ok: bool) -> None:
        self.events.append(f"driver.trail_finished:{ok}")

    def stop(self) -> None:
        self.events.append("driver.stop")
        super().stop()


class _Named:
    def __init__(self, name: str, events: list[str], fail_finish: bool = False) -> None:
        self.name, self.events, self.fail_finish = name, events, fail_finish

    @hookimpl
    def trailblaze_session_started(self, session: Session) -> None:
        self.events.append(f"{self.name}.started")

    @hookimpl
    def trailblaze_session_finished(self, session: Session, outcome: SessionOutcome) -> None:
        self.events.append(f"{self.name}.finished:{outcome.value}")
        if self.fail_finish:
            raise RuntimeError(f"{self.name} could not clean up")


def _recorder(events: list[str]) -> _Recorder:
    driver = _Recorder()
    driver.events = events
    return driver


@pytest.mark.parametrize("how, outcome", [("return", "Succeeded"), ("error", "Error"), ("ctrl-c", "Cancelled")])
def test_factory_open_closes_in_the_documented_order_on_every_exit_path(
        how: str, outcome: str, tmp_path: Path, plugin_host: PluginHost) -> None:
    events: list[str] = []
    warnings: list[str] = []
    with register_plugin(plugin_host, _Named("a", events), "a"), \
            register_plugin(plugin_host, _Named("b", events, fail_finish=True), "b"):
        lifecycle: SessionLifecycle | None = None
        try:
            factory = SessionFactory(RunOptions(output_dir=tmp_path / "logs"), host=plugin_host,
                                     warn=warnings.append)
            with factory.open(workspace=tmp_path, driver=_recorder(events)) as lc:
                lifecycle = lc
                events.append("body")
                if how == "error":
                    raise ValueError("boom")
                if how == "ctrl-c":
                    raise KeyboardInterrupt
        except (ValueError, KeyboardInterrupt):
            pass
    assert lifecycle is not None
    ok = outcome == "Succeeded"
    # b registered last: pluggy order starts it first; finishing goes last-started-first.
    assert events == ["driver.start", "b.started", "a.started", "body", f"driver.trail_finished:{ok}",
                      f"a.finished:{outcome}", f"b.finished:{outcome}", "driver.stop"]
    assert warnings == ["plugin 'b' failed in trailblaze_session_finished: RuntimeError: b could not clean up "
                        "-- disable it with TRAILBLAZE_DISABLE_PLUGINS=b"]
    entries = lifecycle.session.log.entries
    assert entries[-1]["sessionStatus"]["status"] == f"Ended.{outcome}"
    assert lifecycle.finished and lifecycle.finish() == warnings  # idempotent


def test_a_driver_that_fails_to_start_tells_no_plugin(tmp_path: Path, plugin_host: PluginHost) -> None:
    events: list[str] = []

    class NoStart(MemoryDriver):
        def start(self, session: Any) -> DeviceInfo:
            raise OSError("no device attached")

    with register_plugin(plugin_host, _Named("a", events), "a"):
        with pytest.raises(Exception, match="driver 'in-memory' failed to start: OSError: no device attached"):
            with SessionFactory(RunOptions(logging=False), host=plugin_host).open(workspace=tmp_path,
                                                                                  driver=NoStart()):
                events.append("body")
    assert events == []


def test_make_session_and_finish_session_use_the_same_lifecycle(tmp_path: Path, plugin_host: PluginHost) -> None:
    events: list[str] = []
    with register_plugin(plugin_host, _Named("a", events), "a"):
        session = make_session(plugin_host, root=tmp_path, driver=_recorder(events))
        assert finish_session(session, SessionOutcome.FAILED) == []
    assert events == ["driver.start", "a.started", "driver.trail_finished:False", "a.finished:Failed", "driver.stop"]
