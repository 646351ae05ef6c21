"""Every shell line of docs/web.md and docs/cli.md runs (docs/recording.md's run in
tests/test_recording_docs.py and tests/test_record_command.py).

Each line is run by the test named for it in ``HOW`` below, in a copy of the examples, with ``uv run
trailblaze``/``trailblaze`` as this checkout's ``trailblaze``. Where a line reaches something this machine
does not have — a browser grid host, a port another test may hold, an Android emulator, the ``claude``
CLI, a model — the test says what it puts in its place, next to the line. A shell line added to either
page without a test here fails ``test_every_shell_line_has_a_test``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import PASSWORD, REPO, TRAILBLAZE, devices_workspace, live_tree, server_env
from test_agent_web_shop import llm_section
from test_record_command import display, free_port
from trailblaze.testing.llm import RecordedRequest, Reply, ScriptedLlmServer, call, done

DOCS = ("web.md", "cli.md")
BOX = re.compile(r"button \"Sign in\" \{\d+,\d+,\d+,\d+\}")

__all__ = ["display"]  # the fixture, imported for the headed lines


def shell_lines(doc: str) -> list[str]:
    text = (REPO / "docs" / doc).read_text(encoding="utf-8")
    blocks = re.findall(r"```(?:bash|sh)\n(.*?)```", text, flags=re.DOTALL)
    return [ln.strip() for b in blocks for ln in b.splitlines() if ln.strip() and not ln.strip().startswith("#")]


HOW: dict[str, str] = {
    "uv run trailblaze run examples/web-shop/trails          # headless; prints Results: … and the report path":
        "test_the_shop_runs_headless_and_headed",
    "uv run trailblaze run examples/web-shop/trails --headed # watch it": "test_the_shop_runs_headless_and_headed",
    "npx playwright run-server --host 0.0.0.0 --port 3000": "test_a_playwright_server_and_a_devtools_chrome",
    "trailblaze run trails/ -o connect=ws://browsers.internal:3000/": "test_a_playwright_server_and_a_devtools_chrome",
    "trailblaze run trails/ -o cdp_url=http://127.0.0.1:9222": "test_a_playwright_server_and_a_devtools_chrome",
    "trailblaze run trails/ -o trace=retain-on-failure            # a trace for each failed trail":
        "test_traces_and_screenshots",
    "trailblaze run trails/ -o screenshots=on                     # a picture per step in the report":
        "test_traces_and_screenshots",
    "trailblaze run trails/ -o network=all                        # hear every request, for the evidence":
        "test_traces_and_screenshots",
    "trailblaze run examples/trailblaze-acme/trails --arg person=Ada": "test_runs_by_argument_tag_and_glob_and_the_log",
    "trailblaze run examples/web-shop/trails --tags smoke --headed": "test_runs_by_argument_tag_and_glob_and_the_log",
    'trailblaze run "examples/web-shop/**/sign-*.trail.yaml" --output-dir build/tb':
        "test_runs_by_argument_tag_and_glob_and_the_log",
    "jq -c 'select(.class | endswith(\"TrailblazeToolLog\")) | [.toolName, .successful]' logs/*/session.ndjson":
        "test_runs_by_argument_tag_and_glob_and_the_log",
    'trailblaze step "Sign in as hiker@example.com" --secret-env password=SHOP_PASSWORD --save '
    'trails/my-sign-in.trail.yaml': "test_a_step_with_a_model",
    "cd examples/web-shop && uv run trailblaze snapshot --url / --bounds": "test_snapshots",
    "uv run trailblaze run examples/web-shop/trails/account-approvals.trail.yaml "
    "examples/web-shop/trails/account-profile.trail.yaml": "test_the_frames_and_shadow_dom_trails",
    "cd examples/web-shop && uv run trailblaze run trails/account-tabs.trail.yaml "
    "trails/account-downloads.trail.yaml trails/account-dialogs.trail.yaml -o evidence=on":
        "test_the_tabs_downloads_and_dialogs_trails",
    "trailblaze snapshot -d android/emulator-5554 --offscreen": "test_snapshots",
    "claude mcp add trailblaze -- trailblaze mcp --workspace .": "test_the_mcp_server_lines",
    "trailblaze mcp --http --port 8765 --token-file .trailblaze-mcp.json": "test_the_mcp_server_lines",
    "trailblaze tools                              # tools offered to the model": "test_the_tools_lines",
    "trailblaze tools --all                        # plus recording-only tools": "test_the_tools_lines",
    "trailblaze tools --driver playwright-native   # what runs on that driver": "test_the_tools_lines",
    "trailblaze tools --search greet --json        # descriptors (OpenAI and MCP shapes) and sources":
        "test_the_tools_lines",
}
"""Each documented shell line → the test that runs it. Lines not run (and why) are in NOT_RUN."""

NOT_RUN: dict[str, str] = {}
"""Documented lines no test runs, each with why (none)."""


def test_every_shell_line_has_a_test() -> None:
    documented = {ln for doc in DOCS for ln in shell_lines(doc)}
    assert documented == set(HOW) | set(NOT_RUN), (documented ^ (set(HOW) | set(NOT_RUN)))
    names = {name for name in globals() if name.startswith("test_")}
    assert set(HOW.values()) <= names


@pytest.fixture
def chromium() -> str:
    """The Chromium the web driver would launch (scripts/bootstrap.sh installs one)."""
    from trailblaze_driver_web.browser import find_chromium
    from trailblaze_driver_web.config import WebDriverConfig

    path = find_chromium(WebDriverConfig()).path
    assert path, "no Chromium executable: run scripts/bootstrap.sh"
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the examples the lines name (web shop, acme), without logs."""
    skip = shutil.ignore_patterns("logs", "__pycache__", "*.egg-info", "node_modules", "build")
    for name in ("web-shop", "trailblaze-acme"):
        shutil.copytree(REPO / "examples" / name, tmp_path / "examples" / name, ignore=skip)
    return tmp_path


