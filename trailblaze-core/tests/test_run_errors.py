"""Bad input ends one trail with one readable line (file:line:column, key), exit 3, no traceback,
while the other trails of the run still run (a broken tool file stops them all: no device starts)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trailblaze.testing import run_cli

GOOD = """\
config:
  id: good
trail:
  - step: wait a moment
    recording:
      host:
        - wait: {timeToWaitInSeconds: 0}
"""

CASES = {
    "wrong_key": ("""\
trail:
  - step: wait
    recordin:
      host:
        - wait: {}
""", r"wrong_key\.trail\.yaml:3:5: .*recordin"),
    "bad_indent": ("""\
trail:
  - step: wait
    recording:
      host:
      - wait: {}
     - dumpMemory: {}
""", r"bad_indent\.trail\.yaml:\d+:\d+: .*invalid YAML"),
    "unknown_tool": ("""\
trail:
  - step: wait
    recording:
      host:
        - wait: {}
        - waitt: {}
""", r"unknown_tool\.trail\.yaml:6:11: .*unknown tool 'waitt'.*did you mean 'wait'"),
    "missing_arg": ("""\
trail:
  - step: run something
    recording:
      host:
        - exec: {workingDir: .}
""", r"missing_arg\.trail\.yaml:5:11: .*tool 'exec': missing required argument 'argv'"),
    "wrong_type": ("""\
trail:
  - step: wait
    recording:
      host:
        - wait: {timeToWaitInSeconds: soon}
""", r"wrong_type\.trail\.yaml:5:11: .*tool 'wait': argument 'timeToWaitInSeconds'"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_trail_fails_alone_with_a_located_one_line_error(name: str, tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    text, pattern = CASES[name]
    (tmp_path / "a_good.trail.yaml").write_text(GOOD)
    (tmp_path / f"{name}.trail.yaml").write_text(text)
    (tmp_path / "z_good.trail.yaml").write_text(GOOD.replace("id: good", "id: good2"))
    result = run_cli(["run", str(tmp_path), "--output-dir", str(tmp_path / "out")], host=plugin_host)
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.output
    assert re.search(pattern, result.output), result.output
    assert "Results: 2 passed, 1 failed, 0 skipped" in result.output


def test_worst_exit_code_wins_across_trails(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "fails.trail.yaml").write_text("""\
trail:
  - step: fail
    recording:
      host:
        - exec: {argv: ["false"]}
""")
    (tmp_path / "bad.trail.yaml").write_text("trail:\n  - stepp: x\n")
    result = run_cli(["run", str(tmp_path), "--output-dir", str(tmp_path / "out")], host=plugin_host)
    assert result.exit_code == 3  # 3 (bad input) outranks 1 (failed)
    only_failed = run_cli(["run", str(tmp_path / "fails.trail.yaml"), "--output-dir", str(tmp_path / "o2")],
                          host=plugin_host)
    assert only_failed.exit_code == 1


def test_unrecorded_step_without_a_model_says_how_to_configure_one(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    trail = tmp_path / "nl.trail.yaml"
    trail.write_text("trail:\n  - step: Open the settings screen\n")
    result = run_cli(["run", str(trail), "--output-dir", str(tmp_path / "out")], host=plugin_host)
    assert result.exit_code == 3, result.output
    assert "needs an LLM" in result.output and "--llm provider/model" in result.output


def test_no_paths_is_a_usage_error(plugin_host) -> None:  # type: ignore[no-untyped-def]
    result = run_cli(["run"], host=plugin_host)
    assert result.exit_code == 3 and "no trails given" in result.output


def test_missing_file_is_bad_input(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    result = run_cli(["run", str(tmp_path / "nope.trail.yaml")], host=plugin_host)
    assert result.exit_code == 3 and "file not found" in result.output


def test_check_errors_stop_the_run_before_any_device_starts(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    from trailblaze import hookimpl
    from trailblaze.errors import SourceLocation
    from trailblaze.testing import register_plugin

    class BrokenToolFile:
        @hookimpl
        def trailblaze_check_tools(self, report):  # type: ignore[no-untyped-def]
            report.error("ToolFile", "'parameters': must be a list", SourceLocation("tools/x.tool.yaml", 4, 3))

    (tmp_path / "ok.trail.yaml").write_text(GOOD)
    with register_plugin(plugin_host, BrokenToolFile(), "broken-tool-file"):
        result = run_cli(["run", str(tmp_path / "ok.trail.yaml"), "--output-dir", str(tmp_path / "out")],
                         host=plugin_host)
    assert result.exit_code == 3, result.output
    assert "tools/x.tool.yaml:4:3: error: [ToolFile] 'parameters': must be a list" in result.output
    assert "not started: the workspace's tool files have 1 error(s)" in result.output
    assert "▶" not in result.output  # docs/yaml-tools.md: `run` refuses to start with broken tool files
    assert "Results: 0 passed, 2 failed, 0 skipped" in result.output

