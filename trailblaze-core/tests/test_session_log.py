"""The session's event log: one NDJSON stream per session, upstream's file per event on request, and
nothing lost when the runner is killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from trailblaze import Tool, ToolResult, hookimpl
from trailblaze.context import ToolContext
from trailblaze.logs import LAYOUT_ENV, STREAM_FILE, SessionLog, read_log
from trailblaze.memory import Memory, Redactor
from trailblaze.runner import RunOptions
from trailblaze.runner.progress import QuietProgress
from trailblaze.runner.run import Runner
from trailblaze.testing import new_host, run_cli
from trailblaze.tools.registry import ToolRegistry


def _kinds(entries: list[dict[str, object]]) -> list[str]:
    return [str(e["class"]).rsplit(".", 1)[1] for e in entries]


def test_events_are_one_json_object_per_line_in_order_and_redacted(tmp_path: Path) -> None:
    memory = Memory.seeded(secrets={"pw": "hunter2"})
    log = SessionLog(tmp_path / "s", "s", Redactor(memory.secret_values()))
    for i in range(50):
        log.write("TrailblazeToolLog", {"toolName": "t", "n": i, "text": "pw is hunter2\nnext line", "p": tmp_path})
    log.close()
    lines = (tmp_path / "s" / STREAM_FILE).read_text().splitlines()
    assert len(lines) == 50
    entries = [json.loads(line) for line in lines]
    assert [e["n"] for e in entries] == list(range(50))
    assert entries == read_log(tmp_path / "s")
    assert [e["n"] for e in log.entries] == list(range(50)) and entries[0]["p"] == str(tmp_path)
    assert all(e["text"] == "pw is ***\nnext line" and e["session"] == "s" for e in entries)
    assert "hunter2" not in (tmp_path / "s" / STREAM_FILE).read_text()
    assert not list((tmp_path / "s").glob("*.json"))


def test_flush_puts_everything_written_so_far_on_disk(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "s", Redactor())
    log.write("ObjectiveStartLog", {"stepIndex": 0})
    log.write("ObjectiveCompleteLog", {"stepIndex": 0})
    log.flush()
    assert _kinds(read_log(tmp_path)) == ["ObjectiveStartLog", "ObjectiveCompleteLog"]
    log.close()
    log.write("LateLog", {})  # after close: written at once, not dropped
    assert _kinds(read_log(tmp_path))[-1] == "LateLog"


def test_a_torn_last_line_is_skipped_and_the_rest_is_read(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "s", Redactor())
    log.write("ObjectiveStartLog", {"stepIndex": 0})
    log.close()
    with open(tmp_path / STREAM_FILE, "a") as f:
        f.write('{"class": "xyz.Torn", "sess')
    assert _kinds(read_log(tmp_path)) == ["ObjectiveStartLog"]


def test_an_entry_that_cannot_be_encoded_still_leaves_a_line(tmp_path: Path) -> None:
    log = SessionLog(tmp_path, "s", Redactor())
    loop: dict[str, object] = {}
    loop["self"] = loop
    log.write("BadLog", {"value": loop})
    log.write("GoodLog", {})
    log.close()
    entries = read_log(tmp_path)
    assert _kinds(entries) == ["BadLog", "GoodLog"] and "could not be encoded" in entries[0]["logError"]
    assert log.write_errors


def test_upstream_layout_writes_a_pretty_file_per_event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LAYOUT_ENV, "files")
    log = SessionLog(tmp_path, "s", Redactor(["hunter2"]))
    log.write("TrailblazeToolLog", {"text": "hunter2"})
    log.write("ObjectiveCompleteLog", {"stepIndex": 0})
    log.close()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["001_TrailblazeToolLog.json", "002_ObjectiveCompleteLog.json"]
    assert (tmp_path / names[0]).read_text().startswith('{\n  "class"')
    assert read_log(tmp_path) == log.entries and log.entries[0]["text"] == "***"
    with pytest.raises(ValueError, match="log layout"):
        SessionLog(tmp_path, "s", Redactor(), layout="xml")


TRAIL = """\
config:
  id: logs/killed
trail:
  - step: remember three things
    recording:
      host:
        - rememberValue: {variable: a, value: "1"}
        - rememberValue: {variable: b, value: "{{pw}}"}
        - rememberValue: {variable: c, value: "3"}
  - step: hang
    recording:
      host:
        - exec: {argv: [PYTHON, -c, "open('MARKER', 'w').write('x')"]}
        - wait: {timeToWaitInSeconds: 600}
