"""The callback endpoint against a hostile local process (issue 17 item 1).

While a real tool call runs, a *separate process* (any local user can reach a loopback port) tries to
run ``exec`` through ``/scripting/callback``: without ids, with the live invocation id but no token,
with a wrong token, with a wrong session id. Every attempt is refused with a message that carries no
invocation id and no session id, and ``exec`` never runs. The tool server itself, holding the token,
may not run a host-only tool either unless its declaration says ``allowHostCallbacks``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

from trailblaze.tools.base import ToolCall, ToolResult

ATTACKER = textwrap.dedent("""
    import json, sys, urllib.error, urllib.request
    ids = json.loads(open(sys.argv[1]).read())
    marker = sys.argv[2]
    url = ids["baseUrl"] + "/scripting/callback"
    action = {"type": "call_tool", "tool_name": "exec",
              "arguments_json": json.dumps({"argv": [sys.executable, "-c", f"open({marker!r}, 'w').write('pwned')"]})}
    attempts = {
        "no ids": {"version": 1, "action": action},
        "id, no token": {"version": 1, "invocation_id": ids["invocationId"], "action": action},
        "id, session, no token": {"version": 1, "invocation_id": ids["invocationId"], "session_id": ids["sessionId"],
                                  "action": action},
        "wrong token": {"version": 1, "invocation_id": ids["invocationId"], "callback_token": "A" * 43,
                        "action": action},
        "wrong session": {"version": 1, "invocation_id": ids["invocationId"], "session_id": "someone-else",
                          "callback_token": "guess", "action": action},
        "token, no id": {"version": 1, "callback_token": "guess", "action": action},
        "camelCase id": {"version": 1, "invocationId": ids["invocationId"], "callbackToken": "", "action": action},
    }
    out = {}
    for label, body in attempts.items():
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(req, timeout=30) as resp:
                out[label] = [resp.status, resp.read().decode()]
        except urllib.error.HTTPError as exc:
            out[label] = [exc.code, exc.read().decode()]
    print(json.dumps(out))
""")


def _start_blocking_call(session: Any, tmp: Path, tool: str, arguments: dict[str, Any]) -> tuple[threading.Thread, dict[str, Any]]:
    box: dict[str, Any] = {}

    def run() -> None:
        box["result"] = session.dispatcher.call(
            ToolCall("py_block", {"directory": str(tmp), "tool": tool, "arguments": json.dumps(arguments)}),
            session.context())

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    deadline = time.monotonic() + 60  # a bound for a loaded machine, not a timing assertion
    while not (tmp / "ids.json").exists():
        assert worker.is_alive() and time.monotonic() < deadline, box
        time.sleep(0.02)
    return worker, box


def _finish(worker: threading.Thread, box: dict[str, Any], tmp: Path) -> ToolResult:
    (tmp / "release").write_text("go")
    worker.join(60)
    result: ToolResult = box["result"]
    return result


def test_a_second_local_process_cannot_call_back(workspace: Any, sessions: Any, tmp_path: Path) -> None:
    session = sessions.start(workspace("""
        mcpServers:
          - script: {servers}/py_tools.py
    """), session_id="victim-session")
    marker = tmp_path / "pwned.txt"
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    worker, box = _start_blocking_call(session, exchange, "dumpMemory", {})
    try:
        ids = json.loads((exchange / "ids.json").read_text())
        script = tmp_path / "attacker.py"
        script.write_text(ATTACKER)
        attacker = subprocess.run([sys.executable, str(script), str(exchange / "ids.json"), str(marker)],
                                  capture_output=True, text=True, timeout=120, check=False)
        assert attacker.returncode == 0, attacker.stderr
        answers = json.loads(attacker.stdout)
    finally:
        legit = _finish(worker, box, exchange)
    assert set(answers) == {"no ids", "id, no token", "id, session, no token", "wrong token", "wrong session",
                            "token, no id", "camelCase id"}
    for label, (status, text) in answers.items():
        body = json.loads(text)
        assert status == 200 and body["result"]["type"] == "error", (label, text)
        assert body["result"]["message"].startswith("callback refused"), (label, text)
        assert body["error"]["code"] == -32602, (label, text)
        assert ids["invocationId"] not in text and ids["sessionId"] not in text, (label, text)
        assert "victim-session" not in text and "inv-" not in text, (label, text)
    # an unknown id, a wrong token and a finished call get the very same answer: probing learns nothing
    assert json.loads(answers["wrong token"][1]) == json.loads(answers["wrong session"][1])
    assert not marker.exists(), "exec ran for the attacker"
    assert "exec" not in [e.authored.name for e in session.executed]
    # the legitimate callback of the same call (it holds the token) still works
    assert legit.success and json.loads(legit.message) == {"success": True, "text": "(memory is empty)", "error": ""}


def test_the_token_dies_with_its_call(workspace: Any, sessions: Any, post_json: Any) -> None:
    """Replaying a captured request (id and token) after the call ended is refused like a stranger's."""
    session = sessions.start(workspace("""
        mcpServers:
          - script: {servers}/py_tools.py
    """))
    meta = json.loads(session.dispatcher.call(ToolCall("py_context", {}), session.context()).message)["meta"]
    tb = meta["trailblaze"]
    assert len(tb["callbackToken"]) >= 40  # 32 random bytes, url-safe base64
    body = {"version": 1, "invocation_id": tb["invocationId"], "callback_token": tb["callbackToken"],
            "session_id": tb["sessionId"], "action": {"type": "call_tool", "tool_name": "dumpMemory"}}
    status, answer = post_json(tb["baseUrl"] + "/scripting/callback", json.dumps(body).encode())
    assert status == 200 and answer["result"]["message"].startswith("callback refused: no running tool call")
    assert tb["invocationId"] not in json.dumps(answer) and tb["sessionId"] not in json.dumps(answer)
    second = json.loads(session.dispatcher.call(ToolCall("py_context", {}), session.context()).message)
    assert second["meta"]["trailblaze"]["callbackToken"] != tb["callbackToken"]  # one secret per invocation


def test_exec_over_a_callback_is_refused_unless_declared(workspace: Any, sessions: Any, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    args = {"argv": [sys.executable, "-c", f"open({str(marker)!r}, 'w').write('ran')"]}
    exchange = tmp_path / "x1"
    exchange.mkdir()
    session = sessions.start(workspace("""
        mcpServers:
          - script: {servers}/py_tools.py
    """, root=tmp_path / "undeclared"))
    worker, box = _start_blocking_call(session, exchange, "exec", args)
    refused = json.loads(_finish(worker, box, exchange).message)
    assert refused["refused"] == ("callback refused: 'exec' runs on the host (requiresHost) and tool servers may "
                                  "not call it back unless their declaration allows it (allowHostCallbacks: [exec])")
    assert not marker.exists()
    sessions.finish(session)

    exchange = tmp_path / "x2"
    exchange.mkdir()
    session = sessions.start(workspace("""
        mcpServers:
          - script: {servers}/py_tools.py
            allowHostCallbacks: [exec]
    """, root=tmp_path / "declared"), session_id="declared")
    worker, box = _start_blocking_call(session, exchange, "exec", args)
    allowed = json.loads(_finish(worker, box, exchange).message)
    assert allowed["success"] is True, allowed
    assert marker.read_text() == "ran"
