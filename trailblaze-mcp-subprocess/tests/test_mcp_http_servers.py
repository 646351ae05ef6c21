"""An HTTP tool server (connected, never spawned) shared by two sessions on two devices."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from trailblaze.driver import DeviceInfo
from trailblaze.tools.base import ToolCall
from trailblaze_mcp_subprocess.servers import ServerStartError


def test_two_devices_share_one_http_server(http_tool_server: str, workspace: Any, sessions: Any) -> None:
    root = workspace(f"""
        mcpServers:
          - name: shared
            transport: http
            url: {http_tool_server}
    """)
    phone = sessions.start(root, device=DeviceInfo(platform="android", driver="android-ondevice-accessibility",
                                                   device_id="emulator-5554"), session_id="phone", memory={"who": "phone"})
    tablet = sessions.start(root, device=DeviceInfo(platform="ios", driver="ios-host", device_id="sim-1"),
                            session_id="tablet", memory={"who": "tablet"})
    assert "web_driverOnly" in phone.registry and "web_driverOnly" not in tablet.registry
    results: dict[str, Any] = {}

    def run(session: Any, value: str) -> None:
        for i in range(5):
            results[f"{session.id}-{i}"] = session.dispatcher.call(
                ToolCall("web_callback", {"key": f"k{i}", "value": f"{value}-{i}"}), session.context())

    threads = [threading.Thread(target=run, args=(phone, "P")), threading.Thread(target=run, args=(tablet, "T"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for i in range(5):
        p = json.loads(results[f"phone-{i}"].message)
        t = json.loads(results[f"tablet-{i}"].message)
        assert p["session"] == "phone" and p["memory"]["who"] == "phone" and p["memory"][f"k{i}"] == f"P-{i}"
        assert t["session"] == "tablet" and t["memory"]["who"] == "tablet" and t["memory"][f"k{i}"] == f"T-{i}"
    assert phone.memory.get("k4") == "P-4" and tablet.memory.get("k4") == "T-4"
    # every callback landed in its own session's log
    for session, mine, other in ((phone, "P-", "T-"), (tablet, "T-", "P-")):
        logged = [e["trailblazeTool"]["raw"] for e in session.log.entries
                  if e.get("toolName") == "rememberValue"]
        assert len(logged) == 5 and all(r["value"].startswith(mine) for r in logged)
        assert other not in json.dumps([e for e in session.log.entries if e.get("toolName") == "rememberValue"])
    state = phone.resources["mcp_subprocess"]
    assert state.servers["shared"].process is None  # connected, never spawned: never stopped either


def test_http_server_that_is_not_running(workspace: Any, sessions: Any) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = workspace(f"""
        mcpServers:
          - name: nobody-home
            transport: http
            url: http://127.0.0.1:{port}/mcp
            handshakeTimeoutSeconds: 10
    """)
    with pytest.raises(ServerStartError, match="cannot connect to MCP server 'nobody-home'"):
        sessions.start(root)
