"""A real Python MCP tool server (stdio subprocess): discovery, filters, calls, envelopes, memory,
delegation, callbacks, reload, collisions and shutdown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from trailblaze import hookimpl
from trailblaze.driver import DeviceInfo
from trailblaze.errors import DuplicateToolError, ToolArgumentError
from trailblaze.tools.base import Tool, ToolCall, ToolResult

PY_SERVER = """
mcpServers:
  - script: {servers}/py_tools.py
"""


def call(session: Any, tool_name: str, /, **args: Any) -> Any:
    return session.dispatcher.call(ToolCall(tool_name, args), session.context())


def test_tools_register_under_their_advertised_names(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER))
    names = {d.name for d in session.registry if d.kind == "mcp"}
    # host session: the driver-only tool is filtered out, everything else is there unchanged
    assert names == {"py_echo", "py_context", "py_hostOnly", "py_otherToolset", "py_remember", "py_fail",
                     "py_failSilently", "py_structured", "py_delegate", "py_callback", "py_callbackRaw",
                     "py_recurse", "py_env", "py_die", "py_nested", "py_grow", "py_shrink", "py_look", "py_callbackNoId", "py_block"}
    echo = session.registry.get("py_echo")
    assert echo.source.server == "py_tools" and str(echo.source).startswith("file ")
    assert "reloadTools" in session.registry
    state = session.resources["mcp_subprocess"]
    assert state.servers["py_tools"].skipped == {
        "py_driverOnly": "trailblaze/supportedDrivers ['android-ondevice-accessibility'] excludes driver 'host'"}
    started = [e for e in session.log.entries if e["class"].endswith("McpServerStartedLog")]
    assert started and started[0]["runtime"] == "python" and "py_echo" in started[0]["registered"]


def test_filters_follow_the_session_driver_and_agent_mode(workspace: Any, sessions: Any) -> None:
    root = workspace(PY_SERVER)
    android = DeviceInfo(platform="android", driver="android-ondevice-accessibility")
    s1 = sessions.start(root, device=android, session_id="android")
    assert "py_driverOnly" in s1.registry and "py_hostOnly" in s1.registry
    s2 = sessions.start(root, device=android, session_id="ondevice", options={"agent_mode": "ondevice"})
    assert "py_driverOnly" in s2.registry and "py_hostOnly" not in s2.registry
    assert s2.resources["mcp_subprocess"].servers["py_tools"].skipped["py_hostOnly"].startswith("trailblaze/requiresHost")


def test_meta_keys_become_definition_flags_and_toolsets(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER))
    other = session.registry.get("py_otherToolset")
    assert other.toolsets == ("otherToolset",)
    assert other.surface_to_llm is False
    assert other.is_recordable is True  # "yes" is not a boolean: treated as absent
    # MCP's own annotations.readOnlyHint: offered to `trailblaze plan`'s read-only exploration
    assert session.registry.get("py_look").is_read_only is True and other.is_read_only is False
    # and published again, as the same annotation, by our own MCP server's tools/list
    assert session.codec.describe(session.registry.get("py_look")).mcp()["annotations"] == {"readOnlyHint": True}
    # the trailblaze://registry resource fills what _meta does not say
    assert session.registry.get("py_structured").surface_to_llm is False
    assert session.registry.get("py_delegate").delegating is True
    assert session.registry.get("py_delegate").is_recordable is False  # _meta wins over the resource
    assert session.registry.get("py_echo").toolsets == ("basics",)
    assert session.registry.get("py_echo").meta["trailblaze/groups"] == {
        "basics": {"description": "Basic tools", "defaultEnabled": True}}


def test_call_round_trip_and_result_mapping(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER))
    assert call(session, "py_echo", text="hi").message == "echo: hi"
    result = call(session, "py_structured", n=21)
    assert result.success and result.message == "doubled 21" and result.data == {"n": 21, "double": 42}
    failed = call(session, "py_fail", reason="no luck")
    assert not failed.success and failed.message == "no luck" and failed.data is None  # structured dropped
    silent = call(session, "py_failSilently")
    assert not silent.success and silent.message == "Subprocess tool returned isError=true with no text content."


def test_arguments_are_validated_against_the_input_schema(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER))
    with pytest.raises(ToolArgumentError, match="unknown argument 'nope'"):
        call(session, "py_echo", text="x", nope=1)
    with pytest.raises(ToolArgumentError, match="missing required argument 'text'"):
        call(session, "py_echo")
    with pytest.raises(ToolArgumentError, match="it takes no arguments"):
        call(session, "py_hostOnly", anything=1)
    assert call(session, "py_echo", text="x", reasoning="why not").message == "echo: x"
    assert "_trailblazeContext" not in json.dumps(session.registry.get("py_context").input_schema)


def test_context_envelopes_omit_secrets(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER), memory={"x": "42"}, secrets={"password": "hunter2"},
                             target="shop")
    result = call(session, "py_context")
    data = json.loads(result.message)
    assert data["platform"] == "host" and data["memoryX"] == "42"
    meta = data["meta"]
    tb = meta["trailblaze"]
    assert set(tb) == {"baseUrl", "sessionId", "invocationId", "callbackToken", "device", "target", "memory",
                       "capabilities"}
    assert tb["sessionId"] == "test-session" and meta["trailblazeInvocationId"] == tb["invocationId"]
    assert tb["baseUrl"].startswith("http://127.0.0.1:")
    assert tb["device"] == {"platform": "host", "driverType": "host", "widthPixels": 1080, "heightPixels": 2400}
    assert tb["target"] == {"id": "shop", "appIds": []}
    assert tb["memory"] == {"x": "42"} and "hunter2" not in json.dumps(data)


def test_memory_delta_and_deletions(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER), memory={"old": "1"}, secrets={"token": "s3cret"})
    call(session, "py_remember", key="token", value="new-secret", forget="old")
    assert session.memory.get("token") == "new-secret" and session.memory.is_sensitive("token")
    assert "old" not in session.memory and "notAString" not in session.memory


def test_delegating_tool_runs_and_records_its_delegates(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER))
    result = call(session, "py_delegate", key="answer", value="42")
    assert result.success and session.memory.get("answer") == "42"
    executed = [(e.authored.name, e.depth, e.delegating, e.is_recordable) for e in session.executed]
    assert executed == [("rememberValue", 1, False, True), ("py_echo", 1, False, True),
                        ("py_delegate", 0, True, False)]
    kinds = [e["class"].rsplit(".", 1)[1] for e in session.log.entries if "ToolLog" in e["class"]]
    assert kinds[-1] == "DelegatingTrailblazeToolLog"


def test_callbacks_run_tools_in_the_calling_session(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER), memory={"x": "1"})
    result = call(session, "py_callback", key="cb", value="called back")
    data = json.loads(result.message)
    assert data["memory"] == {"x": "1", "cb": "called back"}
    assert data["echo"] == "echo: called back" and data["session"] == "test-session"
    nested = [(e.authored.name, e.depth) for e in session.executed]
    assert nested == [("rememberValue", 1), ("dumpMemory", 1), ("py_echo", 1), ("py_callback", 0)]


def test_callbacks_never_go_through_an_http_proxy(workspace: Any, sessions: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "HTTP_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # nothing listens there; the server inherits it
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    session = sessions.start(workspace(PY_SERVER))
    assert json.loads(call(session, "py_callback", key="k", value="v").message)["memory"] == {"k": "v"}


def test_callback_errors_reach_the_tool(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER))
    unknown = json.loads(call(session, "py_callbackRaw", tool="noSuchTool", arguments="{}").message)
    assert "unknown tool 'noSuchTool'" in unknown["refused"]
    bad_args = json.loads(call(session, "py_callbackRaw", tool="rememberValue", arguments='{"variable": "a"}').message)
    assert "missing required argument 'value'" in bad_args["refused"]
    extra = json.loads(call(session, "py_callbackRaw", tool="dumpMemory", arguments='{"zzz": 1}').message)
    assert "unknown argument 'zzz'" in extra["refused"]
    failing = json.loads(call(session, "py_callbackRaw", tool="py_fail", arguments='{"reason": "nope"}').message)
    assert failing == {"success": False, "text": "", "error": "nope"}


class FakeWebSnapshot(Tool):
    """Stands in for the web driver's snapshot tool (no browser in this test)."""

    name = "web_snapshot"
    screenName: str

    def execute(self, ctx: Any) -> ToolResult:
        return ToolResult.ok(f'[e1] button "Sign in" ({self.screenName})')


