"""Live sessions as separate processes: ``session start`` keeps a browser on the example shop,
``tool``/``snapshot``/``verify --session`` act on the same page, ``session save`` writes a trail that
``trailblaze run`` replays green, ``session stop`` leaves no browser, a name has one owner, and an idle
session stops itself."""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import EMAIL, PASSWORD, devices_workspace, live_tree, shop_workspace
from trailblaze import load_yaml
from trailblaze.live.registry import pid_alive as _alive
from trailblaze.testing import CliProcess

SETUP_TRAIL = f"""\
config: {{devices: {{web: playwright-native}}}}
trail:
  - step: Sign in
    recording:
      web:
        - web_navigate: {{url: /}}
        - web_type: {{ref: 'textbox "Email"', text: {EMAIL}}}
        - web_fillSecret: {{ref: 'textbox "Password"', value: "{{{{password}}}}"}}
        - web_click: {{ref: 'button "Sign in"'}}
"""


@pytest.fixture
def session_dir() -> Iterator[Path]:
    """A private runtime directory short enough for unix socket paths (108 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="tbs-"))
    try:
        yield path
    finally:
        for state in path.glob("*.json"):  # a failed test must not leave a session running
            pid = json.loads(state.read_text()).get("pid")
            if pid:
                _kill_tree(int(pid))
        for child in path.iterdir():
            child.unlink()
        path.rmdir()


def _kill_tree(pid: int) -> None:
    import signal

    for child in [pid, *live_tree(pid)]:
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass


def tb(ws: Path, session_dir: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    proc = CliProcess(list(args), cwd=ws, env={"TRAILBLAZE_SESSION_DIR": str(session_dir), **(env or {})})
    return proc.finish(timeout=300)


def session_pid(session_dir: Path, name: str) -> int:
    return int(json.loads((session_dir / f"{name}.json").read_text())["pid"])


def test_separate_processes_drive_one_page_and_save_a_trail_that_replays(tmp_path: Path, session_dir: Path) -> None:
    ws = shop_workspace(tmp_path / "shop")
    secret_env = {"SHOP_PASSWORD": PASSWORD}
    code, out = tb(ws, session_dir, "session", "start", "--name", "s", "--url", "/",
                   "--secret-env", "password=SHOP_PASSWORD", env=secret_env)
    assert code == 0, out
    assert out.startswith("Session s started: playwright-native at /"), out
    pid = session_pid(session_dir, "s")
    browser = [cmd for cmd in live_tree(pid).values() if "chrom" in cmd.lower()]
    assert browser, "the session process holds the browser"
    for private in ("s.json", "s.sock"):
        assert stat.S_IMODE((session_dir / private).stat().st_mode) == 0o600, private

    code, out = tb(ws, session_dir, "session", "start", "--name", "s", "--url", "/")
    assert code == 3 and "session 's' is already running" in out, out

    code, out = tb(ws, session_dir, "tool", "web_type", "ref=textbox \"Email\"", f"text={EMAIL}", "--session", "s",
                   "--step", "Sign in")
    assert code == 0 and 'Typed 17 characters into textbox "Email"' in out, out
    code, out = tb(ws, session_dir, "tool", "web_fillSecret", "--args", "{ref: 'textbox \"Password\"', "
                   "value: '{{password}}'}", "--session", "s", "--step", "Sign in")
    assert code == 0, out
    code, out = tb(ws, session_dir, "tool", "web_click", "ref=button \"Sign in\"", "--session", "s", "--step", "Sign in")
    assert code == 0, out

    code, out = tb(ws, session_dir, "snapshot", "--session", "s")
    assert code == 0 and f"Welcome, {EMAIL}" in out and PASSWORD not in out, out
    code, out = tb(ws, session_dir, "verify", "The shop greets the hiker", "--session", "s",
                   "--tools", f"[{{web_verifyTextVisible: {{text: 'Welcome, {EMAIL}'}}}}]")
    assert code == 0, out
    code, out = tb(ws, session_dir, "verify", "A wrong greeting", "--session", "s",
                   "--tools", "[{web_verifyTextVisible: {text: 'Welcome back, stranger', timeoutMs: 300}}]")
    assert code == 1 and "Welcome, hiker@example.com" in out, out  # says what the page had
    code, out = tb(ws, session_dir, "tool", "web_clik", "ref=e1", "--session", "s")
    assert code == 3 and "did you mean 'web_click'" in out, out

    code, out = tb(ws, session_dir, "session", "save", "--name", "s", "trails/sign-in.trail.yaml")
    assert code == 0 and "sign-in.trail.yaml (3 steps)" in out, out
    saved = (ws / "trails" / "sign-in.trail.yaml").read_text()
    assert PASSWORD not in saved and "value: '{{password}}'" in saved, saved
    assert "- step: Sign in" in saved and "- verify: The shop greets the hiker" in saved, saved

    code, out = tb(ws, session_dir, "session", "stop", "--name", "s")
    assert code == 0 and "session s stopped" in out, out
    assert live_tree(pid) == {} and not _alive(pid), "session stop leaves no process and no browser"
    assert sorted(p.name for p in session_dir.iterdir()) == ["s.lock", "s.log"]
    code, out = tb(ws, session_dir, "session", "list")
    assert code == 0 and "No live sessions." in out

    code, out = tb(ws, session_dir, "run", "trails/sign-in.trail.yaml", "--secret-env", "password=SHOP_PASSWORD",
                   env=secret_env)
    assert code == 0 and "1 passed" in out, out


def test_an_idle_session_stops_itself(tmp_path: Path, session_dir: Path) -> None:
    ws = shop_workspace(tmp_path / "shop")
    code, out = tb(ws, session_dir, "session", "start", "--name", "idle", "--idle-timeout", "2")
    assert code == 0, out
    pid = session_pid(session_dir, "idle")
    deadline = time.monotonic() + 90
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _alive(pid) and live_tree(pid) == {}, "the idle session did not stop"
    assert "idle for 2 s, stopping" in (session_dir / "idle.log").read_text()
    code, out = tb(ws, session_dir, "snapshot", "--session", "idle")
    assert code == 3 and "no live session named 'idle'" in out, out


def test_wrong_tokens_stale_state_and_missing_sessions_are_refused(tmp_path: Path, session_dir: Path) -> None:
    ws = shop_workspace(tmp_path / "shop")
    code, out = tb(ws, session_dir, "tool", "web_click", "ref=e1")
    assert code == 3 and "pass --session NAME" in out, out
    # A state file from another boot (or a crashed process) is never believed, and is cleaned away.
    (session_dir / "old.json").write_text(json.dumps({"name": "old", "pid": os.getpid(), "bootId": "another-boot",
                                                      "token": "t", "socket": str(session_dir / "old.sock")}))
    code, out = tb(ws, session_dir, "session", "list")
    assert code == 0 and "No live sessions." in out and not (session_dir / "old.json").exists(), out

    # The session starts from a setup trail (signing in); snapshot shows the page behind the login, and
    # the setup is the start state, not part of what is saved.
    (ws / "trails" / "setup").mkdir()
    (ws / "trails" / "setup" / "sign-in.trail.yaml").write_text(SETUP_TRAIL)
    code, out = tb(ws, session_dir, "session", "start", "--name", "t", "--idle-timeout", "120",
                   "--setup", "trails/setup/sign-in.trail.yaml", "--secret-env", "password=SHOP_PASSWORD",
                   env={"SHOP_PASSWORD": PASSWORD})
    assert code == 0, out
    pid = session_pid(session_dir, "t")
    try:
        code, out = tb(ws, session_dir, "snapshot", "--session", "t")
        assert code == 0 and f"Welcome, {EMAIL}" in out, out
        code, out = tb(ws, session_dir, "session", "save", "--name", "t", "trails/nothing.trail.yaml")
        assert code == 3 and "nothing has been recorded yet" in out, out
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(30)
            sock.connect(str(session_dir / "t.sock"))
            sock.sendall(b'{"token": "guessed", "op": "snapshot"}\n')
            reply = json.loads(sock.recv(65536).split(b"\n")[0])
        assert reply["exit_code"] == 3 and reply["error"] == "wrong session token" and reply["output"] == ""
    finally:
        code, out = tb(ws, session_dir, "session", "stop", "--name", "t")
    assert code == 0, out
    assert not _alive(pid)


@pytest.mark.appium
def test_a_session_on_a_phone_keeps_the_device_and_its_appium_server(tmp_path: Path, session_dir: Path,
                                                                    appium_run_env: dict[str, str]) -> None:
    import re

    ws = devices_workspace(tmp_path / "ws")
    code, out = tb(ws, session_dir, "session", "start", "--name", "phone", "-d", "android", env=appium_run_env)
    assert code == 0 and "android-appium-uiautomator2" in out, out
    pid = session_pid(session_dir, "phone")
    assert any("appium" in cmd for cmd in live_tree(pid).values()), "the session holds the Appium server"
    code, out = tb(ws, session_dir, "snapshot", "--session", "phone")
    found = re.search(r'\[(\w+)\] Button "Sign in"', out)
    assert code == 0 and found, out
    code, out = tb(ws, session_dir, "tool", "tap", f"ref={found.group(1)}", "--step", "Tap sign in",
                   "--session", "phone")
    assert code == 0, out
    code, out = tb(ws, session_dir, "session", "save", "--name", "phone", "trails/tap.trail.yaml")
    assert code == 0, out
    saved = (ws / "trails" / "tap.trail.yaml").read_text()
    assert "- step: Tap sign in" in saved and "com.example.fakeshop:id/sign_in" in saved, saved
    code, out = tb(ws, session_dir, "session", "stop", "--name", "phone")
    assert code == 0, out
    assert live_tree(pid) == {} and not _alive(pid), "no device session, no Appium server left"


RECEIPT_PAGE = """\
<!doctype html>
<html lang="en" data-page="receipt" data-auth="required">
<head>
  <meta charset="utf-8">
  <title>Attach a receipt · Trailblaze Outfitters</title>
  <link rel="stylesheet" href="/styles.css">
  <script src="/common.js"></script>
