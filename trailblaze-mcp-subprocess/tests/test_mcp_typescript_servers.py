"""The TypeScript tool server (official @modelcontextprotocol/sdk), under bun and under node + tsx.

Each test runs twice (``ts_runtime``); a runtime that is not installed skips with the reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from trailblaze.driver import DeviceInfo
from trailblaze.tools.base import ToolCall
from trailblaze_mcp_subprocess.servers import ServerCrashed

pytestmark = pytest.mark.node

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