class SnapshotPlugin:
    @hookimpl
    def trailblaze_register_tools(self, registry: Any) -> None:
        registry.add_tool(FakeWebSnapshot)


def test_client_typed_helper_snapshot(host: Any, workspace: Any, sessions: Any) -> None:
    host.register(SnapshotPlugin(), "snapshot")
    session = sessions.start(workspace(PY_SERVER), device=DeviceInfo(platform="web", driver="playwright-native"))
    assert call(session, "py_look").message == 'web: [e1] button "Sign in" (look)'
    assert [(e.authored.name, e.depth) for e in session.executed] == [("web_snapshot", 1), ("py_look", 0)]


def test_callback_depth_is_capped_at_16(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER))
    data = json.loads(call(session, "py_recurse", level=0).message)
    assert data["deepest"] == 16 and "callback depth cap reached (16)" in data["error"]
    assert max(e.depth for e in session.executed) == 16


def test_callback_endpoint_http_rules(workspace: Any, sessions: Any, post_json: Any) -> None:
    post = post_json
    session = sessions.start(workspace(PY_SERVER))
    base = session.resources["mcp_subprocess"].base_url
    url = base + "/scripting/callback"
    status, body = post(url, b"{not json")
    assert status == 400 and body["result"]["type"] == "error"
    status, body = post(url, b"x" * (1024 * 1024 + 1))
    assert status == 413
    status, body = post(base + "/elsewhere", b"{}")
    assert status == 404
    request = {"version": 1, "session_id": "test-session", "invocation_id": "inv-never-issued",
               "callback_token": "not-the-token",
               "action": {"type": "call_tool", "tool_name": "dumpMemory", "arguments_json": "{}"}}
    status, body = post(url, json.dumps(request).encode())
    assert status == 200
    assert body["error"] == {"code": -32602, "message": "callback refused: no running tool call matches this "
                             "invocation_id and callback_token (the call may have completed or timed out; both "
                             "come from _meta.trailblaze of the call)"}
    assert body["result"]["type"] == "error" and "inv-never-issued" not in json.dumps(body)
    # an invocation id and its token are only valid while the tool call runs
    tb = json.loads(call(session, "py_context").message)["meta"]["trailblaze"]
    request["invocation_id"], request["callback_token"] = tb["invocationId"], tb["callbackToken"]
    status, body = post(url, json.dumps(request).encode())
    assert body["error"]["code"] == -32602 and "may have completed" in body["error"]["message"]


