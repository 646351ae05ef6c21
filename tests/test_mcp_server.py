"""``trailblaze mcp`` as a coding agent sees it: the official MCP client SDK talks to the real command in a
subprocess (stdio and Streamable HTTP), drives headless Chromium on the example shop and Appium's fake
driver, and the trail it saves replays with ``trailblaze run`` and no model."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
import trailblaze
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from trailblaze.testing.llm import RecordedRequest, Reply, ScriptedLlmServer, call, done
from trailblaze.testing.offline import RegistrySentinel, link_node_modules

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import (EMAIL, PASSWORD, REPO, SAVED, TRAILBLAZE, alive, devices_workspace,  # noqa: E402
                                explore_and_save, http_server, live_tree, ref, server_env, shop_workspace,
                                text_of)

pytestmark = [pytest.mark.browser]


@asynccontextmanager
async def stdio_session(ws: Path, *args: str, messages: list[Any] | None = None,
                        errlog: Any = None) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=str(TRAILBLAZE), args=["mcp", "--output-dir", str(ws / "logs"), *args],
                                   cwd=str(ws), env=server_env())

    async def on_message(message: Any) -> None:
        if messages is not None:
            messages.append(message)

    with open(ws / "server.stderr", "w") if errlog is None else errlog as err:
        async with stdio_client(params, errlog=err) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=120, message_handler=on_message) as session:
                yield session


def replay(ws: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``trailblaze run`` of the saved trail in a fresh process: no model is configured."""
    return subprocess.run([str(TRAILBLAZE), "run", SAVED, "--output-dir", str(ws / "replay-logs"), *extra], cwd=ws,
                          capture_output=True, text=True, env=server_env(), timeout=300, check=False)


def assert_no_secret(ws: Path) -> None:
    for path in ws.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".yaml", ".txt", ".html", ".stderr", ".log"):
            assert PASSWORD not in path.read_text(encoding="utf-8", errors="replace"), path


def check_saved_trail(ws: Path, seen: dict[str, Any]) -> None:
    saved = ws / SAVED
    text = saved.read_text()
    assert seen["saved"]["steps"] == 3 and seen["saved"]["created"] is True
    assert "target: shop" in text and "web: playwright-native" in text
    assert "- step: Open the shop's sign-in page" in text and "- step: Sign in" in text
    assert "- verify: The header welcomes the user by email" in text
    # Refs were turned into stable selectors; the password is its token, never its value.
    assert "ref: e" not in text and "{{password}}" in text and PASSWORD not in text
    assert "ariaRole: textbox" in text and "ariaNameRegex: Sign in" in text
    assert seen["recording"]["steps"] == []  # saved steps leave the pending recording


