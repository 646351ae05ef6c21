"""Servers that misbehave: each gives one clear error with the stderr tail, and no process survives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from trailblaze.errors import ExitCode, InfrastructureError
from trailblaze.tools.base import ToolCall
from trailblaze_mcp_subprocess import reaper, runtimes
from trailblaze_mcp_subprocess.servers import ServerCrashed, ServerStartError


def test_server_exiting_during_initialize(workspace: Any, sessions: Any) -> None:
    root = workspace("""
        mcpServers:
          - script: {servers}/crash_init.py
    """)
    with pytest.raises(ServerStartError) as info:
        sessions.start(root)
    message = str(info.value)
    assert info.value.exit_code == ExitCode.INFRASTRUCTURE
    assert "MCP server 'crash_init'" in message and "exited with code 7 during initialize" in message
    assert "stderr tail: crash_init: cannot load my configuration | crash_init: giving up" in message


def test_server_writing_garbage_to_stdout(workspace: Any, sessions: Any) -> None:
    root = workspace("""
        mcpServers:
          - script: {servers}/garbage.py
    """)
    with pytest.raises(ServerStartError) as info:
        sessions.start(root)
    message = str(info.value)
    assert "wrote something that is not JSON-RPC to stdout during initialize: 'Welcome to my tool server v1!'" in message
    assert "garbage: about to print a banner on stdout (a bug)" in message


def test_handshake_timeout(workspace: Any, sessions: Any) -> None:
    root = workspace("""
        mcpServers:
          - script: ../../sleeper.py
            handshakeTimeoutSeconds: 0.5
    """, files={"sleeper.py": """
        import sys, time
        print("sleeper: thinking", file=sys.stderr, flush=True)
        time.sleep(60)
    """})
    with pytest.raises(ServerStartError) as info:
        sessions.start(root)
    message = str(info.value)
    assert "did not answer initialize within 0.5s" in message and "sleeper: thinking" in message


def test_server_exiting_mid_call(workspace: Any, sessions: Any) -> None:
    root = workspace("""
        mcpServers:
          - script: {servers}/py_tools.py
    """)
    session = sessions.start(root)
    with pytest.raises(ServerCrashed) as info:
        session.dispatcher.call(ToolCall("py_die", {"code": 3}), session.context())
    message = str(info.value)
    assert "exited with code 3 during tools/call 'py_die'" in message
    assert "dying with 3 on purpose" in message
    # the next call to the dead server fails the same way, without waiting for anything
    with pytest.raises(ServerCrashed, match="exited with code 3"):
        session.dispatcher.call(ToolCall("py_echo", {"text": "x"}), session.context())


def test_server_ignoring_sigterm_is_killed(workspace: Any, sessions: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRAILBLAZE_MCP_STDIN_GRACE_MS")
    monkeypatch.delenv("TRAILBLAZE_MCP_TERM_GRACE_MS")  # the real 5 s + 2 s sequence
    root = workspace("""
        mcpServers:
          - script: {servers}/hang.py
    """)
    session = sessions.start(root)
    proc = session.resources["mcp_subprocess"].servers["hang"].process
    sessions.finish(session)
    assert proc.stop_result == "killed (SIGKILL)" and proc.returncode == -signal.SIGKILL
    stopped = next(e for e in session.log.entries if e["class"].endswith("McpServerStoppedLog"))
    assert "hang: stdin closed, staying alive" in stopped["stderrTail"]


def test_a_failing_server_stops_the_others(workspace: Any, sessions: Any) -> None:
    root = workspace("""
        mcpServers:
          - script: {servers}/py_tools.py
          - script: {servers}/crash_init.py
    """)
    with pytest.raises(ServerStartError, match="crash_init"):
        sessions.start(root)
    # the healthy server was started and then stopped: the procs fixture checks its group is gone


def test_missing_typescript_runtime(workspace: Any, sessions: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    runtimes.clear_cache()
    root = workspace("""
        mcpServers:
          - script: {servers}/ts_tools.ts
    """)
    with pytest.raises(InfrastructureError) as info:
        sessions.start(root)
    assert str(info.value) == ("No compatible TypeScript runtime found on PATH. Install bun (https://bun.sh, "
                               "`npm install -g bun`) or Node with tsx (`npm install -g tsx`)")
    node = tmp_path / "node-only"
    node.mkdir()
    if os.path.exists("/usr/bin/node"):
        (node / "node").symlink_to("/usr/bin/node")
        monkeypatch.setenv("PATH", str(node))
        runtimes.clear_cache()
        with pytest.raises(InfrastructureError, match="found node at .* but no tsx"):
            sessions.start(root, session_id="node-only")


def test_command_that_does_not_exist(workspace: Any, sessions: Any) -> None:
    root = workspace("""
        mcpServers:
          - name: ghost
            command: /nonexistent/tool-server
    """)
    with pytest.raises(ServerStartError, match="cannot start MCP server 'ghost' .*No such file"):
        sessions.start(root)


RUNNER = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    import trailblaze_mcp_subprocess.plugin as plugin
    from trailblaze.config import load_workspace
    from trailblaze.testing import make_session, new_host

    host = new_host()
    host.register(plugin, "mcp_subprocess")
    root = Path(sys.argv[1])
    session = make_session(host, root=root, workspace=load_workspace(root, host), start=False)
    host.session_started(session)
    state = session.resources["mcp_subprocess"]
    print(" ".join(str(rs.process.pid) for rs in state.servers.values()), flush=True)
    if sys.argv[2] == "crash":
        raise SystemExit("runner crashed without finishing its session")
    time.sleep(120)
""")


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "crash"])
def test_no_server_outlives_the_runner(how: str, workspace: Any, tmp_path: Path) -> None:
    """The runner is interrupted (Ctrl-C), terminated, or crashes without tearing its session down."""
    root = workspace("""
        mcpServers:
          - script: {servers}/py_tools.py
          - script: {servers}/hang.py
    """)
    script = tmp_path / "runner.py"
    script.write_text(RUNNER)
    runner = subprocess.Popen([sys.executable, str(script), str(root), how], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    assert runner.stdout is not None
    pids = [int(p) for p in runner.stdout.readline().split()]
    assert len(pids) == 2, runner.stderr.read() if runner.stderr else ""
    if how != "crash":
        runner.send_signal(getattr(signal, how))
    runner.wait(30)
    deadline = time.monotonic() + 30  # a bound, not a timing assertion: a loaded CI machine is slow to reap
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [p for p in pids if _alive(p)]
        time.sleep(0.05)
    for pid in alive:  # never leave a stray process behind, even when the assertion fails
        os.kill(pid, signal.SIGKILL)
    assert not alive, f"tool servers outlived the runner ({how}): {alive}"
    runner.stdout.close()
    if runner.stderr is not None:
        runner.stderr.close()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rfind(")") + 2] != "Z"