def test_environment_contract_and_working_directory(workspace: Any, sessions: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_TEST_SENTINEL", "inherited-value")
    root = workspace("""
        mcpServers:
          - script: {servers}/py_tools.py
            env: {EXTRA_FROM_CONFIG: from-config}
    """)
    session = sessions.start(root, device=DeviceInfo(platform="android", driver="android-ondevice-accessibility",
                                                     width=1080, height=2400))
    names = ["TRAILBLAZE_TEST_SENTINEL", "EXTRA_FROM_CONFIG", "TRAILBLAZE_DEVICE_PLATFORM", "TRAILBLAZE_DEVICE_DRIVER",
             "TRAILBLAZE_DEVICE_WIDTH_PX", "TRAILBLAZE_DEVICE_HEIGHT_PX", "TRAILBLAZE_SESSION_ID",
             "TRAILBLAZE_TOOLSET_FILE", "TRAILBLAZE_BASE_URL", "TRAILBLAZE_CLIENT_FETCH_TIMEOUT_MS"]
    env = json.loads(call(session, "py_env", names=names).message)
    base_url = session.resources["mcp_subprocess"].base_url
    assert env == {
        "TRAILBLAZE_TEST_SENTINEL": "inherited-value", "EXTRA_FROM_CONFIG": "from-config",
        "TRAILBLAZE_DEVICE_PLATFORM": "ANDROID", "TRAILBLAZE_DEVICE_DRIVER": "android-ondevice-accessibility",
        "TRAILBLAZE_DEVICE_WIDTH_PX": "1080", "TRAILBLAZE_DEVICE_HEIGHT_PX": "2400",
        "TRAILBLAZE_SESSION_ID": "test-session", "TRAILBLAZE_TOOLSET_FILE": str(Path(__file__).parent / "servers" / "py_tools.py"),
        "TRAILBLAZE_BASE_URL": base_url, "TRAILBLAZE_CLIENT_FETCH_TIMEOUT_MS": "122000",
        "cwd": str(Path(__file__).parent / "servers"),
    }


def test_command_servers_run_as_given(workspace: Any, sessions: Any) -> None:
    root = workspace("""
        mcpServers:
          - name: by-command
            command: {python}
            args: [{servers}/py_tools.py]
            env: {PY_TOOLS_PREFIX: cmd}
            workingDir: ..
    """)
    session = sessions.start(root)
    assert call(session, "cmd_echo", text="x").message == "echo: x"
    env = json.loads(call(session, "cmd_env", names=["TRAILBLAZE_TOOLSET_FILE"]).message)
    assert env == {"TRAILBLAZE_TOOLSET_FILE": None, "cwd": str(root / "trails")}  # workingDir anchored at the file


def test_a_name_collision_names_both_sources(workspace: Any, sessions: Any) -> None:
    root = workspace("""
        mcpServers:
          - name: first
            script: {servers}/py_tools.py
          - name: second
            command: {python}
            args: [{servers}/py_tools.py]
    """)
    with pytest.raises(DuplicateToolError) as info:
        sessions.start(root)
    message = str(info.value)
    assert "tool 'py_echo' is registered twice" in message
    assert "MCP server 'first'" in message and "MCP server 'second'" in message
    assert "mcp_subprocess" not in sessions.open[0].resources  # everything was stopped already


def test_a_collision_with_a_builtin_tool(workspace: Any, sessions: Any) -> None:
    root = workspace("""
        mcpServers:
          - script: {servers}/py_tools.py
            env: {PY_TOOLS_EXTRA_NAME: dumpMemory}
    """)
    with pytest.raises(DuplicateToolError) as info:
        sessions.start(root)
    message = str(info.value)
    assert "tool 'dumpMemory' is registered twice" in message
    assert "MCP server 'py_tools'" in message and "py_tools.py" in message


def test_reload_tools_reports_added_removed_total(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER))
    before = len(session.registry)
    call(session, "py_grow", name="py_late")
    call(session, "py_shrink", name="py_env")
    assert "py_late" not in session.registry and "py_env" in session.registry  # nothing changes by itself
    result = call(session, "reloadTools")
    assert result.success and result.data == {"added": ["py_late"], "removed": ["py_env"], "total": before}
    assert result.message == f"added 1 (py_late), removed 1 (py_env); {before} tools"
    assert call(session, "py_late", text="new").message == "echo: new"
    assert "py_env" not in session.registry


