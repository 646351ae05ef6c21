"""Starting signed in: the workspace's ``defaults.setup`` (or ``--setup``) replays a sign-in before
``snapshot``, ``session start`` and ``record`` look, a trail's ``config.setup`` before ``run`` runs it, and
a trail's ``config.drivers`` names a saved storage state — with real processes on the example shop and a
loopback page; bad setups name file:line and key."""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import EMAIL, PASSWORD, TRAILBLAZE, server_env, shop_workspace
from test_live_sessions import SETUP_TRAIL, _kill_tree, session_dir
from trailblaze.live.registry import pid_alive
from trailblaze.testing import CliProcess
from trailblaze_driver_web.tabs import close_page

ENV = {"SHOP_PASSWORD": PASSWORD}
__all__ = ["session_dir"]  # the fixture, shared with tests/test_live_sessions.py


def workspace(root: Path, setup: str | None) -> Path:
    ws = shop_workspace(root)
    (ws / "trails" / "setup").mkdir()
    (ws / "trails" / "setup" / "sign-in.trail.yaml").write_text(SETUP_TRAIL)
    if setup is not None:
        config = ws / "trails" / "config" / "trailblaze.yaml"
        text = config.read_text()
        config.write_text(text.replace("  driver: playwright-native\n", f"  driver: playwright-native\n{setup}", 1))
    return ws


def tb(ws: Path, *args: str, session_dir: Path | None = None) -> tuple[int, str]:
    env = {**ENV, **({"TRAILBLAZE_SESSION_DIR": str(session_dir)} if session_dir else {})}
    return CliProcess(list(args), cwd=ws, env=env).finish(timeout=300)


def test_snapshot_and_session_start_begin_behind_the_workspace_setup(tmp_path: Path, session_dir: Path) -> None:
    ws = workspace(tmp_path / "shop", "  setup: trails/setup/sign-in.trail.yaml\n")
    code, out = tb(ws, "snapshot", "--secret-env", "password=SHOP_PASSWORD")
    assert code == 0 and f"Welcome, {EMAIL}" in out, out
    assert PASSWORD not in out

    code, out = tb(ws, "session", "start", "--name", "s", "--idle-timeout", "120", "--secret-env",
                   "password=SHOP_PASSWORD", session_dir=session_dir)
    assert code == 0, out
    pid = int(json.loads((session_dir / "s.json").read_text())["pid"])
    try:
        code, out = tb(ws, "snapshot", "--session", "s", session_dir=session_dir)
        assert code == 0 and f"Welcome, {EMAIL}" in out, out
        code, out = tb(ws, "session", "save", "--name", "s", "trails/nothing.trail.yaml", session_dir=session_dir)
        assert code == 3 and "nothing has been recorded yet" in out, out  # the setup is not saved
    finally:
        code, out = tb(ws, "session", "stop", "--name", "s", session_dir=session_dir)
    assert code == 0 and not pid_alive(pid), out


def test_setup_flag_replaces_the_workspace_default_and_bad_setups_name_file_line_and_key(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "shop", "  setup: [trails/setup/missing.trail.yaml]\n")
    code, out = tb(ws, "snapshot")
    assert code == 3, out
    assert "trailblaze.yaml:7" in out and "defaults.setup" in out and "missing.trail.yaml" in out, out

    code, out = tb(ws, "snapshot", "--setup", "trails/setup/sign-in.trail.yaml", "--secret-env",
                   "password=SHOP_PASSWORD")
    assert code == 0 and f"Welcome, {EMAIL}" in out, out

    (ws / "trails" / "setup" / "unrecorded.trail.yaml").write_text("trail:\n  - step: Sign in\n")
    code, out = tb(ws, "snapshot", "--setup", "trails/setup/unrecorded.trail.yaml")
    assert code == 3 and "unrecorded.trail.yaml:2" in out and "has no recording" in out, out
    code, out = tb(ws, "snapshot", "--setup", "trails/setup/nope.trail.yaml")
    assert code == 3 and "--setup: no trail file trails/setup/nope.trail.yaml" in out, out


