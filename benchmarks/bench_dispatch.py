"""Dispatch overhead: 10,000 recorded no-op calls replayed by the runner vs calling the tool directly.

The baseline (calling the tool functions) runs in the same process; every line prints the ratio and
the overhead per call. The runner is measured with the default logs (one NDJSON stream per session),
upstream's one file per event (``--log-layout files``) and ``--no-logging``.

Usage: uv run python benchmarks/bench_dispatch.py [--calls 10000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

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


def timed_runner(options: RunOptions, host: Any) -> tuple[Runner, list[float]]:
    """A runner whose time after parsing is summed: the session of each trail (driver, steps,
    dispatch, logs, recording.trail.yaml, close: ``TrailRunner.run_session``) and the run's outputs
    (JSON summary: ``RunOutputs.write_outputs``)."""
    runner = Runner(options, host=host, progress=QuietProgress())
    measured = [0.0]

    def timed(part: Any, name: str) -> None:
        inner = getattr(part, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                measured[0] += time.perf_counter() - t0

        setattr(part, name, wrapper)

    timed(runner.trails, "run_session")
    timed(runner.outputs, "write_outputs")
    return runner, measured


def through_runner(trail: Path, out: Path, *, logging: bool = True, layout: str | None = None) -> float:
    """Seconds the runner spends on ``trail`` after parsing it (see ``timed_runner``)."""
    host = new_host()
    host.register(Plugin(), "bench")
    options = RunOptions(driver="in-memory", output_dir=out, report=False, logging=logging, log_layout=layout)
    runner, measured = timed_runner(options, host)
    result = runner.run([str(trail)])
    assert result.exit_code == 0, result.trails[0].message
    return measured[0]


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
    parser.add_argument("--repeat", type=int, default=5)
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trail = Path(tmp) / "dispatch.trail.yaml"
        write_trail(trail, ns.calls)
        base = min(direct(ns.calls) for _ in range(ns.repeat))
        parse = min(timed_parse(trail) for _ in range(ns.repeat))
        alone = min(dispatcher_only(ns.calls, Path(tmp) / f"d{i}") for i in range(ns.repeat))
        try:
            owners: float | None = min(dispatcher_only(ns.calls, Path(tmp) / f"o{i}", kind_owners=True)
                                       for i in range(ns.repeat))
        except ImportError:  # the YAML-tools / MCP distributions are not installed
            owners = None
        configs: dict[str, dict[str, Any]] = {"default logs (session.ndjson)": {},
                                              "--log-layout files": {"layout": "files"},
                                              "--no-logging": {"logging": False}}
        runs: dict[str, float] = dict.fromkeys(configs, float("inf"))
        for i in range(ns.repeat):  # interleaved, best of the rounds: the machine's load varies
            for label, kwargs in configs.items():
                if i > 0 and "layout" in kwargs:
                    continue  # upstream's layout is slow enough to be seen in one round
                runs[label] = min(runs[label], through_runner(trail, Path(tmp) / f"o{i}{label}", **kwargs))
    n = ns.calls
    print(f"direct calls (baseline):         {base * 1e3:8.1f} ms for {n} calls ({base / n * 1e6:.2f} µs/call)")
    print(f"parsing the trail (not counted): {parse * 1e3:8.1f} ms (see bench_trail_parse.py)")
    print(f"dispatcher alone (no log files): {alone * 1e3:8.1f} ms  ratio {alone / base:6.1f}  "
          f"overhead {(alone - base) / n * 1e6:6.1f} µs/call (aim <= 30)")
    if owners is not None:
        print(f"  + YAML-tools and MCP plugins:  {owners * 1e3:8.1f} ms  ratio {owners / base:6.1f}  "
              f"overhead {(owners - base) / n * 1e6:6.1f} µs/call (aim <= 30)")
    for label, total in runs.items():
        print(f"runner, {label + ':':30s} {total * 1e3:8.1f} ms  ratio {total / base:6.1f}  "
              f"overhead {(total - base) / n * 1e6:6.1f} µs/call")
    logging_us = (runs["default logs (session.ndjson)"] - runs["--no-logging"]) / n * 1e6
    print(f"of which the default logs:       {logging_us:6.1f} µs/call")
    print("aim: runner with the default logs, overhead <= 30 µs/call (runner: the session after parsing — driver, "
          "steps, dispatch, log entries and their stream, recording.trail.yaml — and the JSON summary; "
          f"best of {ns.repeat} interleaved rounds)")


if __name__ == "__main__":
    main()
