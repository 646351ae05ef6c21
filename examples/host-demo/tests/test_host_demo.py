"""The host demo works: its YAML tools load cleanly, pass the strict checks, run through the dispatcher, and
`trailblaze run` replays both trails on the host driver (in a copy of the example, so nothing is written
into the repository)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import trailblaze_yaml_tools.plugin as yaml_plugin
from trailblaze.checks import CheckReport
from trailblaze.config import load_workspace
from trailblaze.plugins import PluginHost
from trailblaze.session import SessionOutcome
from trailblaze.testing import installed_host, make_session, new_host, run_cli
from trailblaze.tools.base import ToolCall
from trailblaze.tools.registry import ToolRegistry

EXAMPLE = Path(__file__).resolve().parents[1]


@pytest.fixture
def host() -> Iterator[PluginHost]:
    h = new_host()
    h.register(yaml_plugin, "yaml_tools")
    with installed_host(h):
        yield h


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    copy = tmp_path / "host-demo"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("tests", "logs", "notes-out", "__pycache__"))
    return copy


def test_tools_load_and_pass_strict_checks(host: PluginHost, workspace: Path) -> None:
    config = load_workspace(workspace, host)
    registry = ToolRegistry()
    host.register_tools(registry, config)
    assert {"notes_reset", "notes_save", "notes_verifyNote", "notes_remember"} <= set(registry.names())
    report = CheckReport(strict=True)
    host.check_tools(registry, report, config)
    assert report.findings == []


def test_the_notes_target_offers_its_tools_and_toolset(host: PluginHost, workspace: Path) -> None:
    result = run_cli(["tools", "--target", "notes", "--driver", "host", "--workspace", str(workspace)], host=host)
    assert result.exit_code == 0, result.output
    names = [line.split()[0] for line in result.stdout.splitlines() if line and not line.startswith(" ")]
    assert names == ["dumpMemory", "notes_remember", "notes_reset", "notes_save", "notes_verifyNote", "wait"]


def test_tools_run_through_the_dispatcher(host: PluginHost, workspace: Path) -> None:
    config = load_workspace(workspace, host)
    session = make_session(host, root=workspace, workspace=config, memory={"user": "ada"})
    try:
        ctx = session.context()
        for call in (ToolCall("notes_reset", {}), ToolCall("notes_save", {"name": "n1", "text": "it's 5 $HOME"}),
                     ToolCall("notes_verifyNote", {"name": "n1", "expected": "{{lastNote}}"}),
                     ToolCall("notes_remember", {"key": "who", "value": "{{user}}"})):
            result = session.dispatcher.call(call, ctx)
            assert result.success, f"{call.name}: {result.message}"
        assert (workspace / "notes-out" / "n1.txt").read_text() == "it's 5 $HOME\n"
        assert session.memory.get("who") == "ada"
        failed = session.dispatcher.call(ToolCall("notes_verifyNote", {"name": "n1", "expected": "other"}), ctx)
        assert not failed.success and "exited with 1, expected 0" in (failed.message or "")
    finally:
        host.session_finished(session, SessionOutcome.SUCCEEDED)
        session.log.close()


def test_trailblaze_run_replays_both_trails(host: PluginHost, workspace: Path) -> None:
    result = run_cli(["run", "trails", "--no-report"], host=host, cwd=workspace)
    assert result.exit_code == 0, result.output
    assert "2 passed, 0 failed" in result.output
    # trails run in name order: memory.trail.yaml, then notes.trail.yaml, whose trailhead reset the notes
    assert [p.name for p in (workspace / "notes-out").iterdir()] == ["shopping.txt"]
    assert (workspace / "notes-out" / "shopping.txt").read_text() == "buy milk\n"
