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


FLOOD_SERVER = """
    import sys

    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolResult, TextContent

    app = MCPServer("flood")


    @app.tool(name="flood", description="Fail with a 7 MB message (one 7 MB stdout line on the wire).")
    async def flood() -> CallToolResult:
        print("flood: " + "e" * 7_000_000, file=sys.stderr, flush=True)
        return CallToolResult(content=[TextContent(type="text", text="x" * 7_000_000)], is_error=True)


    if __name__ == "__main__":
        app.run()
"""


def test_a_tool_servers_7_mb_line_is_cut_on_the_console_and_in_the_event_log(host: Any, workspace: Any,
                                                                           procs: Any) -> None:
    from trailblaze.untrusted import MAX_OUTPUT_CHARS

    trail = "trail:\n  - step: Flood\n    recording:\n      host:\n        - flood: {}\n"
    root = workspace("mcpServers:\n  - script: ../../flood.py\n",
                     files={"flood.py": FLOOD_SERVER, "trails/flood.trail.yaml": trail})
    result = run_cli(["run", str(root / "trails"), "--output-dir", str(root / "logs"), "--no-report"], host=host)
    assert result.exit_code == 1, result.output[:2000]
    assert "x" * 1000 in result.output and "[truncated: " in result.output
    longest = max(len(line) for line in result.output.splitlines())
    assert longest < MAX_OUTPUT_CHARS + 200, "each console line quotes the tool server's line cut, as files are"
    assert len(result.output) < 4 * MAX_OUTPUT_CHARS
    [log] = (root / "logs").glob("*/session.ndjson")
    assert log.stat().st_size < 3 * 1024 * 1024 and "x" * 7_000_000 not in log.read_text(encoding="utf-8")