def test_stdio_session_records_a_trail_that_replays_without_a_model(tmp_path: Path) -> None:
    ws = shop_workspace(tmp_path / "shop")
    messages: list[Any] = []

    async def main() -> dict[str, Any]:
        async with stdio_session(ws, "--secret", f"password={PASSWORD}", messages=messages) as session:
            init = await session.initialize()
            assert init.server_info.name == "Trailblaze MCP server"
            assert init.server_info.version == trailblaze.__version__
            assert init.capabilities.tools is not None and init.capabilities.tools.list_changed
            assert init.capabilities.resources is not None and init.capabilities.logging is not None
            before = [t.name for t in (await session.list_tools()).tools]
            assert before == ["device", "snapshot", "step", "verify", "trail", "toolbox"]
            seen = await explore_and_save(session)
            shot = await session.call_tool("snapshot", {"screenshot": True, "detail": ["bounds"]})
            seen["image"] = [c for c in shot.content if c.type == "image"]
            seen["bounds"] = shot.content[0].text
            ran = await session.call_tool("trail", {"action": "RUN", "file": SAVED})
            assert not ran.is_error and ran.structured_content["passed"], text_of(ran)
            found = await session.call_tool("toolbox", {"search": "verifyText"})
            seen["toolbox"] = [t["name"] for t in found.structured_content["tools"]]
            seen["devices"] = json.loads((await session.read_resource("trailblaze://devices")).contents[0].text)
            seen["registry"] = json.loads((await session.read_resource("trailblaze://registry")).contents[0].text)
            seen["trails"] = json.loads((await session.read_resource("trailblaze://trails")).contents[0].text)
            seen["last"] = (await session.read_resource("trailblaze://snapshot")).contents[0].text
            return seen

    seen = anyio.run(main)
    assert "web_click" in seen["tools"] and "exec" not in seen["tools"]
    assert 'textbox "Email"' in seen["snapshot"]
    assert seen["registry"]["tools"]["web_click"]["source"].startswith("plugin 'web'")
    assert "web_core" in seen["registry"]["groups"]
    assert SAVED in [t["file"] for t in seen["trails"]["trails"]]
    assert seen["last"] == seen["bounds"]  # the resource is the latest snapshot
    assert len(seen["image"]) == 1 and seen["image"][0].mime_type in ("image/png", "image/jpeg")
    assert base64.b64decode(seen["image"][0].data)[:3] in (b"\x89PN", b"\xff\xd8\xff")
    assert re.search(r"\{\d+,\d+,\d+,\d+\}", seen["bounds"]), seen["bounds"]
    assert seen["toolbox"] == ["web_verifyTextNotVisible", "web_verifyTextVisible"]
    assert seen["devices"]["connected"]["driver"] == "playwright-native"
    assert {"playwright-native", "host"} <= {d["key"] for d in seen["devices"]["drivers"]}
    assert any(getattr(m, "method", "") == "notifications/tools/list_changed" for m in messages)
    assert any(getattr(m, "method", "") == "notifications/message" for m in messages)
    check_saved_trail(ws, seen)
    result = replay(ws, "--secret", f"password={PASSWORD}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    assert_no_secret(ws)


def test_streamable_http_needs_the_token_and_records_the_same_trail(tmp_path: Path) -> None:
    ws = shop_workspace(tmp_path / "shop")
    token_file = tmp_path / "token.json"
    with http_server(ws, token_file, "--secret", f"password={PASSWORD}") as (proc, info):
        assert info["url"].startswith("http://127.0.0.1:") and info["url"].endswith("/mcp")
        assert (token_file.stat().st_mode & 0o777) == 0o600
        for headers in ({}, {"Authorization": "Bearer wrong-token"}):
            request = urllib.request.Request(info["url"], data=b"{}", headers={**headers, "Content-Type": "application/json"})
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=10)
            assert refused.value.code == 401

        async def main() -> dict[str, Any]:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            client = httpx2.AsyncClient(headers=info["headers"], timeout=httpx2.Timeout(120.0))

            async def on_message(message: Any) -> None:
                notes.append(getattr(message, "method", ""))

            async with client, streamable_http_client(info["url"], http_client=client) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=120, message_handler=on_message) as session:
                    init = await session.initialize()
                    assert init.capabilities.tools is not None and init.capabilities.tools.list_changed
                    # This agent types the password in literally: the trail still gets the token.
                    return await explore_and_save(session, password=PASSWORD)

        notes: list[str] = []
        seen = anyio.run(main)
        check_saved_trail(ws, seen)
        assert not any(PASSWORD in text for text in seen["results"])
        assert "notifications/tools/list_changed" in notes and "notifications/message" in notes
        # The browser belongs to the server process, not to one HTTP session: it is still up.
        tree = live_tree(proc.pid)
        assert any("chrom" in cmd for cmd in tree.values()), tree
    assert proc.returncode == 0, (ws / "server.stderr").read_text()
    assert alive(list(tree)) == [], {p: tree[p] for p in alive(list(tree))}
    result = replay(ws, "--secret", f"password={PASSWORD}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert_no_secret(ws)


class ShopModel:
    """A scripted model for the shop: picks its next call from the step text and the calls made so far."""

    def __call__(self, request: RecordedRequest) -> Reply:
        objective, so_far = request.objective, len(request.tool_results())
        if "Open the shop's sign-in page" in objective:
            return [call("web_navigate", url="/"), done("the sign-in page is open")][min(so_far, 1)]
        if "Sign in as the hiker" in objective:
            plan = [lambda: call("web_type", ref=request.ref_on_screen('textbox "Email"'), text=EMAIL),
                    lambda: call("web_fillSecret", ref=request.ref_on_screen('textbox "Password"'), value="{{password}}"),
                    lambda: call("web_click", ref=request.ref_on_screen('button "Sign in"')),
                    lambda: done("signed in")]
            return plan[min(so_far, 3)]()
        if "welcomes the hiker" in objective:
            return call("web_verifyTextVisible", text=f"Welcome, {EMAIL}")
        raise AssertionError(f"unexpected objective: {objective}")


def llm_section(server: ScriptedLlmServer) -> str:
    return (f"llm:\n  providers:\n    openai:\n      base_url: {server.openai_base_url}\n"
            f"      auth: {{required: false}}\n      retry_backoff_seconds: 0\n"
            f"      models: [{{id: gpt-4.1, vision: false}}]\n  defaults: {{model: openai/gpt-4.1}}\n")


def test_natural_language_steps_are_solved_by_the_model_and_recorded(tmp_path: Path) -> None:
    with ScriptedLlmServer(ShopModel()) as model:
        ws = shop_workspace(tmp_path / "shop", llm_section(model))
        progress: list[Any] = []

        async def on_progress(done_so_far: float, total: float | None, message: str | None) -> None:
            progress.append(message)

        async def main() -> list[Any]:
            async with stdio_session(ws, "--secret", f"password={PASSWORD}") as session:
                await session.initialize()
                results = [await session.call_tool("device", {"action": "WEB"})]
                await session.call_tool("trail", {"action": "START", "name": "Sign in (agent over MCP)"})
                for tool, args in (("step", {"objective": "Open the shop's sign-in page"}),
                                   ("step", {"objective": "Sign in as the hiker with the password"}),
                                   ("verify", {"assertion": "The header welcomes the hiker"})):
                    results.append(await session.call_tool(tool, args, progress_callback=on_progress))
                results.append(await session.call_tool("trail", {"action": "SAVE", "file": SAVED}))
                return results

        results = anyio.run(main)
        for result in results:
            assert not result.is_error, text_of(result)
        assert results[2].structured_content["data"]["llmCalls"] == 4
        assert any(m and m.startswith("web_click") for m in progress), progress
        requests = len(model.requests)
        assert PASSWORD not in model.bodies_text()  # the model never saw the secret
    text = (ws / SAVED).read_text()
    assert "title: Sign in (agent over MCP)" in text
    assert "- step: Sign in as the hiker with the password" in text and "{{password}}" in text
    assert "ref: e" not in text and "ariaNameRegex: Sign in" in text
    assert "- verify: The header welcomes the hiker" in text
    result = replay(ws, "--secret", f"password={PASSWORD}")  # the model server is gone: no model needed
    assert result.returncode == 0, result.stdout + result.stderr
    assert requests == 7
    assert_no_secret(ws)


@pytest.mark.appium
def test_switching_to_the_appium_fake_driver_swaps_the_tool_list(tmp_path: Path) -> None:
    ws = devices_workspace(tmp_path / "ws")
    messages: list[Any] = []

    async def main() -> dict[str, Any]:
        async with stdio_session(ws, messages=messages) as session:
            await session.initialize()
            out: dict[str, Any] = {}
            await session.call_tool("device", {"action": "WEB"})
            web_tools = (await session.list_tools()).tools
            out["web"] = {t.name for t in web_tools}
            out["web_read_only"] = {t.name for t in web_tools if t.annotations and t.annotations.read_only_hint}
            seen = len(messages)
            android = await session.call_tool("device", {"action": "ANDROID"})
            assert not android.is_error, text_of(android)
            out["changed"] = [getattr(m, "method", "") for m in messages[seen:]]
            out["android"] = {t.name for t in (await session.list_tools()).tools}
            snapshot = text_of(await session.call_tool("snapshot", {}))
            out["ref"] = ref(snapshot, 'Button "Sign in"')
            tapped = await session.call_tool("tap", {"ref": out["ref"]}, meta={"trailblaze/step": "Tap sign in"})
            assert not tapped.is_error, text_of(tapped)
            out["recording"] = json.loads((await session.read_resource("trailblaze://recording")).contents[0].text)
            ios = await session.call_tool("device", {"action": "IOS"})
            assert not ios.is_error, text_of(ios)
            out["ios"] = ios.structured_content
            return out

    out = anyio.run(main)
    assert "notifications/tools/list_changed" in out["changed"]
    assert {"web_click", "web_navigate", "web_verifyTextVisible"} <= out["web"]
    # MCP's readOnlyHint from the tools' own metadata: a client may explore with these without asking
    assert {"web_snapshot", "web_navigate", "web_scroll"} <= out["web_read_only"] <= out["web"]
    assert "web_click" not in out["web_read_only"] and "web_type" not in out["web_read_only"]
    assert not any(name.startswith("web_") for name in out["android"])
    assert {"tap", "inputText", "assertVisible", "pressBack"} <= out["android"]
    assert {"tap", "inputText"}.isdisjoint(out["web"])
    step = out["recording"]["steps"][0]
    assert step["text"] == "Tap sign in" and step["classifier"].startswith("android")
    assert out["ref"] not in json.dumps(step["recording"])  # the ref became a selector
    assert "com.example.fakeshop:id/sign_in" in json.dumps(step["recording"])
    assert out["ios"]["driver"] == "ios-appium-xcuitest" and out["ios"]["platform"] == "ios"


def test_exec_is_offered_only_with_the_opt_in_flag(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "trails" / "config").mkdir(parents=True)
    (ws / "trails" / "config" / "trailblaze.yaml").write_text("{}\n")

    async def main(*flags: str) -> tuple[set[str], Any, dict[str, Any]]:
        async with stdio_session(ws, "--secret", f"token={PASSWORD}", *flags) as session:
            await session.initialize()
            await session.call_tool("device", {"action": "HOST"})
            names = {t.name for t in (await session.list_tools()).tools}
            # The program prints the secret: the result shows it redacted.
            result = await session.call_tool("exec", {"argv": [sys.executable, "-c", f"print('hello from exec {PASSWORD}')"]},
                                             meta={"trailblaze/step": f"Run a program with {PASSWORD}"})
            registry = json.loads((await session.read_resource("trailblaze://registry")).contents[0].text)
            return names, result, registry

    names, refused, registry = anyio.run(main)
    assert "exec" not in names and "exec" not in registry["tools"]
    assert refused.is_error and "--allow-host-tools" in text_of(refused)
    names, ran, registry = anyio.run(main, "--allow-host-tools")
    assert "exec" in names and registry["tools"]["exec"]["requiresHost"] is True
    assert not ran.is_error and "hello from exec ***" in text_of(ran)
    assert ran.structured_content["recorded"] == []  # exec is not recordable: a trail never runs it
    assert_no_secret(ws)  # results aside, neither the logs nor the server's stderr hold it


def test_the_failures_resource_holds_each_trail_s_latest_failure_prompt(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "trails" / "config").mkdir(parents=True)
    (ws / "trails" / "config" / "trailblaze.yaml").write_text("{}\n")
    argv = json.dumps([sys.executable, "-c", "import sys; sys.exit(3)"])
    (ws / "trails" / "check.trail.yaml").write_text(
        f"config:\n  id: shop/check\ntrail:\n  - step: the backend answers\n    recording:\n      host:\n"
        f"        - exec: {{argv: {argv}}}\n")
    ran = subprocess.run([str(TRAILBLAZE), "run", "trails", "--output-dir", str(ws / "run-logs")], cwd=ws,
                         capture_output=True, text=True, env=server_env(), timeout=300, check=False)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    printed = subprocess.run([str(TRAILBLAZE), "results", "shop/check", "--prompt"], cwd=ws, capture_output=True,
                             text=True, env=server_env(), timeout=300, check=False).stdout

    async def main() -> dict[str, Any]:
        async with stdio_session(ws) as session:
            await session.initialize()
            listed = {str(r.uri) for r in (await session.list_resources()).resources}
            assert "trailblaze://failures" in listed
            return json.loads((await session.read_resource("trailblaze://failures")).contents[0].text)

    (failure,) = anyio.run(main)["failures"]
    assert failure["trail_id"] == "shop/check" and failure["device"] == "host"
    assert failure["prompt"] == printed and "check.trail.yaml:4 (step 1)" in printed
    assert "The error:" in printed and "The last run that passed: none in the run history" in printed


def test_http_refuses_a_non_loopback_address_without_the_explicit_flag(tmp_path: Path) -> None:
    ran = subprocess.run([str(TRAILBLAZE), "mcp", "--http", "--host", "0.0.0.0"], cwd=tmp_path, capture_output=True,
                         text=True, env=server_env(), timeout=60, check=False)
    assert ran.returncode == 3, ran.stdout + ran.stderr
    assert "--host 0.0.0.0 is not a loopback address" in ran.stderr and "--allow-remote" in ran.stderr
    assert "Traceback" not in ran.stderr


CLIENT = textwrap.dedent("""\
    import os, sys, anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def main():
        params = StdioServerParameters(command=sys.argv[1], args=["mcp", "--output-dir", "logs"], cwd=sys.argv[2],
                                       env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=120) as session:
                await session.initialize()
                result = await session.call_tool("device", {"action": sys.argv[3]})
                assert not result.is_error, result
                print("connected", flush=True)
                await session.call_tool("wait", {"timeToWaitInSeconds": 4})

    anyio.run(main)
""")


@pytest.mark.appium
@pytest.mark.parametrize("action, device_process, stop", [("WEB", "chrom", "kill the client"),
                                                           ("ANDROID", "appium", "kill the client"),
                                                           ("WEB", "chrom", "SIGTERM the server")])
def test_killing_the_client_mid_call_leaves_no_process_behind(tmp_path: Path, action: str, device_process: str,
                                                              stop: str) -> None:
    ws = devices_workspace(tmp_path / "ws")
    (tmp_path / "client.py").write_text(CLIENT)
    client = subprocess.Popen([sys.executable, str(tmp_path / "client.py"), str(TRAILBLAZE), str(ws), action],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=server_env())
    try:
        assert client.stdout is not None
        line = client.stdout.readline()
        assert line.strip() == "connected", line + (client.stderr.read() if client.stderr else "")
        time.sleep(1.0)  # the client is now inside its `wait` call
        tree = live_tree(client.pid)
        server = next(pid for pid, cmd in tree.items() if " mcp " in f"{cmd} " and "trailblaze" in cmd)
        assert any(device_process in cmd for cmd in tree.values()), tree
        assert any("inventory.py" in cmd for cmd in tree.values()), tree  # the workspace's tool server
        if stop == "kill the client":
            os.kill(client.pid, signal.SIGKILL)
            client.wait(timeout=10)
        else:
            os.kill(server, signal.SIGTERM)
            assert client.wait(timeout=90) != 0  # the client sees its server go away mid-call
    finally:
        if client.poll() is None:
            client.kill()
    deadline = time.monotonic() + 90
    while alive(list(tree)) and time.monotonic() < deadline:
        time.sleep(0.25)
    left = {pid: tree[pid] for pid in alive(list(tree))}
    assert left == {}, left
    assert server in tree
    # Not only did the processes die: the server ended the session through its lifecycle (hooks told,
    # tool server stopped, driver stopped), which logs the end of the session.
    from trailblaze.logs import read_log

    entries = [e for d in (ws / "logs").iterdir() if d.is_dir() for e in read_log(d)]
    ended = [e["sessionStatus"]["status"] for e in entries if "sessionStatus" in e]
    assert "Ended.Cancelled" in ended, ended
    assert any(str(e.get("class", "")).endswith("McpServerStoppedLog") for e in entries), entries


@pytest.mark.node
def test_the_typescript_sdk_client_records_a_trail_that_replays(tmp_path: Path) -> None:
    from trailblaze_mcp_subprocess.runtimes import MissingRuntimeError, runtime_for

    node_modules = REPO / ".tools" / "node" / "node_modules"
    path = os.pathsep.join([str(node_modules / ".bin"), os.environ.get("PATH", "")])
    script = Path(__file__).with_name("mcp_server_client.ts")
    try:
        runtime = runtime_for(script, path=path)
    except MissingRuntimeError as exc:
        pytest.fail(f"{exc} (scripts/bootstrap.sh installs bun and tsx into .tools)")
    ws = shop_workspace(tmp_path / "shop")
    link_node_modules(REPO, node_modules)  # as scripts/bootstrap.sh does: the client's SDK, never fetched
    with RegistrySentinel() as offline:
        env = server_env(PATH=path, **offline.env())
        ran = subprocess.run([*runtime.argv, str(script), str(TRAILBLAZE), str(ws), PASSWORD, SAVED], cwd=ws,
                             env=env, capture_output=True, text=True, timeout=300, check=False)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert offline.connections == 0, "the client's runtime tried the network (package registry or proxy)"
    seen = json.loads(ran.stdout.strip().splitlines()[-1])
    assert seen["server"]["name"] == "Trailblaze MCP server"
    assert seen["before"] == ["device", "snapshot", "step", "verify", "trail", "toolbox"]
    assert "web_click" in seen["after"] and seen["listChanged"] >= 1
    assert not any(PASSWORD in text for text in seen["texts"])
    assert PASSWORD not in ran.stderr
    text = (ws / SAVED).read_text()
    assert "{{password}}" in text and "ariaNameRegex: Sign in" in text and "ref: e" not in text
    result = replay(ws, "--secret", f"password={PASSWORD}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert_no_secret(ws)


def test_a_tool_server_that_adds_a_tool_changes_the_list_after_reload(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "trails" / "config").mkdir(parents=True)
    py_tools = REPO / "trailblaze-mcp-subprocess" / "tests" / "servers" / "py_tools.py"
    (ws / "trails" / "config" / "trailblaze.yaml").write_text(f"mcpServers:\n  - name: py\n    script: {py_tools}\n")
    messages: list[Any] = []

    async def main() -> tuple[set[str], set[str], list[str]]:
        async with stdio_session(ws, "--allow-host-tools", messages=messages) as session:
            await session.initialize()
            await session.call_tool("device", {"action": "HOST"})
            before = {t.name for t in (await session.list_tools()).tools}
            grown = await session.call_tool("py_grow", {"name": "py_fresh"})
            assert not grown.is_error, text_of(grown)
            seen = len(messages)
            reloaded = await session.call_tool("reloadTools", {})
            assert not reloaded.is_error, text_of(reloaded)
            after = {t.name for t in (await session.list_tools()).tools}
            return before, after, [getattr(m, "method", "") for m in messages[seen:]]

    before, after, notes = anyio.run(main)
    assert "py_echo" in before and "py_fresh" not in before
    assert "py_fresh" in after
    assert "notifications/tools/list_changed" in notes


@pytest.mark.wheels
def test_without_the_extra_the_command_says_how_to_get_it(wheelhouse: Any, clean_venv: Any, tmp_path: Path) -> None:
    clean_venv.install(wheelhouse("trailblaze-core"))
    assert clean_venv.run("python", "-c", "import mcp").returncode != 0  # the core alone has no MCP SDK
    helped = clean_venv.run("trailblaze", "mcp", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "--allow-host-tools" in helped.stdout
    ran = clean_venv.run("trailblaze", "mcp", cwd=tmp_path)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "the MCP SDK is not installed" in ran.stderr and "pip install 'trailblaze[mcp]'" in ran.stderr
