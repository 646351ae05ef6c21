"""MCP server start-up: spawn + ``initialize`` + ``tools/list`` through Trailblaze's session start
(process group, stderr capture, callback server, event-loop thread, registration of every tool) against
the bare ``mcp`` SDK (``stdio_client`` + ``ClientSession``) for the same Python server, interleaved; then
Trailblaze's absolute start-up times for the Python, bun and node + tsx test servers.

Usage: uv run python benchmarks/bench_mcp_startup.py [--rounds 5]
(bun and tsx are looked up on PATH and in .tools/node/node_modules/.bin; a missing one is reported.)
Aim: ratio ≤ 1.10.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SERVERS = REPO / "trailblaze-mcp-subprocess" / "tests" / "servers"
NODE_BIN = REPO / ".tools" / "node" / "node_modules" / ".bin"
NODE_MODULES = REPO / ".tools" / "node" / "node_modules"


def bare_sdk_start(script: Path) -> float:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def run() -> float:
        params = StdioServerParameters(command=sys.executable, args=[str(script)], env=dict(os.environ),
                                       cwd=str(script.parent))
        with open(os.devnull, "w") as sink:  # noqa: ASYNC230 - /dev/null, before timing
            t0 = time.perf_counter()
            async with stdio_client(params, errlog=sink) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                return time.perf_counter() - t0

    return asyncio.run(run())


def trailblaze_start(script: Path, env: dict[str, str] | None = None) -> tuple[float, str]:
    from trailblaze.config import load_workspace
    from trailblaze.driver import DeviceInfo
    from trailblaze.logs import SessionLog
    from trailblaze.session import SessionOutcome
    from trailblaze.testing import make_session, new_host
    from trailblaze_mcp_subprocess import plugin, runtimes

    saved = dict(os.environ)
    os.environ.update(env or {})
    runtimes.clear_cache()
    try:
        root = Path(tempfile.mkdtemp())
        (root / "trails" / "config").mkdir(parents=True)
        (root / "trails" / "config" / "trailblaze.yaml").write_text(f"mcpServers:\n  - script: {script}\n")
        host = new_host()
        host.register(plugin, "mcp_subprocess")
        session = make_session(host, root=root, workspace=load_workspace(root, host), start=False)
        session.log = SessionLog(root / "logs", session.id, session.log.redactor, enabled=False)
        session.device = DeviceInfo(platform="host", driver="host")
        t0 = time.perf_counter()
        host.session_started(session)
        elapsed = time.perf_counter() - t0
        runtime = next(iter(session.resources["mcp_subprocess"].servers.values())).launch.runtime
        host.session_finished(session, SessionOutcome.SUCCEEDED)
        return elapsed, runtime
    finally:
        os.environ.clear()
        os.environ.update(saved)


def ts_envs() -> dict[str, dict[str, str] | str]:
    """PATH/NODE_PATH for bun, and for node + tsx without bun; a string says why one is missing."""
    from trailblaze.testing.offline import link_node_modules

    link_node_modules(REPO, NODE_MODULES)  # bun runs with --no-install: the SDK, linked as bootstrap does
    path = os.pathsep.join([str(NODE_BIN), os.environ.get("PATH", "")])
    node_path = os.environ.get("NODE_PATH") or str(NODE_MODULES)
    out: dict[str, dict[str, str] | str] = {}
    out["bun"] = {"PATH": path, "NODE_PATH": node_path} if shutil.which("bun", path=path) else "bun not installed"
    node, tsx = shutil.which("node", path=path), shutil.which("tsx", path=path)
    if node and tsx:
        only = Path(tempfile.mkdtemp()) / "bin"
        only.mkdir()
        (only / "node").symlink_to(node)
        (only / "tsx").symlink_to(tsx)
        out["node+tsx"] = {"PATH": f"{only}{os.pathsep}/usr/bin{os.pathsep}/bin", "NODE_PATH": node_path}
    else:
        out["node+tsx"] = "node or tsx not installed"
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    script = SERVERS / "minimal.py"
    bare_sdk_start(script)  # warm imports and bytecode on both paths
    trailblaze_start(script)
    bare, ours = [], []
    for _ in range(args.rounds):
        bare.append(bare_sdk_start(script))
        ours.append(trailblaze_start(script)[0])
    b, o = statistics.median(bare), statistics.median(ours)
    print(f"spawn + initialize + tools/list of a Python stdio server (median of {args.rounds}, interleaved)")
    print(f"  bare mcp SDK          : {b * 1000:.0f} ms")
    print(f"  Trailblaze (session)  : {o * 1000:.0f} ms   ratio {o / b:.3f}   (aim ≤ 1.10), "
          f"+{(o - b) * 1000:.0f} ms")
    print("Trailblaze start-up by runtime (median):")
    print(f"  python   minimal.py   : {o * 1000:.0f} ms")
    for name, env in ts_envs().items():
        if isinstance(env, str):
            print(f"  {name:<8} ts_tools.ts  : skipped ({env})")
            continue
        trailblaze_start(SERVERS / "ts_tools.ts", env)
        times = []
        for _ in range(args.rounds):
            elapsed, runtime = trailblaze_start(SERVERS / "ts_tools.ts", env)
            assert runtime == name, (runtime, name)
            times.append(elapsed)
        print(f"  {name:<8} ts_tools.ts  : {statistics.median(times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
