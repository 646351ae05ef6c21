"""The pinned rules (upstream §10): _meta parsing, envelopes, spawner, result mapping, config, runtimes."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from trailblaze.config import load_workspace
from trailblaze.driver import DeviceInfo
from trailblaze.errors import BadInputError, ConfigError, ToolExpansionError
from trailblaze.memory import Memory
from trailblaze.tools.base import ToolCall
from trailblaze_mcp_subprocess import runtimes
from trailblaze_mcp_subprocess.callbacks import REFUSED, is_loopback, unknown_invocation
from trailblaze_mcp_subprocess.config import load_config_servers
from trailblaze_mcp_subprocess.definitions import McpToolDefinition, sanitize_schema
from trailblaze_mcp_subprocess.envelope import MetaTemplate, memory_changes, meta_envelope, target_envelope
from trailblaze_mcp_subprocess.meta import ToolMeta, filter_reason, merge, parse_registry, parse_tool_meta
from trailblaze_mcp_subprocess.results import delegates_of, to_tool_result
from trailblaze_mcp_subprocess.spawn import contract_env, launch_for
from trailblaze_mcp_subprocess.wire import CallOutcome

DEVICE = DeviceInfo(platform="android", driver="android-ondevice-accessibility", width=1080, height=2400)


# -- _meta parsing (TrailblazeToolMetaTest) ----------------------------------------------------------
def test_empty_meta_gives_defaults() -> None:
    meta = parse_tool_meta({})
    assert meta == ToolMeta() and meta.surface and meta.recordable and not meta.host_only
    assert parse_tool_meta(None) == ToolMeta()


def test_non_trailblaze_keys_are_ignored_and_wrong_shapes_are_absent() -> None:
    meta = parse_tool_meta({"surfaceToLlm": False, "other/isRecordable": False,
                            "trailblaze/surfaceToLlm": "false", "trailblaze/isRecordable": 0,
                            "trailblaze/requiresHost": None, "trailblaze/supportedDrivers": "android",
                            "trailblaze/supportedPlatforms": ["ios", 3], "trailblaze/toolset": ["x"],
                            "trailblaze/requiresContext": "yes"})
    assert meta == ToolMeta()


def test_every_key_read() -> None:
    meta = parse_tool_meta({"trailblaze/surfaceToLlm": False, "trailblaze/isRecordable": False,
                            "trailblaze/requiresHost": True, "trailblaze/supportedDrivers": ["playwright-native"],
                            "trailblaze/supportedPlatforms": ["web", "Android"], "trailblaze/toolset": "web_core",
                            "trailblaze/requiresContext": True})
    assert meta == ToolMeta(surface_to_llm=False, is_recordable=False, requires_host=True,
                            supported_drivers=("playwright-native",), supported_platforms=("WEB", "ANDROID"),
                            toolset="web_core", requires_context=True)


def test_filters_in_upstream_order() -> None:
    both = parse_tool_meta({"trailblaze/supportedDrivers": ["ios-host"], "trailblaze/supportedPlatforms": ["IOS"],
                            "trailblaze/requiresHost": True})
    # drivers are checked before platforms, platforms before requiresHost
    assert filter_reason(both, driver="playwright-native", platform="web", host_agent=False).startswith(
        "trailblaze/supportedDrivers")
    platforms = parse_tool_meta({"trailblaze/supportedPlatforms": ["ios"], "trailblaze/requiresHost": True})
    assert filter_reason(platforms, driver="x", platform="web", host_agent=False).startswith("trailblaze/supportedPlatforms")
    assert filter_reason(platforms, driver="x", platform="ios", host_agent=False).startswith("trailblaze/requiresHost")
    assert filter_reason(platforms, driver="x", platform="ios", host_agent=True) is None
    assert filter_reason(parse_tool_meta({"trailblaze/supportedDrivers": []}), driver="x", platform="web") is None
    # requiresContext is metadata only
    assert filter_reason(parse_tool_meta({"trailblaze/requiresContext": True}), driver="x", platform="web") is None


def test_registry_resource_parsing_and_merge() -> None:
    reg = parse_registry({"tools": {"a": {"platforms": ["android"], "groups": ["auth"], "exposedToLlm": False,
                                          "isRecordable": False, "isDelegating": True}, "bad": 3},
                          "groups": {"auth": {"description": "Auth", "defaultEnabled": True}},
                          "serverInfo": {"name": "s", "version": "1"}})
    assert reg.tools["a"] == ToolMeta(surface_to_llm=False, is_recordable=False, is_delegating=True,
                                      supported_platforms=("ANDROID",), groups=("auth",))
    assert "bad" not in reg.tools and reg.groups["auth"].default_enabled and reg.server_name == "s"
    merged = merge(parse_tool_meta({"trailblaze/isRecordable": True}), reg.tools["a"])
    assert merged.is_recordable is True and merged.surface_to_llm is False and merged.is_delegating is True
    assert parse_registry("nonsense").tools == {}


# -- envelopes (TrailblazeContextEnvelopeTest) -------------------------------------------------------
def test_legacy_envelope_has_exactly_memory_and_device() -> None:
    memory = Memory({"a": 1, "b": True})
    memory.remember("pw", "secret", sensitive=True)
    template = MetaTemplate(session_id="s", device=DEVICE, base_url=None)
    env = template.legacy(memory.snapshot())
    assert env == {"memory": {"a": "1", "b": "true"},
                   "device": {"platform": "android", "widthPixels": 1080, "heightPixels": 2400,
                              "driverType": "android-ondevice-accessibility"}}
    assert template.legacy(Memory().snapshot())["memory"] == {}


def test_meta_envelope_shape() -> None:
    env = meta_envelope(session_id="s", invocation_id="inv-1", memory=Memory(), device=DEVICE,  # no token: omitted
                        base_url="http://127.0.0.1:1", target=None, capabilities={"callbacks": True})
    assert list(env) == ["baseUrl", "sessionId", "invocationId", "device", "memory", "capabilities"]
    template = MetaTemplate(session_id="s", device=DEVICE, base_url="http://127.0.0.1:1",
                            target=target_envelope("shop"), capabilities={"callbacks": True})
    assert list(template.meta(invocation_id="inv-2", memory={}, callback_token="t")) == [
        "baseUrl", "sessionId", "invocationId", "callbackToken", "device", "target", "memory", "capabilities"]
    assert target_envelope(None) is None
    assert target_envelope("shop") == {"id": "shop", "appIds": []}
    assert target_envelope("shop", app_ids=["a"], app_id="a") == {"id": "shop", "appIds": ["a"], "appId": "a"}


def test_memory_delta_parsing() -> None:
    delta, deletions = memory_changes({"trailblaze": {"memoryDelta": {"a": "1", "b": 2, "c": None},
                                                      "memoryDeletions": ["x", 3]}})
    assert delta == {"a": "1"} and deletions == ["x"]
    assert memory_changes(None) == ({}, []) and memory_changes({"trailblaze": "no"}) == ({}, [])
    memory = Memory()
    memory.remember("s", "old", sensitive=True)
    memory.apply_delta({"s": "new"}, [])
    assert memory.is_sensitive("s") and memory.get("s") == "new"


# -- result mapping (CallToolResultMapperTest) -------------------------------------------------------
def test_result_mapping() -> None:
    ok = to_tool_result(CallOutcome(is_error=None, texts=["first", "second"], structured={"k": 1}))
    assert ok.success and ok.message == "first" and ok.data == {"k": 1}
    assert to_tool_result(CallOutcome(is_error=False)).success
    err = to_tool_result(CallOutcome(is_error=True, texts=["bad"], structured={"k": 1}))
    assert not err.success and err.message == "bad" and err.data is None
    assert to_tool_result(CallOutcome(is_error=True)).message == \
        "Subprocess tool returned isError=true with no text content."


def test_delegates_shapes() -> None:
    calls = delegates_of(CallOutcome(structured={"_trailblaze_delegates": [
        {"tool": "tap", "args": {"text": "Login"}}, {"name": "wait", "arguments": {}}, {"exec": {"argv": ["true"]}}]}),
        tool="t")
    assert calls == [ToolCall("tap", {"text": "Login"}), ToolCall("wait", {}), ToolCall("exec", {"argv": ["true"]})]
    from_text = delegates_of(CallOutcome(texts=['{"_trailblaze_delegates": [{"tool": "wait"}]}']), tool="t")
    assert from_text == [ToolCall("wait", {})]
    assert delegates_of(CallOutcome(texts=["plain"]), tool="t") is None
    assert delegates_of(CallOutcome(is_error=True, structured={"_trailblaze_delegates": []}), tool="t") is None
    with pytest.raises(ToolExpansionError, match="invalid delegate #1"):
        delegates_of(CallOutcome(structured={"_trailblaze_delegates": [{"args": {}}]}), tool="t")


# -- descriptors (SubprocessToolDescriptorsTest) and argument validation ------------------------------
def test_schema_to_parameters() -> None:
    d = McpToolDefinition(name="t", server="s", input_schema=sanitize_schema({
        "type": "object", "properties": {"a": {}, "b": {"type": "string", "enum": ["x", "y"]}, "c": {"type": "integer"},
                                         "_trailblazeContext": {}},
        "required": ["a", "_trailblazeContext"]}))
    params = {p.name: p for p in d.parameters()}
    assert set(params) == {"a", "b", "c"}
    assert params["a"].type.value == "string" and params["a"].required
    assert params["b"].enum_values == ("x", "y") and not params["b"].required
    with pytest.raises(ValueError, match="unknown argument 'z'"):
        d.prepare({"a": "1", "z": 2})
    assert d.prepare({"a": "1", "_trailblazeContext": {"memory": {}}}) == {"a": "1"}
    zero = McpToolDefinition(name="z", server="s", input_schema={"type": "object", "properties": {}})
    with pytest.raises(ValueError, match="takes no arguments"):
        zero.prepare({"x": 1})
    schemaless = McpToolDefinition(name="n", server="s", input_schema={"type": "object"})
    assert schemaless.parameters() is None and schemaless.prepare({"anything": 1}) == {"anything": 1}


# -- spawner (McpSubprocessSpawnerTest) --------------------------------------------------------------
def _ws(tmp_path: Path, text: str) -> Any:
    from trailblaze.testing import new_host
    from trailblaze_mcp_subprocess import plugin

    host = new_host()
    host.register(plugin, "mcp_subprocess")
    (tmp_path / "trails" / "config").mkdir(parents=True, exist_ok=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text(text)
    return load_workspace(tmp_path, host)


def test_relative_script_is_resolved_against_the_declaring_file(tmp_path: Path) -> None:
    (tmp_path / "trails" / "config" / "tools").mkdir(parents=True)
    (tmp_path / "trails" / "config" / "tools" / "x.py").write_text("")
    ws = _ws(tmp_path, "mcpServers:\n  - script: tools/x.py\n")
    spec = load_config_servers(ws).specs["x"]
    assert spec.script == tmp_path / "trails" / "config" / "tools" / "x.py"
    launch = launch_for(spec, device=DEVICE, session_id="s1", base_url="http://127.0.0.1:9", parent_env={"PATH": "", "HOME": "/h"})
    assert launch.argv == (sys.executable, str(spec.script)) and launch.cwd == spec.script.parent
    assert launch.env == {"PATH": "", "HOME": "/h", "TRAILBLAZE_DEVICE_PLATFORM": "ANDROID",
                          "TRAILBLAZE_DEVICE_DRIVER": "android-ondevice-accessibility", "TRAILBLAZE_SESSION_ID": "s1",
                          "TRAILBLAZE_CLIENT_FETCH_TIMEOUT_MS": "122000", "TRAILBLAZE_DEVICE_WIDTH_PX": "1080",
                          "TRAILBLAZE_DEVICE_HEIGHT_PX": "2400", "TRAILBLAZE_TOOLSET_FILE": str(spec.script),
                          "TRAILBLAZE_BASE_URL": "http://127.0.0.1:9"}


def test_missing_script_is_an_error_naming_it(tmp_path: Path) -> None:
    ws = _ws(tmp_path, "mcpServers:\n  - script: tools/missing.ts\n")
    with pytest.raises(BadInputError, match=r"trailblaze.yaml:2:5: .mcpServers.: MCP server script not found: .*tools/missing.ts"):
        load_config_servers(ws)


def test_fetch_timeout_and_unknown_sizes() -> None:
    env = contract_env(device=DeviceInfo(platform="web", driver="playwright-native"), session_id="s",
                       toolset_file=None, base_url=None)
    assert env == {"TRAILBLAZE_DEVICE_PLATFORM": "WEB", "TRAILBLAZE_DEVICE_DRIVER": "playwright-native",
                   "TRAILBLAZE_SESSION_ID": "s", "TRAILBLAZE_CLIENT_FETCH_TIMEOUT_MS": "122000"}


@pytest.mark.parametrize(("text", "where", "message"), [
    ("mcpServers:\n  - name: a\n    command: x\n    url: http://h\n", ":4:5", "exactly one of 'command'"),
    ("mcpServers:\n  - name: a\n    transport: http\n", ":3:5", "transport: http needs 'url'"),
    ("mcpServers:\n  - command: x\n", ":2:5", "a 'command' server needs a 'name'"),
    ("mcpServers:\n  - name: a\n    command: x\n    colour: red\n", ":4:5", "unknown setting 'colour'"),
    ("mcpServers:\n  - name: a\n    url: http://h\n    args: [x]\n", ":4:5", "'args' applies to stdio servers"),
    ("mcpServers: 3\n", ":1:1", "must be a list of servers"),
    ("mcpServers:\n  - name: a\n    command: x\n  - name: a\n    command: y\n", "", "declared twice"),
])
def test_config_errors_name_file_line_and_key(tmp_path: Path, text: str, where: str, message: str) -> None:
    ws = _ws(tmp_path, text)
    with pytest.raises(BadInputError) as info:
        load_config_servers(ws)
    rendered = str(info.value)
    assert message in rendered
    if where:
        assert isinstance(info.value, ConfigError) and f"trailblaze.yaml{where}" in rendered and "'mcpServers'" in rendered


def test_mapping_form_and_http_entries(tmp_path: Path) -> None:
    ws = _ws(tmp_path, "mcpServers:\n  tools:\n    command: python\n  remote:\n    transport: http\n"
                       "    url: http://127.0.0.1:9/mcp\n    headers: {X-Team: ui}\n")
    specs = load_config_servers(ws).specs
    assert specs["tools"].command == "python" and specs["tools"].cwd == tmp_path / "trails" / "config"
    assert specs["remote"].transport == "http" and dict(specs["remote"].headers) == {"X-Team": "ui"}


# -- runtimes ------------------------------------------------------------------------------------------
def _bin(tmp_path: Path, name: str, *programs: str) -> str:
    d = tmp_path / name
    d.mkdir()
    for p in programs:
        exe = d / p
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    return str(d)


def test_runtime_detection(tmp_path: Path) -> None:
    runtimes.clear_cache()
    script = Path("x.ts")
    assert runtimes.runtime_for(Path("x.py"), path="").argv == (sys.executable,)
    bun = _bin(tmp_path, "b", "bun", "node")
    assert runtimes.runtime_for(script, path=bun).name == "bun"
    assert runtimes.runtime_for(script, path=bun).argv[1:] == ("--no-install", "run")  # never fetches packages
    assert runtimes.runtime_for(Path("x.js"), path=bun).argv[1:] == ("--no-install", "run")
    node_only = _bin(tmp_path, "n", "node")
    assert runtimes.runtime_for(Path("x.js"), path=node_only).name == "node"
    with pytest.raises(runtimes.MissingRuntimeError, match="but no tsx"):
        runtimes.runtime_for(script, path=node_only)
    with pytest.raises(runtimes.MissingRuntimeError, match="No compatible TypeScript runtime found on PATH"):
        runtimes.runtime_for(script, path=_bin(tmp_path, "e"))
    # node + a real tsx install: the loader is passed as an absolute file URL
    pkg = tmp_path / "nm" / "tsx"
    (pkg / "dist").mkdir(parents=True)
    (pkg / "package.json").write_text('{"name": "tsx"}')
    (pkg / "dist" / "loader.mjs").write_text("")
    (pkg / "dist" / "cli.mjs").write_text("")
    (pkg / "dist" / "cli.mjs").chmod(0o755)
    both = _bin(tmp_path, "t", "node")
    os.symlink(pkg / "dist" / "cli.mjs", Path(both) / "tsx")
    rt = runtimes.runtime_for(script, path=both)
    assert rt.name == "node+tsx" and rt.argv[1:] == ("--import", (pkg / "dist" / "loader.mjs").as_uri())
    runtimes.clear_cache()


def test_a_missing_import_is_read_from_bun_and_node_errors() -> None:
    bun = ["error: Cannot find module '@modelcontextprotocol/sdk/server/mcp.js' from '/w/s.ts'", "Bun v1.4.5"]
    node = ["Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /w/s.ts"]
    assert runtimes.missing_module(bun) == "@modelcontextprotocol/sdk/server/mcp.js"
    assert runtimes.missing_module(node) == "zod"
    assert runtimes.missing_module(["TypeError: x is not a function"]) is None
    assert "`npm install @modelcontextprotocol/sdk` in the server's folder" in runtimes.missing_module_hint(
        "@modelcontextprotocol/sdk/server/mcp.js")
    assert runtimes.missing_module_hint("./helpers.js") == "it imports './helpers.js', which does not exist"


# -- callback channel rules ------------------------------------------------------------------------------
def test_loopback_only() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("127.8.0.2") and is_loopback("::1")
    assert is_loopback("::ffff:127.0.0.1")
    assert not is_loopback("10.0.0.5") and not is_loopback("192.168.1.2") and not is_loopback("::ffff:10.0.0.1")
    assert not is_loopback("not-an-address")
    assert unknown_invocation()["error"] == {"code": -32602, "message": REFUSED}
    assert "inv-" not in REFUSED