def test_a_trail_names_its_setup_and_run_replays_it_first(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "shop", None)
    trail = ws / "trails" / "welcome.trail.yaml"
    trail.write_text("""\
config:
  title: Signed in, the shop welcomes the hiker
  setup: setup/sign-in.trail.yaml
trail:
  - verify: The shop welcomes the hiker
    recording:
      web:
        - web_verifyTextVisible: {text: "Welcome, hiker@example.com"}
""")
    code, out = tb(ws, "run", "trails/welcome.trail.yaml", "--secret-env", "password=SHOP_PASSWORD")
    assert code == 0 and "setup: 1 recorded step replayed" in out and "Results: 1 passed, 0 failed" in out, out
    assert PASSWORD not in out

    # A setup trail's own setup runs first: snapshot --setup of a trail that names the sign-in as its setup.
    code, out = tb(ws, "snapshot", "--setup", "trails/welcome.trail.yaml", "--secret-env", "password=SHOP_PASSWORD")
    assert code == 0 and f"Welcome, {EMAIL}" in out, out

    trail.write_text(trail.read_text().replace("setup/sign-in.trail.yaml", "setup/gone.trail.yaml"))
    code, out = tb(ws, "run", "trails/welcome.trail.yaml")
    assert code == 3 and "welcome.trail.yaml:3" in out and "'setup'" in out and "gone.trail.yaml" in out, out

    # Setups naming each other in a loop are refused; a failing setup step fails the run (exit 1).
    (ws / "trails" / "setup" / "a.trail.yaml").write_text("config: {setup: b.trail.yaml}\ntrail: []\n")
    (ws / "trails" / "setup" / "b.trail.yaml").write_text("config: {setup: a.trail.yaml}\ntrail: []\n")
    code, out = tb(ws, "snapshot", "--setup", "trails/setup/a.trail.yaml")
    assert code == 3 and "setup trails name each other in a loop" in out, out
    (ws / "trails" / "setup" / "sign-in.trail.yaml").write_text(SETUP_TRAIL.replace('button "Sign in"', 'button "Nope"'))
    trail.write_text(trail.read_text().replace("setup/gone.trail.yaml", "setup/sign-in.trail.yaml"))
    code, out = tb(ws, "run", "trails/welcome.trail.yaml", "--secret-env", "password=SHOP_PASSWORD")
    assert code == 1 and "setup trail: step 'Sign in' failed" in out and "sign-in.trail.yaml:3" in out, out


def test_record_starts_behind_the_workspace_setup_and_does_not_record_it(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright
    from test_record_command import free_port, wait_for

    ws = workspace(tmp_path / "shop", "  setup: [trails/setup/sign-in.trail.yaml]\n")
    port = free_port()
    log = tmp_path / "record.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([str(TRAILBLAZE), "record", "--save", "trails/signed-in.trail.yaml", "--headless",
                                 "--secret-env", "password=SHOP_PASSWORD",
                                 "-o", f"launch_args=[--remote-debugging-port={port}]"],
                                cwd=ws, env={**server_env(), **ENV}, stdin=subprocess.PIPE, stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        wait_for(log, "Recording on playwright-native", proc)
        with sync_playwright() as pw:  # the page the person starts on is behind the login
            page = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}").contexts[0].pages[0]
            page.get_by_text(f"Welcome, {EMAIL}").wait_for()
            link = page.get_by_role("link", name="View Trail Mug")
            link.hover()  # as a person clicks: the pointer arrives (the recorder names the element), then the press
            page.wait_for_timeout(300)
            link.click()
            wait_for(log, 'recorded web_click: click link "View Trail Mug"', proc)
            # The person closes the window to save (as in test_record_command). Stopping with Ctrl-C
            # hung once in a full parallel run here (record did not exit within 120 s); that path is
            # tracked in the closing note, not hidden in this test about setup trails.
            close_page(page)  # (Playwright's page.close() can wait forever on a committing navigation)
        code = proc.wait(120)
    finally:
        if proc.poll() is None:
            _kill_tree(proc.pid)
            proc.wait(30)
    output = log.read_text()
    assert code == 0, output
    saved = (ws / "trails" / "signed-in.trail.yaml").read_text()
    assert "View Trail Mug" in saved and "web_fillSecret" not in saved and "Sign in" not in saved, saved


def test_a_trail_starts_from_a_saved_storage_state_through_its_driver_settings(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>Claims</title><p id=who></p><script>"
                                     "document.getElementById('who').textContent = 'Claimant: ' + "
                                     "(localStorage.getItem('claimant') || 'nobody');</script>")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        ws = tmp_path / "ws"
        (ws / "trails" / "config").mkdir(parents=True)
        (ws / "trails" / "config" / "trailblaze.yaml").write_text("defaults: {driver: playwright-native}\n")
        (ws / "state.json").write_text(json.dumps({"cookies": [], "origins": [
            {"origin": origin, "localStorage": [{"name": "claimant", "value": "Ada"}]}]}))
        (ws / "trails" / "claims.trail.yaml").write_text(f"""\
config:
  title: The saved state signs Ada in
  drivers:
    playwright-native: {{storage_state: state.json}}
trail:
  - step: Open the claims page
    recording:
      web:
        - web_navigate: {{url: "{origin}/"}}
  - verify: Ada is the claimant
    recording:
      web:
        - web_verifyTextVisible: {{text: "Claimant: Ada"}}
""")
        code, out = tb(ws, "run", "trails/claims.trail.yaml")
        assert code == 0 and "Results: 1 passed, 0 failed" in out, out
    finally:
        server.shutdown()
        server.server_close()
