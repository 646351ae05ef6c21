"""Text from outside that is not valid Unicode — a page's lone UTF-16 surrogate (``'Hi 😀'.slice(0, 4)``),
a program's bytes that are not UTF-8 — never takes down a run, a report or a server.

Each case is played as it was reported, with real processes: a real Chromium page through
``trailblaze run`` (the later trail still runs; summary and JUnit are complete), through stdio and
Streamable HTTP ``trailblaze mcp`` (``snapshot`` answers and the server lives on), and through pytest
(the HTML report is written); ``exec`` of a program that prints bytes that are not UTF-8.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from junitparser import JUnitXml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import TRAILBLAZE, http_server, http_session, server_env, text_of  # noqa: E402

pytestmark = [pytest.mark.browser]

# The page's button and title hold 'Hi ' + a lone high surrogate; the console gets one too.
PAGE = ("data:text/html;charset=utf-8,<title>T</title><button id=b>x</button><script>"
        "const s = 'Hi \\uD83D\\uDE00'.slice(0, 4); document.getElementById('b').textContent = s; "
        "document.title = s; console.log(s)</script>")

SURROGATE_TRAIL = f"""\
config:
  id: untrusted/surrogate
  devices: {{web: PLAYWRIGHT_NATIVE}}
trail:
  - step: Open a page whose text holds a lone surrogate
    recording:
      web:
        - web_navigate: {{url: {json.dumps(PAGE)}}}
  - verify: The page says something it does not say (the failure quotes the page)
    recording:
      web:
        - web_verifyTextVisible: {{text: "nowhere on the page"}}
"""

LATER_TRAIL = """\
config:
  id: untrusted/later
  devices: {web: PLAYWRIGHT_NATIVE}
trail:
  - step: Open a plain page
    recording:
      web:
        - web_navigate: {url: "data:text/html,<p>still running</p>"}
  - verify: It shows its text
    recording:
      web:
        - web_verifyTextVisible: {text: "still running"}
"""

EXEC_TRAIL = """\
config: {id: untrusted/exec}
trail:
  - step: A program prints bytes that are not UTF-8 and succeeds
    recording:
      host:
        - exec: {argv: [sh, -c, "printf 'caf\\\\351 \\\\377\\\\376 ok'"]}
  - step: The same output with a failing exit code fails the step, quoting the output
    recording:
      host:
        - exec: {argv: [sh, -c, "printf 'bad \\\\377'; exit 4"]}