def test_nested_delegation(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER))
    assert call(session, "py_nested", value="v").success
    executed = [(e.authored.name, e.depth, e.delegating) for e in session.executed]
    assert executed == [("rememberValue", 2, False), ("py_echo", 2, False), ("py_delegate", 1, True),
                        ("rememberValue", 1, False), ("py_nested", 0, True)]
    assert session.memory.get("nested") == "v" and session.memory.get("after") == "v"


def test_no_callback_without_invocation_id_and_token(workspace: Any, sessions: Any) -> None:
    """Decision 029's single-call fallback (no id needed while one call runs) is gone: any local process
    could have used it (issue 17). Even the only running call's own server must say who it is."""
    session = sessions.start(workspace(PY_SERVER), memory={"who": "me"})
    data = json.loads(call(session, "py_callbackNoId").message)
    assert data["result"]["type"] == "error" and data["error"]["code"] == -32602
    assert data["result"]["message"] == ("callback refused: it needs the 'invocation_id' and 'callback_token' of the "
                                         "running tool call (_meta.trailblaze.invocationId and "
                                         "_meta.trailblaze.callbackToken)")
    assert [e.authored.name for e in session.executed] == ["py_callbackNoId"]


def test_callback_timeout(workspace: Any, sessions: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_CALLBACK_TIMEOUT_MS", "300")
    session = sessions.start(workspace(PY_SERVER))
    data = json.loads(call(session, "py_callbackRaw", tool="wait", arguments='{"timeToWaitInSeconds": 1.5}').message)
    assert data["refused"] == "callback 'wait' timed out after 0.3s"


def test_graceful_shutdown_on_session_end(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace(PY_SERVER))
    proc = session.resources["mcp_subprocess"].servers["py_tools"].process
    sessions.finish(session)
    assert proc.stop_result == "exited" and proc.returncode == 0
    stopped = [e for e in session.log.entries if e["class"].endswith("McpServerStoppedLog")]
    assert stopped[0]["stop"] == "exited" and "py-tools starting" in stopped[0]["stderrTail"]
    assert (session.log_dir / "mcp_py_tools_stderr.log").read_text().startswith("py-tools starting")


def test_sessions_without_servers_start_nothing(workspace: Any, sessions: Any) -> None:
    session = sessions.start(workspace("defaults: {}\n"))
    assert "mcp_subprocess" not in session.resources and "reloadTools" not in session.registry
