"""Through the real CLI: `trailblaze run` exit codes for server problems, `trailblaze tools` listing."""

from __future__ import annotations

from typing import Any

from trailblaze.testing import run_cli

TRAIL = """
config:
  id: mcp/echo
trail:
  - step: Echo something
    recording:
      host:
        - py_echo: {text: hello}
"""


def test_run_passes_with_a_tool_server(host: Any, workspace: Any, procs: Any) -> None:
    root = workspace("mcpServers:\n  - script: {servers}/py_tools.py\n", files={"trails/echo.trail.yaml": TRAIL})
    result = run_cli(["run", str(root / "trails"), "--output-dir", str(root / "logs"), "--no-report"], host=host)
    assert result.exit_code == 0, result.output
    assert "Results: 1 passed" in result.output


def test_a_server_that_crashes_at_start_fails_the_run_with_exit_2(host: Any, workspace: Any) -> None:
    root = workspace("mcpServers:\n  - script: {servers}/crash_init.py\n", files={"trails/echo.trail.yaml": TRAIL})
    result = run_cli(["run", str(root / "trails"), "--output-dir", str(root / "logs"), "--no-report"], host=host)
    assert result.exit_code == 2, result.output
    assert "MCP server 'crash_init'" in result.output and "exited with code 7 during initialize" in result.output
    assert "crash_init: giving up" in result.output
    assert "Traceback" not in result.output


def test_a_bad_entry_is_bad_input_with_exit_3(host: Any, workspace: Any) -> None:
    root = workspace("mcpServers:\n  - name: x\n    comand: python\n", files={"trails/echo.trail.yaml": TRAIL})
    result = run_cli(["run", str(root / "trails"), "--output-dir", str(root / "logs"), "--no-report"], host=host)
    assert result.exit_code == 3, result.output
    assert "trailblaze.yaml:3:5: 'mcpServers': MCP server 'x': unknown setting 'comand'" in result.output
    check = run_cli(["check", "--workspace", str(root)], host=host)
    assert check.exit_code == 3 and "unknown setting 'comand'" in check.output


def test_tools_names_each_tools_server(host: Any, workspace: Any, procs: Any) -> None:
    root = workspace("mcpServers:\n  - script: {servers}/py_tools.py\n")
    result = run_cli(["tools", "--workspace", str(root), "--search", "py_echo"], host=host)
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith("py_echo  — file ") and first.endswith("py_tools.py, MCP server 'py_tools'")
    assert "Echo a text back" in result.stdout
