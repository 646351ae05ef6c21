"""Dispatch overhead: 10,000 recorded no-op calls replayed by the runner vs calling the tool directly.

Usage: uv run python benchmarks/bench_dispatch.py [--calls 10000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from trailblaze import Tool, ToolResult, hookimpl
from trailblaze.runner import RunOptions
from trailblaze.runner.progress import QuietProgress
from trailblaze.runner.run import Runner
from trailblaze.testing import new_host


class NoOp(Tool):
    """Does nothing."""

    name = "noop"
    value: int = 0

    def execute(self, ctx):  # type: ignore[no-untyped-def]
        return None


class Plugin:
    @hookimpl
    def trailblaze_register_tools(self, registry):  # type: ignore[no-untyped-def]
        registry.add_tool(NoOp)


def write_trail(path: Path, calls: int, per_step: int = 100) -> None:
    lines = ["config:", "  id: bench/dispatch", "trail:"]
    for s in range(calls // per_step):
        lines += [f"  - step: step {s}", "    recording:", "      memory:"]
        lines += [f"        - noop: {{value: {i}}}" for i in range(per_step)]
    path.write_text("\n".join(lines) + "\n")


def direct(calls: int) -> float:
    session_stub = None
    t0 = time.perf_counter()
    for i in range(calls):
        NoOp(value=i).execute(session_stub)
    return time.perf_counter() - t0


def through_runner(trail: Path, out: Path, *, logging: bool = True) -> float:
    host = new_host()
    host.register(Plugin(), "bench")
    options = RunOptions(driver="in-memory", output_dir=out, report=False, logging=logging)
    runner = Runner(options, host=host, progress=QuietProgress())
    t0 = time.perf_counter()
    result = runner.run([str(trail)])
    total = time.perf_counter() - t0
    assert result.exit_code == 0, result.trails[0].message
    return total


def dispatcher_only(calls: int, root: Path, *, kind_owners: bool = False) -> float:
    """The single dispatch path alone (interpolate, validate, execute, log entry), no parsing or files.

    With ``kind_owners`` the YAML-tools and MCP plugins are registered too, so every call also passes
    their ``trailblaze_execute_tool`` implementations (which answer only for their own kinds)."""
    from trailblaze import ToolCall
    from trailblaze.testing import make_session

    host = new_host()
    host.register(Plugin(), "bench")
    if kind_owners:
        import trailblaze_mcp_subprocess.plugin as mcp_plugin
        import trailblaze_yaml_tools.plugin as yaml_plugin

        host.register(yaml_plugin, "yaml_tools")
        host.register(mcp_plugin, "mcp_subprocess")
    session = make_session(host, root=root)
    session.log.enabled = False
    ctx = session.context(step_index=0)
    batch = [ToolCall("noop", {"value": i}) for i in range(calls)]
    t0 = time.perf_counter()
    for call in batch:
        session.dispatcher.call(call, ctx)
    return time.perf_counter() - t0


def timed_parse(trail: Path) -> float:
    from trailblaze.trail.parser import load_trail

    t0 = time.perf_counter()
    load_trail(trail)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trail = Path(tmp) / "dispatch.trail.yaml"
        write_trail(trail, ns.calls)
        base = min(direct(ns.calls) for _ in range(ns.repeat))
        ours = min(through_runner(trail, Path(tmp) / f"out{i}") for i in range(ns.repeat))
        quiet = min(through_runner(trail, Path(tmp) / f"q{i}", logging=False) for i in range(ns.repeat))
        parse = min(timed_parse(trail) for _ in range(ns.repeat))
        alone = min(dispatcher_only(ns.calls, Path(tmp) / f"d{i}") for i in range(ns.repeat))
        try:
            owners: float | None = min(dispatcher_only(ns.calls, Path(tmp) / f"o{i}", kind_owners=True)
                                       for i in range(ns.repeat))
        except ImportError:  # the YAML-tools / MCP distributions are not installed
            owners = None
    print(f"direct calls:                    {base * 1e3:8.1f} ms for {ns.calls} calls ({base / ns.calls * 1e6:.2f} µs/call)")
    print(f"parsing the trail alone:         {parse * 1e3:8.1f} ms (see bench_trail_parse.py)")
    print(f"dispatcher alone (no files):     {alone * 1e3:8.1f} ms  overhead {(alone - base) / ns.calls * 1e6:6.1f} µs/call (aim <= 30)")
    if owners is not None:
        print(f"  + YAML-tools and MCP plugins:  {owners * 1e3:8.1f} ms  overhead {(owners - base) / ns.calls * 1e6:6.1f} µs/call (aim <= 30)")
    for label, total in (("runner, one log file per call", ours), ("runner, --no-logging", quiet)):
        overhead_us = (total - base) / ns.calls * 1e6
        dispatch_us = (total - parse - base) / ns.calls * 1e6
        print(f"{label + ':':32s} {total * 1e3:8.1f} ms  overhead {overhead_us:6.1f} µs/call; "
              f"without parsing {dispatch_us:6.1f} µs/call (aim <= 30)")
    print("(runner times include parsing, the session, log entries, the JSON summary)")


if __name__ == "__main__":
    main()