def _marked(marker: str) -> list[tuple[int, str]]:
    """Live (non-zombie) processes whose environment carries ``marker`` (what the runner passed on)."""
    found: list[tuple[int, str]] = []
    needle = marker.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if needle not in Path(f"/proc/{entry}/environ").read_bytes():
                continue
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if _alive(int(entry)):
            found.append((int(entry), cmdline.strip()))
    return found


def _blocking_run(workspace: Any, tmp_path: Path, servers: str) -> tuple[subprocess.Popen[str], str, Path]:
    """``trailblaze run`` of a trail whose one call blocks in ``py_block``; returns once the call runs."""
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    root = workspace(servers, files={"trails/block.trail.yaml": f"""
        config:
          id: mcp/block
        trail:
          - step: Block in a tool call
            recording:
              host:
                - py_block: {{directory: "{exchange}", tool: dumpMemory, arguments: "{{}}"}}
    """})
    marker = f"TB_RUNNER_TEST_{os.getpid()}_{time.monotonic_ns()}"
    runner = subprocess.Popen(
        [sys.executable, "-m", "trailblaze.cli", "run", str(root / "trails" / "block.trail.yaml"),
         "--output-dir", str(tmp_path / "out"), "--no-report"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, marker: "1"})
    deadline = time.monotonic() + 120  # a bound for a loaded machine, not a timing assertion
    while not (exchange / "ids.json").exists():
        if runner.poll() is not None or time.monotonic() > deadline:
            runner.kill()
            output = runner.communicate()[0]
            raise AssertionError(f"the tool call never started: {output}")
        time.sleep(0.05)
    return runner, marker, exchange