def line(doc_line: str, **replace: str) -> str:
    """The documented line as run here: this checkout's trailblaze, and the stand-ins given."""
    assert doc_line in HOW, doc_line
    text = re.sub(r"^(uv run )?trailblaze ", f"{shlex.quote(str(TRAILBLAZE))} ", doc_line)
    text = text.replace("&& uv run trailblaze ", f"&& {shlex.quote(str(TRAILBLAZE))} ")
    for old, new in replace.items():
        assert old in text, (old, text)
        text = text.replace(old, new)
    return text


def sh(command: str, cwd: Path, *, env: dict[str, str] | None = None, timeout: float = 600) -> tuple[int, str]:
    done = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**server_env(), **(env or {})}, check=False)
    return done.returncode, done.stdout + done.stderr


def doc_line(start: str) -> str:
    found = [ln for ln in HOW if ln.startswith(start)]
    assert len(found) == 1, (start, found)
    return found[0]


def stop(proc: subprocess.Popen[bytes]) -> None:
    for pid in [*live_tree(proc.pid), proc.pid]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(30)


def signed_in_workspace(root: Path) -> Path:
    """The shop's workspace with one trail (sign-in) under trails/: the ``trails/`` lines run on it."""
    ws = root / "examples" / "web-shop"
    for trail in (ws / "trails").glob("*.trail.yaml"):
        if trail.name != "sign-in.trail.yaml":
            trail.unlink()
    return ws


def test_the_shop_runs_headless_and_headed(root: Path, display: str) -> None:
    code, out = sh(line(doc_line("uv run trailblaze run examples/web-shop/trails  ")), root)
    assert code == 0 and re.search(r"Results: \d+ passed, 0 failed", out) and "Report:" in out, out
    code, out = sh(line(doc_line("uv run trailblaze run examples/web-shop/trails --headed")), root,
                   env={"DISPLAY": display})
    assert code == 0 and re.search(r"Results: \d+ passed, 0 failed", out), out


