"""The agent's own overhead: one trail replayed from its recording and solved by the agent, in the same
process, against the scripted model server holding every answer back a fixed latency (default 800 ms,
a hosted model's think time).

The trail: a loopback page with six buttons, one step per button ("Click Alpha", ...), the browser
opened on the page by ``start_url``. Recorded, each step is one ``web_click``. Unrecorded, the scripted
model (``trailblaze.testing.llm.ScriptedLlmServer(latency_ms=...)``) does what a model does on it: it
reads the ref of the button the step names off the screen it was sent and clicks it, then, shown the
screen after the click, reports the step COMPLETED — two model calls per step. Nothing is saved back
(``save_recording=False``), so every round solves the same unrecorded trail.

Timed: the runner's step loop only (``runner.steps.run_steps``), as in ``bench_web_replay.py``: the
browser start, the session set-up and the close are outside both figures. A first round of each is run
and dropped (it imports the provider's client and warms Playwright); later rounds alternate the two.

The agent's own time per step is **agent time − model calls × latency − tool execution time**, divided
by the steps: everything the agent does that neither the model nor the tools do (reading the screen,
building, redacting and sending the request, reading the answer, logging). Both subtracted terms are
known or measured directly: the latency is the server's sleep, the tool time is the time spent in the
session's dispatcher for top-level calls (the same ``Dispatcher.call`` replay uses), timed by wrapping
it. The agent's own time is then split by instrumenting it too: the screen capture (``capture_screen``)
and the model round trip beyond the latency (``complete_with_retries`` minus the sleep: the HTTP client,
the JSON both ways, the scripted server's own parsing), the rest being the loop's bookkeeping. It is
printed for the whole trail, then for the steps after the first and for the first apart: a trail's
first agent step also builds the session's model client and describes the session's tools, and its first
look is the new document's first use by Playwright (its injected script, the first run of its snapshot
code), which a replay pays in its first click instead: the replay's first step is printed apart for that.
What a process pays once — importing the client library, the TLS context the model clients share
(``llm/tls.py``), the tool classes' JSON schemas (``tools.base.class_schema``) — falls in the dropped
first round, whose first agent step is printed apart ("a process's first agent step") and is in no
median: a run of many trails pays it once, as every round after the first does here (a fresh
``Runner`` per round, as a fresh run in the same process would be). Aim: ≤ 50 ms per step.

``--cpu`` reads every timer off the main thread's CPU clock instead (with ``--latency-ms 0``): the
agent's own Python alone, a figure a loaded machine hardly moves, to compare two trees by.

``--profile`` profiles the measured agent runs with cProfile (the server's sleep is on its own thread,
so what the profile shows is the agent's side).

    uv run python benchmarks/bench_agent_overhead.py [--rounds 3] [--latency-ms 800] [--steps 6] [--cpu] \
        [--profile [--profile-out FILE]]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

os.environ.setdefault("TRAILBLAZE_DISABLE_PLUGINS", "acme_timings")  # an example's per-call printer
NAMES = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliet"]
_STEP = re.compile(r"Step \d+ of \d+: Click (\w+)")
NOW: Callable[[], float] = time.perf_counter
"""Every timer's clock: wall time, or with ``--cpu`` the main thread's CPU time (``time.thread_time``)."""


def page_html(count: int) -> bytes:
    """Buttons that each add a line to a list: every click changes the screen the model sees next."""
    buttons = "".join(f"<button onclick=\"add('{n}')\">{n}</button>" for n in NAMES[:count])
    return ("<!doctype html><html><head><title>Board</title></head><body><h1>Board</h1>"
            f"<nav>{buttons}</nav><ul id=log></ul><script>function add(n){{const li=document.createElement('li');"
            "li.textContent='clicked '+n;document.getElementById('log').appendChild(li);}}</script>"
            "</body></html>").encode()


class Board:
    """The page on a free 127.0.0.1 port."""

    def __init__(self, count: int) -> None:
        body = page_html(count)

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def trail_text(count: int, *, recorded: bool) -> str:
    lines = ["config:", f"  title: Click {count} buttons", "trail:"]
    for name in NAMES[:count]:
        lines.append(f"  - step: Click {name}")
        if recorded:
            lines += ["    recording:", "      web:", f"        - web_click: {{ref: 'button \"{name}\"'}}"]
    return "\n".join(lines) + "\n"


def model(request: Any) -> Any:
    """Two calls per step: click the button the step names (its ref read off the screen), then, seeing
    the screen after it, report the step done."""
    from trailblaze.testing.llm import call, done

    if request.tool_results():
        return done("clicked")
    found = _STEP.search(request.objective)
    if found is None:
        raise AssertionError(f"not a step of this trail: {request.objective!r}")
    return call("web_click", ref=request.ref_on_screen(f'button "{found.group(1)}"'))


@dataclass
class Clock:
    """Time spent inside the instrumented functions during one run."""

    tools: float = 0.0
    model: float = 0.0
    screen: float = 0.0
    tool_calls: int = 0
    model_calls: int = 0
    depth: int = field(default=0, repr=False)


@contextmanager
def instrumented(clock: Clock) -> Iterator[None]:
    """Wrap the dispatcher (top-level calls), the model round trip and the screen capture the agent
    loop uses, adding their time to ``clock``."""
    from trailblaze import session as session_module
    from trailblaze.agent import loop

    dispatch = session_module.Dispatcher.call
    complete = loop.complete_with_retries
    capture = loop.capture_screen

    def timed_dispatch(self: Any, call: Any, ctx: Any, *, top_level: bool = True) -> Any:
        if clock.depth:
            return dispatch(self, call, ctx, top_level=top_level)
        clock.depth += 1
        t0 = NOW()
        try:
            return dispatch(self, call, ctx, top_level=top_level)
        finally:
            clock.tools += NOW() - t0
            clock.tool_calls += 1
            clock.depth -= 1

    def timed(fn: Callable[..., Any], attr: str) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = NOW()
            try:
                return fn(*args, **kwargs)
            finally:
                setattr(clock, attr, getattr(clock, attr) + NOW() - t0)
                if attr == "model":
                    clock.model_calls += 1
        return wrapper

    session_module.Dispatcher.call = timed_dispatch  # type: ignore[method-assign]
    loop.complete_with_retries = timed(complete, "model")  # type: ignore[assignment]
    loop.capture_screen = timed(capture, "screen")  # type: ignore[assignment]
    try:
        yield
    finally:
        session_module.Dispatcher.call = dispatch  # type: ignore[method-assign]
        loop.complete_with_retries = complete  # type: ignore[assignment]
        loop.capture_screen = capture  # type: ignore[assignment]


@dataclass
class StepTime:
    """One step's time in the step loop and what the clock saw during it."""

    seconds: float
    tools: float
    model: float
    screen: float
    model_calls: int

    def own(self, latency: float) -> float:
        return self.seconds - self.model_calls * latency - self.tools


