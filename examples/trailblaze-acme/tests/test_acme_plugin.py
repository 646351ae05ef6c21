"""The acme plugin tested the way a third party would: with ``trailblaze.testing`` only."""

from __future__ import annotations

from pathlib import Path

import pytest

import trailblaze_acme.plugin as acme_plugin
from trailblaze import PluginHost, ToolArgumentError, ToolCall
from trailblaze.testing import make_session, register_plugin, run_cli

pytest_plugins = ["trailblaze.testing"]

TRAILS = Path(__file__).resolve().parents[1] / "trails"


def test_greet_runs_through_the_dispatcher(plugin_host: PluginHost, tmp_path: Path) -> None:
    with register_plugin(plugin_host, acme_plugin, "acme"):
        session = make_session(plugin_host, root=tmp_path)
        result = session.dispatcher.call(ToolCall("acme_greet", {"person": "Ada"}), session.context())
        session.log.close()
    assert result.success and result.message == "Hello, Ada!"
    assert session.memory.get("greeting") == "Hello, Ada!"
    definition = session.registry.get("acme_greet")
    assert definition is not None and definition.source.plugin == "acme"


def test_greet_rejects_unknown_and_missing_arguments(plugin_host: PluginHost, tmp_path: Path) -> None:
    with register_plugin(plugin_host, acme_plugin, "acme"):
        session = make_session(plugin_host, root=tmp_path)
        with pytest.raises(ToolArgumentError, match="missing required argument 'person'"):
            session.dispatcher.call(ToolCall("acme_greet", {}), session.context())
        with pytest.raises(ToolArgumentError, match="unknown argument 'colour'"):
            session.dispatcher.call(ToolCall("acme_greet", {"person": "Ada", "colour": "red"}), session.context())
        session.log.close()


def test_trail_replays_with_trailblaze_run(plugin_host: PluginHost, tmp_path: Path) -> None:
    with register_plugin(plugin_host, acme_plugin, "acme"):
        result = run_cli(["run", str(TRAILS), "--arg", "person=Grace", "--output-dir", str(tmp_path / "out")],
                         host=plugin_host)
    assert result.exit_code == 0, result.output
    assert "Results: 1 passed, 0 failed, 0 skipped" in result.output


def test_failed_verification_exits_1(plugin_host: PluginHost, tmp_path: Path) -> None:
    trail = tmp_path / "wrong.trail.yaml"
    trail.write_text(
        "trail:\n"
        "  - step: greet\n    recording:\n      host:\n        - acme_greet: {person: Ada}\n"
        "  - verify: wrong greeting\n    recording:\n      host:\n        - acme_verifyGreeting: {expected: Hi}\n")
    with register_plugin(plugin_host, acme_plugin, "acme"):
        result = run_cli(["run", str(trail), "--output-dir", str(tmp_path / "out")], host=plugin_host)
    assert result.exit_code == 1, result.output
    assert "expected greeting 'Hi', got 'Hello, Ada!'" in result.output
