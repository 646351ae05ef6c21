"""MCP call overhead: sequential ``tools/call`` round trips to a stdio Python tool server, through
Trailblaze's tool dispatch (argument validation, memory, context envelopes, invocation id and callback
token, tool log; the calling thread drives the session's event loop) against the same calls through a
bare ``mcp`` SDK ``ClientSession``.

Trailblaze's client checks a result's structured content against the tool's output schema with its own
quick check where the schema allows (``trailblaze_mcp_subprocess.output_check``), where the SDK runs
``jsonschema`` on every result: that pass is ~80 µs of the SDK's call, and the quick check falls back to
it for any schema or result it does not vouch for.

Both connections are open at once and their batches alternate, so load from other processes on the
machine hits both alike. A second reference, the bare SDK sending upstream's two context envelopes by
hand (the ``_trailblazeContext`` argument and ``params._meta.trailblaze`` every Trailblaze call carries),
separates what the protocol costs the server from what Trailblaze itself adds.

With ``--instructions``, each path instead runs alone under valgrind's callgrind, client and server
followed (``instructions.py``), at 100 and at 300 calls: the difference over 200 calls is the instructions
one call costs, printed for the client and the server apart (``--repeat N``: every path N times in turn,
medians). Trailblaze's path counts within ~2 % of itself run after run (it reads and writes its pipes
directly); the bare SDK's swings by up to half, client and server alike (its transport's reader and
writer tasks, and the server's stdin reads on worker threads, take more or fewer turns depending on
when bytes arrive; 2026-11-29: client 1.03–1.52 M, server 1.71–2.10 M a call). The server's count also
depends on the envelopes' contents: the bare SDK sending Trailblaze's exact envelopes made the server
count 2.13–2.17 M, what it counts answering Trailblaze. So read the medians of several rounds, and the
ratio as a range. An instruction is not a nanosecond: waiting on the pipe and the scheduler are not in it.

Usage: uv run python benchmarks/bench_mcp_calls.py [--calls 1000] [--batch 50] [--instructions [--repeat 3]]
Aim: ratio ≤ 1.10 with the session event log (issue 15; issue 31: ≤ 1.08).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SERVER = REPO / "trailblaze-mcp-subprocess" / "tests" / "servers" / "minimal.py"


class BareSdk:
    """A bare SDK client session (the SDK's own stdio transport), driven from this thread.

    ``envelopes``: each call also carries what upstream's protocol puts on every Trailblaze call (the
    ``_trailblazeContext`` argument and ``params._meta.trailblaze``, same sizes as ours), built by hand
    once: what any client speaking that protocol pays on the server side, as a second reference."""

    def __init__(self, *, envelopes: bool = False) -> None:
        self.envelopes = envelopes
        self.loop = asyncio.new_event_loop()
        self.session: Any = None
        self._stop: asyncio.Event | None = None
        self._holder = self.loop.create_task(self._hold())
        while self.session is None:
            self.loop.run_until_complete(asyncio.sleep(0.01))
            if self._holder.done():
                self._holder.result()

    async def _hold(self) -> None:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=sys.executable, args=[str(SERVER)], env=dict(os.environ),
                                       cwd=str(SERVER.parent))
        self._stop = asyncio.Event()
        with open(os.devnull, "w") as sink:  # noqa: ASYNC230 - /dev/null, before timing
            async with stdio_client(params, errlog=sink) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                self.session = session
                await self._stop.wait()

    def batch(self, n: int, offset: int) -> float:
        device = {"platform": "host", "widthPixels": 0, "heightPixels": 0, "driverType": "host"}
        memory = {"user": "ada", "city": "Paris"}
        meta = {"trailblaze": {"baseUrl": "http://127.0.0.1:40000", "sessionId": "bench", "invocationId": "inv-0",
                               "callbackToken": "x" * 43, "device": device, "memory": memory, "capabilities": {}}}

        async def run() -> float:
            t0 = time.perf_counter()
            for i in range(n):
                if self.envelopes:
                    await self.session.call_tool(
                        "min_echo", {"text": f"hello {offset + i}", "_trailblazeContext": {"memory": memory,
                                                                                           "device": device}},
                        meta=meta)
                else:
                    await self.session.call_tool("min_echo", {"text": f"hello {offset + i}"})
            return time.perf_counter() - t0

        return self.loop.run_until_complete(run())

    def close(self) -> None:
        assert self._stop is not None
        self._stop.set()
        self.loop.run_until_complete(self._holder)
        self.loop.close()


class Ours:
    """A Trailblaze session with the same server, calls through the session's dispatcher."""

    def __init__(self, *, logging: bool) -> None:
        from trailblaze.config import load_workspace
        from trailblaze.driver import DeviceInfo
        from trailblaze.logs import SessionLog
        from trailblaze.testing import make_session, new_host
        from trailblaze_mcp_subprocess import plugin

        root = Path(tempfile.mkdtemp())
        (root / "trails" / "config").mkdir(parents=True)
        (root / "trails" / "config" / "trailblaze.yaml").write_text(f"mcpServers:\n  - script: {SERVER}\n")
        self.host = new_host()
        self.host.register(plugin, "mcp_subprocess")
        self.session = make_session(self.host, root=root, workspace=load_workspace(root, self.host), start=False,
                                    memory={"user": "ada", "city": "Paris"})
        self.session.log = SessionLog(root / "logs", self.session.id, self.session.log.redactor,
                                      enabled=logging)
        self.session.device = DeviceInfo(platform="host", driver="host")
        self.host.session_started(self.session)
        self.ctx = self.session.context()

    def batch(self, n: int, offset: int) -> float:
        from trailblaze.tools.base import ToolCall

        dispatch = self.session.dispatcher.call
        t0 = time.perf_counter()
        for i in range(n):
            dispatch(ToolCall("min_echo", {"text": f"hello {offset + i}"}), self.ctx)
        return time.perf_counter() - t0

    def close(self) -> None:
        from trailblaze.session import SessionOutcome

        self.host.session_finished(self.session, SessionOutcome.SUCCEEDED)
        self.session.log.close()


