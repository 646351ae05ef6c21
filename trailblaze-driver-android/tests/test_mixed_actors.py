"""A trail with a phone and a browser (issue 35): actor alice on Android (the Appium fake driver, a
server Trailblaze manages), actor bob on web (Chromium), bound with
``-d alice=android/emulator-5554 -d bob=web``. A value typed on the phone reaches the browser through the
shared memory; a ``parallel:`` block has one child on each; nothing is left running afterwards."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from trailblaze.testing import CliProcess

pytestmark = [pytest.mark.appium, pytest.mark.browser]

TRAIL = """\
config:
  title: A phone and a browser
  actors:
    alice: android
    bob: web
  memory:
    email: shopper@example.com
trail:
  - step: Alice types her email and a new password on the phone
    actor: alice
    recording:
      android:
        - tapOnElementBySelector: {{nodeSelector: {{androidAccessibility: {{resourceIdRegex: "com.example.fakeshop:id/email"}}}}}}
        - inputText: {{text: "{{{{email}}}}"}}
        - tapOnElementBySelector: {{nodeSelector: {{androidAccessibility: {{resourceIdRegex: "com.example.fakeshop:id/password"}}}}}}
        - inputTextRandom: {{variable: password, prefix: pw-}}
  - parallel:
      - step: Bob opens the page with the password from the phone
        actor: bob
        recording:
          web:
            - web_navigate: {{url: '{url}/echo?v={{{{password}}}}'}}
            - web_verifyTextVisible: {{text: "got pw-"}}
            - web_wait: {{seconds: 1}}
      - verify: Alice still sees the sign-in button
        actor: alice
        recording:
          android:
            - assertVisibleBySelector: {{nodeSelector: {{androidAccessibility: {{textRegex: "Sign in"}}}}}}
"""


@pytest.fixture
def echo() -> Iterator[tuple[str, list[str]]]:
    """A loopback page that shows the ``v`` it was given (``got VALUE``), and the values it saw."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            value = parse_qs(urlparse(self.path).query).get("v", ["?"])[0]
            seen.append(value)
            data = f"<!doctype html><p>got {value}</p>".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def test_a_phone_and_a_browser_in_one_trail(appium_env: tuple[str, dict[str, str]], fake_workspace: Any,
                                            tmp_path: Path, echo: tuple[str, list[str]]) -> None:
    binary, env = appium_env
    url, seen = echo
    ws = fake_workspace(tmp_path / "ws", None)
    trail = ws / "trails" / "mixed.trail.yaml"
    trail.write_text(TRAIL.format(url=url), encoding="utf-8")
    run = CliProcess(["run", str(trail), "-d", "alice=android/emulator-5554", "-d", "bob=web", "--output-dir", str(ws / "out")],
                     cwd=ws, env={**env, "TRAILBLAZE_APPIUM_BIN": binary})
    run.wait_until(lambda: seen)  # the browser is on the page: Appium and Chromium are both up now
    during = run.children()
    code, output = run.finish()
    assert code == 0, output
    assert any("--address 127.0.0.1" in cmd for _pid, cmd in during), during  # the managed Appium server
    assert any("chrom" in cmd for _pid, cmd in during), during
    assert seen[0].startswith("pw-") and len(seen[0]) > 3  # typed on the phone, read by the browser
    assert "[bob]" in output and "[alice]" in output
    summary = next((ws / "out" / "reports").glob("trailblaze_test_results_*.json"))
    result = json.loads(summary.read_text(encoding="utf-8"))["results"][0]
    assert sorted((a["name"], a["platform"]) for a in result["actors"]) == [("alice", "ANDROID"), ("bob", "WEB")]
    assert run.children_left() == []