def _left_after(runner: subprocess.Popen[str], marker: str) -> list[tuple[int, str]]:
    left = [p for p in _marked(marker) if p[0] != runner.pid]
    deadline = time.monotonic() + 30
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [p for p in _marked(marker) if p[0] != runner.pid]
    for pid, _ in left:  # never leave a stray process behind, even when the assertion fails
        os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_ctrl_c_mid_call_stops_cleanly(workspace: Any, tmp_path: Path) -> None:
    """Ctrl-C while a tool call runs on the caller-driven loop: the call is cancelled, the run ends without
    a traceback or asyncio noise, and no server is left."""
    runner, marker, _ = _blocking_run(workspace, tmp_path, "mcpServers:\n  - script: {servers}/py_tools.py\n")
    try:
        runner.send_signal(signal.SIGINT)
        output = runner.communicate(timeout=120)[0]
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.communicate()
    assert runner.returncode != 0, output
    for noise in ("Traceback", "never awaited", "was never retrieved", "Task was destroyed", "Exception ignored"):
        assert noise not in output, output
    left = _left_after(runner, marker)
    assert not left, f"processes outlived the interrupted runner: {left}"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux's")
def test_sigkill_of_the_runner_mid_call_leaves_no_tool_server(workspace: Any, tmp_path: Path) -> None:
    """``trailblaze run`` is SIGKILLed while a tool call runs: no code of it runs any more, yet every tool
    server goes — the direct children by their parent-death signal, a server's own child (here a ``sleep``
    a shell wrapper left behind) by the watchdog, which then exits too."""
    runner, marker, _ = _blocking_run(workspace, tmp_path, """
        mcpServers:
          - name: wrapped
            command: /bin/sh
            args: ["-c", "sleep 300 & exec {python} {servers}/py_tools.py"]
          - script: {servers}/hang.py
    """)
    try:
        before = [p for p in _marked(marker) if p[0] != runner.pid]
        commands = " / ".join(c for _, c in before)
        assert "py_tools.py" in commands and "hang.py" in commands and "sleep 300" in commands, commands
        assert "-I -S -c" in commands, f"no watchdog among {commands}"
        runner.send_signal(signal.SIGKILL)
        runner.communicate(timeout=30)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.communicate()
    left = _left_after(runner, marker)
    assert not left, f"processes outlived the SIGKILLed runner: {left}"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_descendants_that_leave_the_group_with_setsid_do_not_outlive_the_session(
        workspace: Any, sessions: Any, tmp_path: Path) -> None:
    """A server whose child starts its own session (``setsid``, as a daemon does) and double-forks: killing
    the server's process group does not reach it; the server's mark in its environment does."""
    pid_file = tmp_path / "daemon.pid"
    root = workspace(f"""
        mcpServers:
          - script: ../../daemonizing.py
    """, files={"daemonizing.py": f"""
        import subprocess, sys
        from mcp.server.mcpserver import MCPServer

        # A new session (setsid) whose shell forks sleep and exits: the sleep is an orphan of its own group.
        subprocess.Popen(["sh", "-c", "sleep 300 & echo $! > {pid_file}"], start_new_session=True).wait()
        app = MCPServer("daemonizing")

        @app.tool(name="daemon_ping", description="Answer.")
        async def ping() -> str:
            return "pong"

        if __name__ == "__main__":
            app.run()
    """})
    session = sessions.start(root)
    daemon = int(pid_file.read_text())
    try:
        assert _alive(daemon)
        assert os.getpgid(daemon) not in reaper._live  # out of reach of killpg on the server's group
        sessions.finish(session)
        deadline = time.monotonic() + 30  # a bound for a loaded machine, not a timing assertion
        while _alive(daemon) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(daemon), "a setsid descendant of the tool server outlived the session"
    finally:
        if _alive(daemon):
            os.kill(daemon, signal.SIGKILL)