PATHS = {"sdk": lambda: BareSdk(), "enveloped": lambda: BareSdk(envelopes=True),
         "ours": lambda: Ours(logging=False), "logged": lambda: Ours(logging=True)}
LABELS = {"sdk": "bare mcp SDK ClientSession", "enveloped": "bare SDK with upstream's two envelopes",
          "ours": "Trailblaze dispatch", "logged": "... writing session log files"}


def only(name: str, calls: int) -> None:
    """One path alone (``--instructions`` counts this process and its server): 50 calls to warm up, then
    ``calls``."""
    path = PATHS[name]()
    try:
        path.batch(50, 0)
        path.batch(calls, 50)
    finally:
        path.close()


def counted(repeat: int) -> None:
    """``--instructions``: instructions per call of each path over 200 calls, the client (every process
    but the server: the bench itself and, on Trailblaze's path, its reaper's watchdog process) and the
    server apart, each path run ``repeat`` times in turn (medians printed); see the module docstring
    for how far each side's count moves between runs."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from instructions import available, instructions_by_process

    if not available():
        sys.exit("--instructions needs valgrind (Debian: apt-get install valgrind)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["TRAILBLAZE_MCP_SUBPROCESS_HANDSHAKE_TIMEOUT_MS"] = "900000"  # under valgrind a server starts in minutes
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in PATHS}
    with tempfile.TemporaryDirectory() as tmp:
        env["PYTHONPYCACHEPREFIX"] = tmp  # a warm bytecode cache: compiling is not a call's cost
        subprocess.run([sys.executable, __file__, "--only", "logged", "--calls", "1"], env=env, check=True)
        for round_ in range(1, repeat + 1):
            for name in PATHS:
                sides: list[tuple[int, int]] = []
                for calls in (100, 300):
                    cmd = [sys.executable, __file__, "--only", name, "--calls", str(calls)]
                    done, processes = instructions_by_process(cmd, env=env)
                    assert done.returncode == 0, done.stderr[-2000:]
                    served = sum(count for command, count in processes if SERVER.name in command)
                    sides.append((sum(count for _, count in processes) - served, served))
                per_client, per_server = ((sides[1][i] - sides[0][i]) / 200 for i in (0, 1))
                runs[name].append((per_client, per_server))
                sdk = runs["sdk"][-1]
                print(f"  round {round_}, {LABELS[name]:38}: client {per_client / 1e6:.3f} M, server "
                      f"{per_server / 1e6:.3f} M instructions per call"
                      + (f"; client {per_client / sdk[0]:.3f}, both {(per_client + per_server) / sum(sdk):.3f} "
                         f"of the bare SDK" if name != "sdk" else ""), flush=True)
    client = {name: statistics.median(c for c, _ in v) for name, v in runs.items()}
    both = {name: statistics.median(c + s for c, s in v) for name, v in runs.items()}
    print(f"  medians over {repeat} round(s), instructions per call:")
    for name in PATHS:
        print(f"    {LABELS[name]:38}: client {client[name] / 1e6:.3f} M"
              + (f" ({client[name] / client['sdk']:.3f} of the bare SDK's)" if name != "sdk" else "")
              + f", client and server {both[name] / 1e6:.3f} M"
              + (f" ({both[name] / both['sdk']:.3f})" if name != "sdk" else ""))
    print(f"  ours with log files over the bare SDK sending the same envelopes by hand: client "
          f"{client['logged'] / client['enveloped']:.3f}, client and server {both['logged'] / both['enveloped']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--instructions", action="store_true",
                        help="count each path's instructions per call under callgrind (client and server) "
                             "instead of timing them")
    parser.add_argument("--repeat", type=int, default=1,
                        help="with --instructions: run every path this many times in turn and print medians")
    parser.add_argument("--only", choices=sorted(PATHS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        only(args.only, args.calls)
        return
    if args.instructions:
        counted(args.repeat)
        return
    sdk, enveloped, ours, logged = BareSdk(), BareSdk(envelopes=True), Ours(logging=False), Ours(logging=True)
    try:
        for path in (sdk, enveloped, ours, logged):  # warm-up
            path.batch(args.batch, 0)
        batches: dict[str, list[float]] = {"sdk": [], "enveloped": [], "ours": [], "logged": []}
        cpu: dict[str, float] = {"sdk": 0.0, "enveloped": 0.0, "ours": 0.0, "logged": 0.0}
        paths = {"sdk": sdk, "enveloped": enveloped, "ours": ours, "logged": logged}
        for k in range(args.calls // args.batch):
            for name, path in paths.items():
                c0 = time.process_time()
                batches[name].append(path.batch(args.batch, k * args.batch))
                cpu[name] += time.process_time() - c0
    finally:
        for path in (sdk, enveloped, ours, logged):
            path.close()
    n = args.calls
    totals = {k: sum(v) for k, v in batches.items()}
    median = {k: statistics.median(v) for k, v in batches.items()}
    base = totals["sdk"]
    print(f"{n} sequential tools/call round trips to a stdio Python server (batches of {args.batch}, interleaved)")
    print(f"  bare mcp SDK ClientSession     : {base:.3f}s  ({base / n * 1e6:.0f} µs/call)")
    print(f"  Trailblaze dispatch            : {totals['ours']:.3f}s  ({totals['ours'] / n * 1e6:.0f} µs/call)"
          f"  ratio {totals['ours'] / base:.3f}")
    print(f"  ... writing session log files  : {totals['logged']:.3f}s  ({totals['logged'] / n * 1e6:.0f} µs/call)"
          f"  ratio {totals['logged'] / base:.3f}")
    print(f"  median-batch ratios (robust to load spikes): dispatch {median['ours'] / median['sdk']:.3f}, "
          f"with log files {median['logged'] / median['sdk']:.3f}")
    print(f"  client CPU per call: SDK {cpu['sdk'] / n * 1e6:.0f} µs, dispatch {cpu['ours'] / n * 1e6:.0f} µs, "
          f"with log files {cpu['logged'] / n * 1e6:.0f} µs (log writing continues on a background thread)")
    env = totals["enveloped"]
    print(f"  second reference, the bare SDK sending upstream's two context envelopes by hand: {env:.3f}s "
          f"({env / n * 1e6:.0f} µs/call, {env / base:.3f} of the bare SDK); ours with log files is "
          f"{totals['logged'] / env:.3f} of it (median batches {median['logged'] / median['enveloped']:.3f}); "
          f"client CPU {cpu['enveloped'] / n * 1e6:.0f} µs/call")
    print("  aim: ratio ≤ 1.10 with log files (they are the core's per-call JSON logs, the same for every tool kind)")


if __name__ == "__main__":
    main()