</head>
<body>
  <header class="site-header"></header>
  <main id="main" class="container">
    <h1>Attach a receipt</h1>
    <label>Receipt <input type="file" id="receipt"></label>
    <p id="attached" data-testid="attached"></p>
  </main>
  <script>
    Shop.mountHeader("receipt");
    document.getElementById("receipt").addEventListener("change", async (event) => {
      const file = event.target.files[0];
      document.getElementById("attached").textContent = file ? `Attached ${file.name}: ${(await file.text()).trim()}` : "";
    });
  </script>
</body>
</html>
"""

SNAPSHOT_REF = "snapshot ref of "
"""An argument ``snapshot ref of button "Approve"`` is the ref ``trailblaze snapshot --session`` shows for
that element when the row runs (``f2e6`` inside a frame), as a person driving a session passes it."""

SESSION_STEPS: list[tuple[str, str, dict[str, object]]] = [
    ("Open the receipt form", "web_navigate", {"url": "/receipt.html"}),
    ("Attach the receipt", "web_uploadFile", {"ref": 'button "Receipt"', "paths": ["fixtures/receipt.txt"]}),
    ("Attach the receipt", "web_verifyTextVisible", {"text": "Attached receipt.txt: Taxi 12.50"}),
    ("Attach the receipt", "web_verifyTextVisible", {"text": f"Welcome, {EMAIL}"}),
    ("Approve the expense in its frame", "web_navigate", {"url": "/account/approvals.html"}),
    ("Approve the expense in its frame", "web_click", {"ref": SNAPSHOT_REF + 'button "Approve"'}),
    ("Approve the expense in its frame", "web_verifyValue",
     {"ref": "status", "frame": 'iframe "Approval frame"', "expected": "Approved"}),
    ("Open the expense policy, which opens a new tab", "web_navigate", {"url": "/account/help.html"}),
    ("Open the expense policy, which opens a new tab", "web_click", {"ref": 'link "Expense policy"'}),
]
"""What the session does after its setup, one (step, tool, arguments) each: the saved trail must replay
all of them from another directory — an upload, a click in an iframe by its frame ref, a link that opens
a new tab (the next call acts on it). More ways a page can be reached are added here as rows, with
their checks in SESSION_CHECKS."""

SESSION_CHECKS: list[tuple[str, str, dict[str, object]]] = [
    ("The policy is open in the new tab", "web_verifyElementVisible", {"ref": 'heading "Expense policy"'}),
    ("The policy is open in the new tab", "web_verifyTextVisible",
     {"text": "Taxis are reimbursed up to $40 a ride."}),
]


def _with_snapshot_refs(ws: Path, session_dir: Path, args: dict[str, object]) -> dict[str, object]:
    wanted = {key: value[len(SNAPSHOT_REF):] for key, value in args.items()
              if isinstance(value, str) and value.startswith(SNAPSHOT_REF)}
    if not wanted:
        return args
    code, out = tb(ws, session_dir, "snapshot", "--session", "r")
    assert code == 0, out
    found = {}
    for key, element in wanted.items():
        shown = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("[")]
        line = next((ln for ln in shown if ln.split("] ", 1)[-1].rstrip(":") == element), None)
        assert line is not None, (element, out)
        found[key] = line[1:].split("]", 1)[0]
    return {**args, **found}


def test_a_session_started_behind_a_login_saves_a_trail_that_replays_from_another_directory(
        tmp_path: Path, session_dir: Path) -> None:
    ws = shop_workspace(tmp_path / "shop")
    (ws / "trails" / "setup").mkdir()
    (ws / "trails" / "setup" / "sign-in.trail.yaml").write_text(SETUP_TRAIL)
    (ws / "app" / "receipt.html").write_text(RECEIPT_PAGE)
    (ws / "fixtures").mkdir()
    (ws / "fixtures" / "receipt.txt").write_text("Taxi 12.50\n")
    secret_env = {"SHOP_PASSWORD": PASSWORD}
    code, out = tb(ws, session_dir, "session", "start", "--name", "r", "--setup", "trails/setup/sign-in.trail.yaml",
                   "--secret-env", "password=SHOP_PASSWORD", env=secret_env)
    assert code == 0, out
    try:
        for step, tool, args in SESSION_STEPS:  # paths as typed, relative to where the session was started
            args = _with_snapshot_refs(ws, session_dir, args)
            code, out = tb(ws, session_dir, "tool", tool, "--args", json.dumps(args), "--session", "r", "--step", step)
            assert code == 0, out
        checks = [{tool: args} for _step, tool, args in SESSION_CHECKS]
        code, out = tb(ws, session_dir, "verify", SESSION_CHECKS[0][0], "--session", "r", "--tools", json.dumps(checks))
        assert code == 0, out
        code, out = tb(ws, session_dir, "session", "save", "--name", "r", "trails/flows/receipt.trail.yaml")
        assert code == 0 and out.startswith("Created ") and " steps)" in out, out
    finally:
        code, out = tb(ws, session_dir, "session", "stop", "--name", "r")
    assert code == 0, out

    saved = (ws / "trails" / "flows" / "receipt.trail.yaml").read_text()
    assert "setup: ../setup/sign-in.trail.yaml" in saved, saved  # it starts signed in, as the session did
    assert "../../fixtures/receipt.txt" in saved and str(tmp_path) not in saved, saved  # relative to the trail
    assert PASSWORD not in saved
    calls = [(tool, args) for item in load_yaml(saved)["trail"] for call in item["recording"]["web"]
             for tool, args in call.items()]
    assert [tool for tool, _ in calls] == [tool for _, tool, _ in SESSION_STEPS + SESSION_CHECKS], saved
    approve = [args for tool, args in calls if tool == "web_click" and "Approve" in str(args)]
    assert approve == [{"ref": 'button "Approve"', "frame": 'iframe "Approval frame"',  # never the frame ref
                        "nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "Approve"}}}], saved

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code, out = tb(elsewhere, session_dir, "run", str(ws / "trails" / "flows" / "receipt.trail.yaml"),
                   "--secret-env", "password=SHOP_PASSWORD", env=secret_env)
    assert code == 0 and "setup: 1 recorded step replayed" in out and "1 passed" in out, out
