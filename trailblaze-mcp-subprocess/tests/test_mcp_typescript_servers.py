"""The TypeScript tool server (official @modelcontextprotocol/sdk), under bun and under node + tsx.

Each test runs twice (``ts_runtime``); a runtime that is not installed skips with the reason. No runtime may
fetch a package: bun runs with ``--no-install`` and an empty cache, the registry and proxies point at a
loopback listener that must see no connection, and the SDK resolves from a real ``node_modules``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from trailblaze.driver import DeviceInfo
from trailblaze.errors import ExitCode
from trailblaze.testing.offline import link_node_modules
from trailblaze.tools.base import ToolCall
from trailblaze_mcp_subprocess.servers import ServerCrashed, ServerStartError

pytestmark = pytest.mark.node

SERVERS = Path(__file__).parent / "servers"
NODE_MODULES = Path(__file__).resolve().parents[2] / ".tools" / "node" / "node_modules"

TS_SERVER = """
mcpServers:
  - script: {servers}/ts_tools.ts
"""


def call(session: Any, name: str, /, **args: Any) -> Any:
    return session.dispatcher.call(ToolCall(name, args), session.context())


def test_discovery_and_filters(ts_runtime: str, workspace: Any, sessions: Any) -> None:
    root = workspace(TS_SERVER)
    session = sessions.start(root)
    rs = session.resources["mcp_subprocess"].servers["ts_tools"]
    assert rs.launch.runtime == ts_runtime
    assert {d.name for d in session.registry if d.kind == "mcp"} == {
        "ts_echo", "ts_context", "ts_hostOnly", "ts_otherToolset", "ts_env", "ts_remember", "ts_delegate",
        "ts_callback", "ts_die"}
    assert session.registry.get("ts_otherToolset").toolsets == ("otherToolset",)
    android = sessions.start(root, device=DeviceInfo(platform="android", driver="android-ondevice-accessibility"),
                             session_id="android")
    assert "ts_driverOnly" in android.registry


def test_tier1_and_tier2_handlers(ts_runtime: str, workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(TS_SERVER), memory={"x": "7"}, secrets={"pin": "1234"})
    assert call(session, "ts_echo", text="hi").message == "echo: hi"
    result = call(session, "ts_context")
    assert result.message == "host:7"
    assert result.data["envelope"] == {"memory": {"x": "7"}, "device": {
        "platform": "host", "driverType": "host", "widthPixels": 1080, "heightPixels": 2400}}
    assert result.data["meta"]["trailblaze"]["invocationId"].startswith("inv-")
    assert "1234" not in json.dumps(result.data)
    assert "_trailblazeContext" not in json.dumps(session.registry.get("ts_context").input_schema)


def test_environment_is_inherited(ts_runtime: str, workspace: Any, sessions: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SENTINEL", "from-the-parent")
    session = sessions.start(workspace(TS_SERVER))
    env = call(session, "ts_env", names=["SENTINEL", "TRAILBLAZE_DEVICE_PLATFORM", "TRAILBLAZE_TOOLSET_FILE"]).data
    assert env == {"SENTINEL": "from-the-parent", "TRAILBLAZE_DEVICE_PLATFORM": "HOST",
                   "TRAILBLAZE_TOOLSET_FILE": str(Path(__file__).parent / "servers" / "ts_tools.ts"),
                   "cwd": str(Path(__file__).parent / "servers")}


def test_memory_delegation_and_callbacks(ts_runtime: str, workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(TS_SERVER))
    call(session, "ts_remember", key="a", value="1")
    assert session.memory.get("a") == "1"
    assert call(session, "ts_delegate", key="b", value="2").success and session.memory.get("b") == "2"
    # ts_delegate does not say isRecordable: false, yet a recording keeps its delegates, not the wrapper
    assert session.registry.get("ts_delegate").is_recordable is True
    from trailblaze.agent.recording import recording_from_executed

    assert recording_from_executed(session.executed[-2:]) == [ToolCall("rememberValue", {"variable": "b", "value": "2"})]
    result = call(session, "ts_callback", key="c", value="3")
    assert result.data == {"memory": {"a": "1", "b": "2", "c": "3"}}
    assert [(e.authored.name, e.depth) for e in session.executed][-3:] == [
        ("rememberValue", 1), ("dumpMemory", 1), ("ts_callback", 0)]


def test_crash_mid_call(ts_runtime: str, workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(TS_SERVER))
    with pytest.raises(ServerCrashed) as info:
        call(session, "ts_die")
    assert "exited with code 4 during tools/call 'ts_die'" in str(info.value)
    assert "ts_die: exiting on purpose" in str(info.value)


def test_a_server_outside_the_repository_resolves_from_its_own_node_modules(
        ts_runtime: str, workspace: Any, sessions: Any, tmp_path: Path) -> None:
    """bun never installs (``--no-install``, empty cache, registry on a loopback sentinel): the server's folder
    has a ``node_modules``, as a user's project does after ``npm install``."""
    folder = tmp_path / "server"
    folder.mkdir()
    shutil.copy(SERVERS / "ts_tools.ts", folder / "ts_tools.ts")
    link_node_modules(folder, NODE_MODULES)
    session = sessions.start(workspace(f"mcpServers:\n  - script: {folder}/ts_tools.ts\n"))
    argv = session.resources["mcp_subprocess"].servers["ts_tools"].launch.argv
    assert "--no-install" in argv if ts_runtime == "bun" else "--no-install" not in argv
    assert call(session, "ts_echo", text="offline").message == "echo: offline"


def test_a_missing_import_names_the_module_and_nothing_is_fetched(ts_runtime: str, workspace: Any,
                                                                  sessions: Any, tmp_path: Path) -> None:
    folder = tmp_path / "server"
    folder.mkdir()
    (folder / "padder.ts").write_text('import leftPad from "left-pad";\nconsole.log(leftPad("x", 3));\n')
    with pytest.raises(ServerStartError) as info:
        sessions.start(workspace(f"mcpServers:\n  - script: {folder}/padder.ts\n"))
    message = str(info.value)
    assert info.value.exit_code == ExitCode.INFRASTRUCTURE
    assert "MCP server 'padder'" in message and "during initialize" in message
    assert ("it imports 'left-pad', which is not installed where the script can resolve it (Trailblaze never "
            "installs packages while running: `npm install left-pad` in the server's folder") in message
    assert "stderr tail:" in message
