"""The device-independent built-in tools: wait, exec, dumpMemory, rememberValue."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from trailblaze import ToolCall
from trailblaze.errors import ToolArgumentError
from trailblaze.testing import make_session


@pytest.fixture
def session(plugin_host, tmp_path: Path):  # type: ignore[no-untyped-def]
    s = make_session(plugin_host, root=tmp_path, secrets={"token": "s3cr3t"}, memory={"user": "ada"})
    yield s
    s.log.close()


def call(session, name: str, **args):  # type: ignore[no-untyped-def]
    return session.dispatcher.call(ToolCall(name, args), session.context())


def test_exec_runs_argv_without_a_shell_in_the_working_dir(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "sub").mkdir()
    result = call(session, "exec", argv=[sys.executable, "-c", "import os; print(os.getcwd())"], workingDir="sub")
    assert result.success and result.message == str(tmp_path / "sub")
    literal = call(session, "exec", argv=["echo", "$HOME", "*"])
    assert literal.message == "$HOME *"  # no shell: nothing expanded


def test_exec_checks_the_exit_code_and_reports_output(session) -> None:  # type: ignore[no-untyped-def]
    ok = call(session, "exec", argv=[sys.executable, "-c", "raise SystemExit(3)"], expectedExitCode=3)
    assert ok.success
    bad = call(session, "exec", argv=[sys.executable, "-c", "print('boom'); raise SystemExit(2)"])
    assert not bad.success and "exited with 2, expected 0" in bad.message and "boom" in bad.message
    missing = call(session, "exec", argv=["definitely-not-a-program-xyz"])
    assert not missing.success and "program not found" in missing.message


def test_exec_timeout_and_output_filter(session) -> None:  # type: ignore[no-untyped-def]
    slow = call(session, "exec", argv=[sys.executable, "-c", "import time; time.sleep(30)"], timeoutSeconds=0.5)
    assert not slow.success and "timed out" in slow.message
    filtered = call(session, "exec", argv=[sys.executable, "-c", "print('a1'); print('b2'); print('a3')"],
                    outputFilterRegex="^a")
    assert filtered.message == "a1\na3"


def test_exec_is_host_only_and_not_offered_to_the_model(session) -> None:  # type: ignore[no-untyped-def]
    d = session.registry.get("exec")
    assert d.requires_host and not d.surface_to_llm and not d.is_recordable
    with pytest.raises(ToolArgumentError, match="argv"):
        call(session, "exec")


def test_dump_memory_never_shows_secrets(session) -> None:  # type: ignore[no-untyped-def]
    call(session, "rememberValue", variable="city", value="Oslo")
    result = call(session, "dumpMemory")
    assert "city = Oslo" in result.message and "user = ada" in result.message
    assert "s3cr3t" not in result.message and "token" not in result.message


def test_wait_accepts_fractions_and_rejects_negative(session) -> None:  # type: ignore[no-untyped-def]
    assert call(session, "wait", timeToWaitInSeconds=0.01).success
    with pytest.raises(ToolArgumentError, match="timeToWaitInSeconds"):
        call(session, "wait", timeToWaitInSeconds=-1)