"""


def _run_until_step_two_hangs(tmp_path: Path) -> tuple["subprocess.Popen[bytes]", Path]:
    """Start `trailblaze run` on TRAIL and wait until step 2 runs its `wait`: the background writer has
    then put the `exec` call (no step boundary since step 1) on disk too. Waits for a condition; asserts
    nothing about time."""
    marker = tmp_path / "reached"
    trail = tmp_path / "killed.trail.yaml"
    trail.write_text(TRAIL.replace("PYTHON", json.dumps(sys.executable)).replace("MARKER", str(marker)))
    out = tmp_path / "logs"
    proc = subprocess.Popen([sys.executable, "-c", "from trailblaze.cli import main; main()", "run", str(trail),
                             "--output-dir", str(out), "--secret", "pw=hunter2"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        streams = list(out.glob(f"*/{STREAM_FILE}"))
        if marker.exists() and streams and '"toolName":"exec"' in streams[0].read_text():
            break
        time.sleep(0.05)
    if proc.poll() is not None:
        raise AssertionError(proc.stderr.read().decode() if proc.stderr else "trailblaze run ended early")
    return proc, out


def _stop(proc: "subprocess.Popen[bytes]", sig: int) -> None:
    try:
        os.kill(proc.pid, sig)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()


STEP_ONE_AND_A_HALF = ["TrailblazeSessionStatusChangeLog", "ObjectiveStartLog", "TrailblazeToolLog",
                       "TrailblazeToolLog", "TrailblazeToolLog", "ObjectiveCompleteLog",
                       "ObjectiveStartLog", "TrailblazeToolLog"]


def _whole_lines(out: Path) -> list[dict[str, object]]:
    [stream] = out.glob(f"*/{STREAM_FILE}")
    text = stream.read_text()
    assert text.endswith("\n") and "hunter2" not in text
    return [json.loads(line) for line in text.splitlines()]  # every line is whole


def test_a_run_killed_with_sigkill_keeps_every_flushed_event(tmp_path: Path) -> None:
    proc, out = _run_until_step_two_hangs(tmp_path)
    _stop(proc, signal.SIGKILL)
    entries: list[dict[str, Any]] = _whole_lines(out)  # type: ignore[assignment]
    assert _kinds(entries) == STEP_ONE_AND_A_HALF
    assert entries[0]["sessionStatus"]["status"] == "Started"
    assert [e["trailblazeTool"]["raw"]["variable"] for e in entries[2:5]] == ["a", "b", "c"]
    assert entries[3]["trailblazeTool"]["raw"]["value"] == "***"
    assert entries[5]["successful"] is True and entries[7]["toolName"] == "exec"


def test_ctrl_c_writes_the_rest_and_ends_the_session(tmp_path: Path) -> None:
    proc, out = _run_until_step_two_hangs(tmp_path)
    _stop(proc, signal.SIGINT)
    entries: list[dict[str, Any]] = _whole_lines(out)  # type: ignore[assignment]
    kinds = _kinds(entries)
    assert kinds[:8] == STEP_ONE_AND_A_HALF
    assert entries[-1]["sessionStatus"]["status"] == "Ended.Cancelled"


def test_run_with_the_upstream_layout_flag(tmp_path: Path) -> None:
    trail = tmp_path / "t.trail.yaml"
    trail.write_text("trail:\n  - step: remember\n    recording:\n      host:\n"
                     "        - rememberValue: {variable: a, value: '1'}\n")
    result = run_cli(["run", str(trail), "--output-dir", str(tmp_path / "logs"), "--no-report",
                      "--log-layout", "files"], cwd=tmp_path)
    assert result.exit_code == 0, result.output
    [session] = [p for p in (tmp_path / "logs").iterdir() if p.name != "reports"]
    assert not (session / STREAM_FILE).exists()
    files = sorted(p.name for p in session.glob("*.json"))
    assert files[0] == "001_TrailblazeSessionStatusChangeLog.json" and "003_TrailblazeToolLog.json" in files
    assert _kinds(read_log(session))[:4] == ["TrailblazeSessionStatusChangeLog", "ObjectiveStartLog",
                                             "TrailblazeToolLog", "ObjectiveCompleteLog"]
    assert (session / "recording.trail.yaml").is_file()


class Crash(BaseException):
    """Not an Exception: nothing between the tool and the runner's ``finally`` catches it."""


class CrashTool(Tool):
    """Crashes the run."""

    name = "crashNow"

    def execute(self, ctx: ToolContext) -> ToolResult:
        raise Crash("boom")


class CrashPlugin:
    @hookimpl
    def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
        registry.add_tool(CrashTool)


def test_a_crash_inside_a_step_still_writes_and_syncs_the_session(tmp_path: Path) -> None:
    trail = tmp_path / "crash.trail.yaml"
    trail.write_text("trail:\n  - step: crash\n    recording:\n      host:\n"
                     "        - rememberValue: {variable: a, value: '1'}\n        - crashNow: {}\n")
    host = new_host()
    host.register(CrashPlugin(), "crash")
    runner = Runner(RunOptions(output_dir=tmp_path / "logs", report=False), host=host, progress=QuietProgress())
    with pytest.raises(Crash):
        runner.run([str(trail)])
    [session] = [p for p in (tmp_path / "logs").iterdir() if p.name != "reports"]
    entries = read_log(session)
    assert _kinds(entries) == ["TrailblazeSessionStatusChangeLog", "ObjectiveStartLog", "TrailblazeToolLog",
                               "TrailblazeSessionStatusChangeLog"]
    assert entries[-1]["sessionStatus"]["status"].startswith("Ended.")


def test_a_log_and_a_run_result_cannot_be_built_without_the_runs_redactor(tmp_path: Path) -> None:
    """No empty default: an output built without the run's one redaction point is a type error (mypy
    rejects the call; at run time it raises), not a log that silently leaks a secret."""
    from trailblaze.runner.results import RunResult

    with pytest.raises(TypeError, match="redactor"):
        SessionLog(tmp_path, "s")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="redactor"):
        RunResult()  # type: ignore[call-arg]