"""


def workspace(root: Path, trails: dict[str, str]) -> Path:
    (root / "trails" / "config").mkdir(parents=True)
    config = root / "trails" / "config" / "trailblaze.yaml"
    config.write_text("drivers:\n  playwright-native:\n    timeout_ms: 1500\n")
    for name, text in trails.items():
        (root / "trails" / name).write_text(text)
    return root


def test_run_survives_a_lone_surrogate_and_reports_every_trail(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a.trail.yaml": SURROGATE_TRAIL, "b.trail.yaml": LATER_TRAIL})
    ran = subprocess.run([str(TRAILBLAZE), "run", "trails", "--output-dir", "out", "--junit-xml",
                          "out/junit.xml"], cwd=ws, capture_output=True, env=server_env(), timeout=300,
                         check=False)
    # Strict decoding: the output is valid UTF-8.
    stdout, stderr = ran.stdout.decode("utf-8"), ran.stderr.decode("utf-8")
    assert ran.returncode == 1, stdout + stderr
    assert "internal error" not in stdout + stderr
    assert "Results: 1 passed, 1 failed, 0 skipped" in stdout
    assert 'the page shows: "Hi \ufffd"' in stdout

    summary = json.loads(next((ws / "out" / "reports").glob("trailblaze_test_results_*.json")).read_bytes())
    text = json.dumps(summary)
    assert "untrusted/surrogate" in text and "untrusted/later" in text
    report = next((ws / "out" / "reports").glob("trailblaze_report_*.html")).read_bytes().decode("utf-8")
    assert "untrusted/surrogate" in report and "untrusted/later" in report

    cases = {case.name: case for suite in JUnitXml.fromfile(str(ws / "out" / "junit.xml")) for case in suite}
    assert len(cases) == 2, list(cases)
    outcomes = sorted("passed" if case.is_passed else "failed" for case in cases.values())
    assert outcomes == ["failed", "passed"]
    # The session log holds the page's console line, valid Unicode.
    logs = [p.read_bytes().decode("utf-8") for p in (ws / "out").rglob("session.ndjson")]
    assert any("Hi \\ufffd" in log or "Hi \ufffd" in log for log in logs)


def test_exec_output_that_is_not_utf8_is_judged_by_the_exit_code(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"exec.trail.yaml": EXEC_TRAIL})
    ran = subprocess.run([str(TRAILBLAZE), "run", "trails", "--output-dir", "out"], cwd=ws,
                         capture_output=True,
                         env=server_env(), timeout=120, check=False)
    stdout = ran.stdout.decode("utf-8")
    assert ran.returncode == 1, stdout + ran.stderr.decode()
    assert "UnicodeDecodeError" not in stdout
    assert "✓ step 1" in stdout
    assert "exited with 4, expected 0:\n" in stdout and "bad \ufffd" in stdout


def _mcp_flow_checks(snapshot: str, after: str) -> None:
    assert "Hi \ufffd" in snapshot, snapshot
    assert "still here" in after, after


async def _surrogate_flow(session: ClientSession) -> tuple[str, str]:
    connected = await session.call_tool("device", {"action": "WEB"})
    assert not connected.is_error, text_of(connected)
    navigated = await session.call_tool("web_navigate", {"url": PAGE})
    assert not navigated.is_error, text_of(navigated)
    snapshot = text_of(await session.call_tool("snapshot", {}))
    # The server is still alive and answers the next call.
    await session.call_tool("web_navigate", {"url": "data:text/html,<p>still here</p>"})
    after = text_of(await session.call_tool("snapshot", {}))
    return snapshot, after


def test_stdio_mcp_snapshot_of_a_lone_surrogate_answers(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {})
    params = StdioServerParameters(command=str(TRAILBLAZE), args=["mcp", "--output-dir", str(ws / "logs")],
                                   cwd=str(ws), env=server_env())

    async def main() -> tuple[str, str]:
        with open(ws / "server.stderr", "w") as err:
            async with stdio_client(params, errlog=err) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=120) as session:
                    await session.initialize()
                    return await _surrogate_flow(session)

    _mcp_flow_checks(*anyio.run(main))
    assert "Traceback" not in (ws / "server.stderr").read_text()


def test_http_mcp_snapshot_of_a_lone_surrogate_answers(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {})
    with http_server(ws, tmp_path / "token.json") as (proc, info):

        async def main() -> tuple[str, str]:
            async with http_session(info) as session:
                return await _surrogate_flow(session)

        _mcp_flow_checks(*anyio.run(main))
    assert proc.returncode == 0, (ws / "server.stderr").read_text()


def test_pytest_html_report_with_a_lone_surrogate(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a.trail.yaml": SURROGATE_TRAIL, "b.trail.yaml": LATER_TRAIL})
    env: dict[str, Any] = {k: v for k, v in server_env().items() if k != "PYTEST_ADDOPTS"}
    ran = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--trails",
                          "trails", "--trailblaze-output-dir", "out"], cwd=ws, capture_output=True, env=env,
                         timeout=300, check=False)
    stdout = ran.stdout.decode("utf-8")
    assert ran.returncode == 1, stdout + ran.stderr.decode()
    assert "1 failed, 1 passed" in stdout
    reports = list((ws / "out").rglob("trailblaze_report_*.html"))
    assert len(reports) == 1 and reports[0].stat().st_size > 0, reports
    html = reports[0].read_bytes().decode("utf-8")
    assert "untrusted/surrogate" in html and "untrusted/later" in html
    assert os.path.getsize(next((ws / "out").rglob("trailblaze_test_results_*.json"))) > 0


ESC_PAGE = ("data:text/html,<p id=p>x</p><script>"
            "const e = String.fromCharCode(27), b = String.fromCharCode(7); "
            "document.getElementById('p').textContent = e + ']0;owned' + b + e + '[2Jcleared'; "
            "document.title = e + ']0;title' + b</script>")

ESC_TRAIL = f"""\
config:
  id: untrusted/escapes
  devices: {{web: PLAYWRIGHT_NATIVE}}
trail:
  - step: Open a page whose text and title hold terminal escape sequences
    recording:
      web:
        - web_navigate: {{url: {json.dumps(ESC_PAGE)}}}
  - verify: The failure quotes the page
    recording:
      web:
        - web_verifyTextVisible: {{text: "nowhere on the page"}}
"""


def test_escape_sequences_from_file_names_and_pages_never_reach_the_terminal(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"esc\x1b[31mred\x07.trail.yaml": ESC_TRAIL})
    ran = subprocess.run([str(TRAILBLAZE), "run", "trails", "--output-dir", "out"], cwd=ws,
                         capture_output=True,
                         env=server_env(), timeout=300, check=False)
    shown = ran.stdout + ran.stderr
    assert ran.returncode == 1, shown.decode(errors="replace")
    assert b"\x1b" not in shown and b"\x07" not in shown
    assert b"esc\\x1b[31mred\\x07.trail.yaml" in shown  # shown, escaped
    assert b"]0;owned" in shown

    snap = subprocess.run([str(TRAILBLAZE), "snapshot", "--driver", "playwright-native", "--url", ESC_PAGE],
                          cwd=ws, capture_output=True,
                          env=server_env(), timeout=300, check=False)
    assert snap.returncode == 0, (snap.stdout + snap.stderr).decode(errors="replace")
    assert b"\x1b" not in snap.stdout + snap.stderr and b"\\x1b]0;owned\\x07" in snap.stdout