@dataclass
class Run:
    seconds: float
    clock: Clock
    llm_calls: int
    steps: list[StepTime]


def run_trail(path: Path, out: Path, start_url: str) -> Run:
    """One ``trailblaze run`` of ``path`` in process; the step loop's time and what the clock saw."""
    from trailblaze.runner import RunOptions
    from trailblaze.runner.progress import QuietProgress
    from trailblaze.runner.run import Runner

    options = RunOptions(output_dir=out, report=False, driver="playwright-native", save_recording=False,
                         history=False, start_url=start_url, driver_options={"headless": True})
    runner = Runner(options, progress=QuietProgress())
    run_steps = runner.steps.run_steps
    timings: list[float] = []
    clock = Clock()

    def timed_steps(*args: Any, **kwargs: Any) -> None:
        t0 = NOW()
        try:
            with instrumented(clock):
                run_steps(*args, **kwargs)
        finally:
            timings.append(NOW() - t0)

    run_step = runner.steps.run_step
    steps: list[StepTime] = []

    def timed_step(*args: Any, **kwargs: Any) -> None:
        before = (clock.tools, clock.model, clock.screen, clock.model_calls)
        t0 = NOW()
        try:
            run_step(*args, **kwargs)
        finally:
            steps.append(StepTime(NOW() - t0, clock.tools - before[0], clock.model - before[1],
                                  clock.screen - before[2], clock.model_calls - before[3]))

    runner.steps.run_steps = timed_steps  # type: ignore[method-assign]
    runner.steps.run_step = timed_step  # type: ignore[method-assign]
    result = runner.run([str(path)])
    if int(result.exit_code) != 0:
        raise SystemExit(f"{path.name} failed: {[t.message for t in result.trails]}")
    return Run(timings[0], clock, sum(t.llm_call_count for t in result.trails), steps)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency-ms", type=int, default=800, help="the scripted model's think time per call")
    parser.add_argument("--steps", type=int, default=6, choices=range(1, len(NAMES) + 1), metavar="1-10")
    parser.add_argument("--profile", action="store_true", help=(
        "profile the measured agent runs (cProfile) and print where the time went, by cumulative time; "
        "the model's sleep shows as the server thread's, not in this thread's profile"))
    parser.add_argument("--cpu", action="store_true", help=(
        "time everything on the main thread's CPU clock (time.thread_time): the agent's own Python, without "
        "the browser's or the scripted server's time and nearly without the machine's load; the latency costs "
        "this thread nothing, so none is subtracted (pair it with --latency-ms 0)"))
    parser.add_argument("--profile-out", default="", help="with --profile, also write the stats to this file "
                        "(for pstats: print_callees and friends)")
    parsed = parser.parse_args()
    steps, latency = parsed.steps, parsed.latency_ms / 1000
    if parsed.cpu:
        global NOW
        NOW, latency = time.thread_time, 0.0

    from trailblaze.testing.llm import ScriptedLlmServer

    board = Board(steps)
    with tempfile.TemporaryDirectory() as tmp, ScriptedLlmServer(model, latency_ms=parsed.latency_ms) as server:
        root = Path(tmp)
        os.environ["TRAILBLAZE_HOME"] = str(root / "home")
        os.environ.pop("TRAILBLAZE_DEFAULT_MODEL", None)
        (root / "trails" / "config").mkdir(parents=True)
        (root / "trails" / "config" / "trailblaze.yaml").write_text(
            "llm:\n  providers:\n    scripted:\n      type: openai_compatible\n"
            f"      base_url: {server.openai_base_url}\n      auth: {{required: false}}\n"
            "      models: [{id: model}]\n  defaults: {model: scripted/model}\n", encoding="utf-8")
        recorded = root / "trails" / "recorded.trail.yaml"
        unrecorded = root / "trails" / "unrecorded.trail.yaml"
        recorded.write_text(trail_text(steps, recorded=True), encoding="utf-8")
        unrecorded.write_text(trail_text(steps, recorded=False), encoding="utf-8")
        os.chdir(root)
        replays: list[Run] = []
        agents: list[Run] = []
        first_of_process: list[Run] = []
        profiles: list[cProfile.Profile] = []
        try:
            for i in range(parsed.rounds + 1):  # round 0 warms up and is dropped
                replay = run_trail(recorded, root / f"out-r{i}", board.url)
                profile = cProfile.Profile() if parsed.profile and i else None
                if profile is not None:
                    profile.enable()
                agent = run_trail(unrecorded, root / f"out-a{i}", board.url)
                if profile is not None:
                    profile.disable()
                    profiles.append(profile)
                if unrecorded.read_text(encoding="utf-8") != trail_text(steps, recorded=False):
                    raise SystemExit("the unrecorded trail was written to: the rounds would not be alike")
                if not i:
                    first_of_process.append(agent)
                else:
                    replays.append(replay)
                    agents.append(agent)
                    print(f"round {i}: replay {replay.seconds * 1000:.0f} ms, agent {agent.seconds * 1000:.0f} ms "
                          f"({agent.llm_calls} model calls)", flush=True)
        finally:
            board.close()

    if profiles:
        stats = pstats.Stats(profiles[0])
        for more in profiles[1:]:
            stats.add(more)
        stats.sort_stats("cumulative").print_stats(45)
        if parsed.profile_out:
            stats.dump_stats(parsed.profile_out)

    def ms(values: list[float]) -> float:
        """The median, in milliseconds."""
        return statistics.median(values) * 1000

    replay_s, agent_s = ms([r.seconds for r in replays]), ms([a.seconds for a in agents])
    calls = statistics.median([a.llm_calls for a in agents])
    own = [(a.seconds - a.llm_calls * latency - a.clock.tools) / steps for a in agents]
    later = [st for a in agents for st in a.steps[1:]]
    wire = [st.model - st.model_calls * latency for st in later]
    print(f"\n{steps} steps, scripted model at {parsed.latency_ms} ms per call, medians of {len(agents)} round(s)"
          + (": the main thread's CPU time (--cpu)" if parsed.cpu else ""))
    print(f"  replay (recorded):        {replay_s:8.0f} ms   tools {ms([r.clock.tools for r in replays]):.0f} ms, "
          f"the loop's own {ms([(r.seconds - r.clock.tools) / steps for r in replays]):.1f} ms per step")
    print(f"  agent (unrecorded):       {agent_s:8.0f} ms   {calls:.0f} model calls = {calls * latency * 1000:.0f} ms "
          f"of latency, tools {ms([a.clock.tools for a in agents]):.0f} ms")
    print(f"  replay-vs-agent ratio:    {agent_s / replay_s:8.1f}x  (agent time / replay time)")
    print(f"  agent's own per step:     {ms(own):8.1f} ms   (whole trail / steps); aim <= 50 ms: "
          f"{'met' if ms(own) <= 50 else 'NOT met'}")
    if later:
        print(f"    steps after the first:  {ms([st.own(latency) for st in later]):8.1f} ms   of which")
        print(f"      screen capture:       {ms([st.screen for st in later]):8.1f} ms")
        print(f"      round trip - latency: {ms(wire):8.1f} ms   (HTTP client, JSON, the scripted server, the sleep's "
              "overshoot)")
        rest = [st.own(latency) - st.screen - w for st, w in zip(later, wire)]
        print(f"      the rest (loop, log): {ms(rest):8.1f} ms")
    first = [a.steps[0] for a in agents]
    print(f"    the first step:         {ms([st.own(latency) for st in first]):8.1f} ms   (once per trail: the "
          "session's model client, the tools' descriptors) of which")
    print(f"      screen capture:       {ms([st.screen for st in first]):8.1f} ms   (the first look at the trail's new document: "
          "Playwright injects its script and runs its snapshot code in it for the first time)")
    print(f"      round trip - latency: {ms([st.model - st.model_calls * latency for st in first]):8.1f} ms")
    print(f"  the replay's first step:  {ms([r.steps[0].tools for r in replays]):8.1f} ms of tools, later steps "
          f"{ms([st.tools for r in replays for st in r.steps[1:]]):.1f} ms (a new document's first use by Playwright costs "
          "whoever touches it first: the replay's first click, the agent's first look)")
    once = first_of_process[0].steps[0]
    print(f"  a process's first agent step: {once.own(latency) * 1000:.1f} ms   (the dropped round, in no median: "
          f"screen capture {once.screen * 1000:.1f} ms, round trip - latency "
          f"{(once.model - once.model_calls * latency) * 1000:.1f} ms (importing the client library, the shared TLS "
          "context), the rest (the tools' schemas) "
          f"{(once.own(latency) - once.screen - once.model + once.model_calls * latency) * 1000:.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