def test_a_playwright_server_and_a_devtools_chrome(root: Path, chromium: str) -> None:
    ws = signed_in_workspace(root)
    port = free_port()
    # The Python client's own Playwright (the same major.minor, as the page asks), on loopback (all this
    # machine can reach) and a free port; the grid host is that server. It has no browsers installed of
    # its own, so --unsafe lets it launch the Chromium the run names (connect_launch_options).
    playwright = Path(sys.executable).parent / "playwright"
    server = subprocess.Popen(["bash", "-c", line(doc_line("npx playwright run-server"), **{
        "npx playwright": shlex.quote(str(playwright)), "0.0.0.0": "127.0.0.1", "3000": str(port)}) + " --unsafe"],
        cwd=ws, env=server_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        assert server.stdout is not None
        assert "Listening on" in server.stdout.readline().decode()
        launch = json.dumps({"executablePath": chromium, "args": ["--no-sandbox", "--disable-gpu"]})
        code, out = sh(line(doc_line("trailblaze run trails/ -o connect="), **{
            "browsers.internal:3000": f"127.0.0.1:{port}"}) + f" -o connect_launch_options={shlex.quote(launch)}", ws)
        assert code == 0 and "Results: 1 passed, 0 failed" in out, out
    finally:
        stop(server)

    # A Chrome speaking DevTools on a free port instead of 9222.
    port = free_port()
    chrome = subprocess.Popen([chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                               f"--remote-debugging-port={port}", f"--user-data-dir={root / 'chrome-profile'}",
                               "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "Chromium's DevTools endpoint never came up"
                time.sleep(0.2)
        code, out = sh(line(doc_line("trailblaze run trails/ -o cdp_url="), **{"9222": str(port)}), ws)
        assert code == 0 and "Results: 1 passed, 0 failed" in out, out
    finally:
        stop(chrome)


def test_traces_and_screenshots(root: Path) -> None:
    ws = signed_in_workspace(root)
    code, out = sh(line(doc_line("trailblaze run trails/ -o trace=")), ws)
    assert code == 0 and "Results: 1 passed, 0 failed" in out, out
    code, out = sh(line(doc_line("trailblaze run trails/ -o screenshots=")), ws)
    assert code == 0 and "Results: 1 passed, 0 failed" in out, out
    assert list((ws / "logs").rglob("step_001.jpg")), "screenshots=on wrote no picture"
    code, out = sh(line(doc_line("trailblaze run trails/ -o network=")), ws)
    assert code == 0 and "Results: 1 passed, 0 failed" in out, out


def test_runs_by_argument_tag_and_glob_and_the_log(root: Path, display: str) -> None:
    code, out = sh(line(doc_line("trailblaze run examples/trailblaze-acme")), root)
    assert code == 0 and "Results: 1 passed, 0 failed" in out, out
    code, out = sh(line(doc_line("jq -c")), root)
    assert code == 0 and re.search(r'^\["acme_greet",true\]$', out, flags=re.MULTILINE), out
    code, out = sh(line(doc_line("trailblaze run examples/web-shop/trails --tags smoke")), root,
                   env={"DISPLAY": display})
    assert code == 0 and "Results: 3 passed, 0 failed" in out, out
    code, out = sh(line(doc_line('trailblaze run "examples/web-shop/**')), root)
    assert code == 0 and "Results: 2 passed, 0 failed" in out and (root / "build" / "tb").is_dir(), out


def test_the_frames_and_shadow_dom_trails(root: Path) -> None:
    code, out = sh(line(doc_line("uv run trailblaze run examples/web-shop/trails/account-")), root)
    assert code == 0 and "Results: 2 passed, 0 failed" in out, out
    assert "Web shop: approve an expense in an iframe" in out and "shadow-DOM rating" in out, out


def test_the_tabs_downloads_and_dialogs_trails(root: Path) -> None:
    code, out = sh(line(doc_line("cd examples/web-shop && uv run trailblaze run trails/account-tabs")), root)
    assert code == 0 and "Results: 3 passed, 0 failed" in out, out
    kept = list((root / "examples" / "web-shop" / "logs").glob("*/downloads/expenses.csv"))
    assert len(kept) == 1 and "Taxi,Travel,32.00" in kept[0].read_text(), out


class SignInModel:
    """The model, scripted: signs in, the password as its token."""

    def __call__(self, request: RecordedRequest) -> Reply:
        made = len(request.tool_results())
        if "Sign in as hiker@example.com" in request.objective:
            plan = [lambda: call("web_navigate", url="/"),
                    lambda: call("web_type", ref=request.ref_on_screen('textbox "Email"'), text="hiker@example.com"),
                    lambda: call("web_fillSecret", ref=request.ref_on_screen('textbox "Password"'),
                                 value="{{password}}"),
                    lambda: call("web_click", ref=request.ref_on_screen('button "Sign in"')),
                    lambda: done("signed in")]
            return plan[min(made, 4)]()
        raise AssertionError(f"unexpected objective: {request.objective}")


def test_a_step_with_a_model(root: Path) -> None:
    # The model is a real OpenAI client's, answered by a scripted server on loopback (the workspace's
    # llm: section points at it).
    ws = root / "examples" / "web-shop"
    with ScriptedLlmServer(SignInModel()) as server:
        config = ws / "trails" / "config" / "trailblaze.yaml"
        config.write_text(config.read_text() + llm_section(server))
        env = {"SHOP_PASSWORD": PASSWORD}
        code, out = sh(line(doc_line("trailblaze step ")), ws, env=env)
        assert code == 0, out
    saved = (ws / "trails" / "my-sign-in.trail.yaml").read_text()
    assert "- step: Sign in as hiker@example.com" in saved and "web_click" in saved, saved
    assert "{{password}}" in saved and PASSWORD not in saved + out


@pytest.mark.appium
def test_snapshots(root: Path, tmp_path: Path) -> None:
    code, out = sh(line(doc_line("cd examples/web-shop && uv run trailblaze snapshot")), root)
    assert code == 0 and out.startswith("# playwright-native") and BOX.search(out), out
    # No emulator here: Appium's fake driver stands in for it (the workspace's Android driver settings).
    phone = devices_workspace(tmp_path / "phone")
    code, out = sh(line(doc_line("trailblaze snapshot -d android/")), phone, timeout=300)
    assert code == 0 and "android" in out.splitlines()[0], out


def test_the_mcp_server_lines(root: Path) -> None:
    ws = root / "examples" / "web-shop"
    # What `claude mcp add` registers is the command after `--`; Claude Code would start it and talk MCP
    # over its stdin and stdout: an MCP client does that here.
    command = shlex.split(line(doc_line("claude mcp add")).split(" -- ", 1)[1].replace(
        "trailblaze ", f"{shlex.quote(str(TRAILBLAZE))} ", 1))

    async def tools() -> list[str]:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ws), env=server_env())
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return [t.name for t in (await session.list_tools()).tools]

    assert "snapshot" in asyncio.run(tools())

    # The HTTP server on a free port instead of 8765; its token file is written and a request without
    # the token is refused.
    port = free_port()
    proc = subprocess.Popen(["bash", "-c", "exec " + line(doc_line("trailblaze mcp --http"), **{"8765": str(port)})],
                            cwd=ws, env=server_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        token_file = ws / ".trailblaze-mcp.json"
        deadline = time.monotonic() + 60
        while not token_file.exists() or not token_file.read_text().strip():
            assert proc.poll() is None and time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.1)
        info = json.loads(token_file.read_text())
        assert info["url"] == f"http://127.0.0.1:{port}/mcp"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(info["url"], data=b"{}"), timeout=10)
        assert refused.value.code == 401
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            stop(proc)


def test_the_tools_lines(root: Path) -> None:
    ws = root / "examples" / "trailblaze-acme"
    outputs = []
    for start in ("trailblaze tools  ", "trailblaze tools --all", "trailblaze tools --driver", "trailblaze tools --search"):
        code, out = sh(line(doc_line(start)), ws)
        assert code == 0, out
        outputs.append(out)
    assert "acme_greet" in outputs[0] and len(outputs[1]) >= len(outputs[0])
    assert "web_click" in outputs[2]
    found = json.loads(outputs[3])
    assert any("greet" in json.dumps(item) for item in found), found
