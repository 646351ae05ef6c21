"""The session options are declared once: every entry point's flags come from ``SESSION_OPTIONS``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from trailblaze.cli import BUILTIN_COMMANDS, cli
from trailblaze.commands.session_options import (
    COMMANDS,
    SESSION_OPTIONS,
    SessionClickOption,
    pytest_session_values,
    session_values,
)
from trailblaze.errors import BadInputError

TABLE_FLAGS = {flag.split("/")[0] for row in SESSION_OPTIONS for flag in row.flags}


def _command(name: str) -> click.Command:
    """The command ``name`` (for ``session``, the ``session start`` subcommand: it opens the session)."""
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    if isinstance(command, click.Group) and "start" in command.commands:
        return command.commands["start"]
    return command


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_session_commands_options_are_the_tables_rows(name: str) -> None:
    params = _command(name).params
    from_table = {p.session_option.field for p in params if isinstance(p, SessionClickOption)}
    expected = {row.for_command(name).field for row in SESSION_OPTIONS if name in row.commands}
    assert from_table == expected
    # No command declares a session flag of its own beside the table's.
    own = {opt for p in params if not isinstance(p, SessionClickOption) for opt in p.opts}
    assert own & TABLE_FLAGS == set()


def test_the_table_is_used_by_exactly_the_session_commands() -> None:
    users = {name for name in BUILTIN_COMMANDS if any(isinstance(p, SessionClickOption) for p in _command(name).params)}
    assert users == COMMANDS
    assert all(row.commands <= COMMANDS for row in SESSION_OPTIONS)


def test_the_pytest_plugins_session_flags_are_generated_from_the_table(tmp_path: Path) -> None:
    shown = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--help"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout
    declared = set(re.findall(r"^\s+(--trail[\w-]+)", shown, re.MULTILINE))
    generated = {flag for row in SESSION_OPTIONS for flag in row.pytest_flags}
    # --trails chooses which tests run; --trailblaze-relative-paths how they are named: neither opens a session.
    assert declared == generated | {"--trails", "--trailblaze-relative-paths"}
    assert {"--trailblaze-self-heal", "--trailblaze-no-self-heal"} <= generated  # a switch goes both ways
    assert {"--trailblaze-shard", "--trailblaze-durations"} <= generated  # shared with `run --shard/--durations`
    assert {"--trailblaze-headed", "--trailblaze-memory", "--trailblaze-secret"} <= generated


def test_values_parse_the_same_from_the_cli_and_from_pytest() -> None:
    cli_params = {"driver": "playwright-native", "devices": ("web,web/second",), "driver_options": ("a.b=2",),
                  "headed": True, "memory": ("k=v",), "secrets": ("pw=s3",), "secret_env": (), "secrets_files": (),
                  "args": ("n=1",),
                  "output_dir": "out", "llm": None, "max_llm_calls": None, "self_heal": None, "no_heal_check": True, "no_logging": True,
                  "retries": 2, "fail_on_flaky": True, "results_db": "h.db", "no_history": False,
                  "max_llm_cost": 0.5, "shard": "2/3", "durations": None, "junit_xml": None,
                  "endpoints": ("ws://a,ws://b",), "args_file": "a.yaml", "use_recorded_steps": False,
                  "no_save_recording": True, "no_report": False, "log_layout": "files", "test_name": "t",
                  "headless": None, "verbose": False, "no_daemon": False, "llm_provider": None, "llm_model": None,
                  "capture_video": None, "capture_network": None, "capture_logcat": None, "capture_ios_logs": None,
                  "capture_all": False, "unified_recordings": None, "markdown": False, "all_devices": True}
    from_cli = session_values("run", dict(cli_params))
    assert from_cli == {"driver": "playwright-native", "devices": ["web", "web/second"],
                        "driver_options": {"a": {"b": 2}}, "headed": True, "memory": {"k": "v"},
                        "secrets": {"pw": "s3"}, "args": {"n": "1"}, "output_dir": Path("out"), "llm": None,
                        "max_llm_calls": None, "self_heal": None, "heal_check": False, "logging": False, "retries": 2,
                        "fail_on_flaky": True, "results_db": Path("h.db"), "history": True, "max_llm_cost": 0.5,
                        "shard": "2/3", "durations": None, "junit_xml": None, "endpoints": ["ws://a", "ws://b"],
                        "args_file": Path("a.yaml"), "use_recorded_steps": False, "save_recording": False,
                        "report": True, "log_layout": "files", "test_name": "t", "markdown": False,
                        "all_devices": True}
    pytest_raw = {"trailblaze_driver": "playwright-native", "trailblaze_device": ["web,web/second"],
                  "trailblaze_option": ["a.b=2"], "trailblaze_headed": True, "trailblaze_memory": ["k=v"],
                  "trailblaze_secret": ["pw=s3"], "trailblaze_secret_env": [], "trailblaze_secrets_file": [],
                  "trailblaze_arg": ["n=1"], "trailblaze_output_dir": "out",
                  "trailblaze_llm": None, "trailblaze_self_heal": None, "trailblaze_no_heal_check": True,
                  "trailblaze_retries": "2",
                  "trailblaze_fail_on_flaky": True, "trailblaze_results_db": "h.db", "trailblaze_no_history": False,
                  "trailblaze_max_llm_cost": "0.5", "trailblaze_shard": "2/3", "trailblaze_durations": None,
                  "trailblaze_junit_xml": None, "trailblaze_endpoint": ["ws://a,ws://b"],
                  "trailblaze_max_llm_calls": None, "trailblaze_no_logging": True,
                  "trailblaze_args_file": "a.yaml", "trailblaze_use_recorded_steps": False,
                  "trailblaze_no_save_recording": True, "trailblaze_no_report": False,
                  "trailblaze_log_layout": "files", "trailblaze_test_name": "t"}
    from_pytest = pytest_session_values(pytest_raw.__getitem__)
    assert from_pytest == {k: v for k, v in from_cli.items() if k in from_pytest}
    with pytest.raises(BadInputError, match="--trailblaze-secret expects KEY=VALUE"):
        pytest_session_values({**pytest_raw, "trailblaze_secret": ["oops"]}.__getitem__)
    with pytest.raises(BadInputError, match="--trailblaze-retries must be 0 or more, got -1"):
        pytest_session_values({**pytest_raw, "trailblaze_retries": "-1"}.__getitem__)


def test_snapshot_reads_one_device() -> None:
    values = session_values("snapshot", {"driver": None, "device": "android/emulator-5554", "driver_options": (),
                                         "headed": False, "workspace": None, "memory": (), "secrets": (),
                                         "secret_env": (), "secrets_files": (), "setup": ()})
    assert values["device"] == "android/emulator-5554" and "devices" not in values
