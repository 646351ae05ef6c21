"""Several devices in one trail (issue 35) on two real web actors: two browsers, one page served here.

The page records, in order, every ``/mark`` it is asked for, so ordering is asserted on what the server
saw (never on wall-clock time): a value goes from one actor to the other through memory, the children of
a ``parallel:`` block overlap, a failing actor is named and the other stops, SIGTERM in the middle of
a ``parallel:`` block leaves no browser behind, and a step of bob's without a usable recording is solved
by the (scripted) model on bob's page only, with a prompt naming bob, and saved under bob's step.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from trailblaze.testing.llm import RecordedRequest, Reply, ScriptedLlmServer, call, done

from .conftest import descendants

pytestmark = pytest.mark.browser


class Board:
    """The tiny app: ``/invite`` shows a code, ``/join?code=X`` says who joined, ``/mark?e=NAME`` records NAME."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.lock = threading.Lock()
        board = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                url = urlparse(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                if url.path == "/invite":
                    body = "<p>Your code: <b id=code>XK-7</b></p>"
                elif url.path == "/join":
                    body = f"<p>Joined room {query.get('code', '?')}</p><a href=/mark?e=wave>Wave</a>"
                elif url.path == "/mark":
                    with board.lock:
                        board.events.append(query.get("e", "?"))
                    body = f"<p>marked {query.get('e')}</p><a href=/join?code=XK-7>Back to the room</a>"
                else:
                    self.send_error(404)
                    return
                data = f"<!doctype html><html><body>{body}</body></html>".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def seen(self) -> list[str]:
        with self.lock:
            return list(self.events)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def board() -> Iterator[Board]:
    served = Board()
    try:
        yield served
    finally:
        served.close()


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", *args, "--output-dir", str(tmp_path / "out")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False, env=dict(os.environ))


def _summary(tmp_path: Path) -> dict[str, object]:
    found = sorted((tmp_path / "out" / "reports").glob("trailblaze_test_results_*.json"))
    assert len(found) == 1, list((tmp_path / "out").rglob("*"))
    trails = json.loads(found[0].read_text(encoding="utf-8"))["results"]
    assert len(trails) == 1, trails
    return trails[0]  # type: ignore[no-any-return]


def _mark(board: Board, event: str) -> str:
    return f"{{web_navigate: {{url: '{board.url}/mark?e={event}'}}}}"


INVITE = """\
config:
  title: Alice invites Bob
  actors:
    alice: web
    bob:
      platform: web
      options: {{headless: true}}
trail:
  - step: Alice opens her invitation and keeps its code
    actor: alice
    recording:
      web:
        - web_navigate: {{url: '{url}/invite'}}
        - web_evaluate: {{script: "document.querySelector('#code').textContent", variable: code}}
  - step: Bob joins with the code {{{{code}}}}
    actor: bob
    recording:
      web:
        - web_navigate: {{url: '{url}/join?code={{{{code}}}}'}}
  - verify: Bob is in Alice's room
    actor: bob
    recording:
      web:
        - web_verifyTextVisible: {{text: Joined room XK-7}}
"""


def test_a_value_goes_from_one_actor_to_the_other_through_memory(tmp_path: Path, board: Board) -> None:
    trail = _write(tmp_path, "invite.trail.yaml", INVITE.format(url=board.url))
    done = _run(tmp_path, str(trail), "-d", "alice=web", "-d", "bob=web", "--junit-xml", str(tmp_path / "junit.xml"))
    assert done.returncode == 0, done.stdout + done.stderr
    junit = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert junit.count("<testcase ") == 1
    assert '<property name="trailblaze.actor.alice" value="playwright-native' in junit, junit
    assert "[bob] verify 3: Bob is in Alice's room" in done.stdout
    assert "[alice] step 1:" in done.stdout
    result = _summary(tmp_path)
    actors = result["actors"]
    assert [(a["name"], a["driver"], a["platform"]) for a in actors] == [  # type: ignore[index, union-attr]
        ("alice", "playwright-native", "WEB"), ("bob", "playwright-native", "WEB")]
    assert [(s["index"], s["actor"]) for s in result["steps"]] == [  # type: ignore[index, union-attr]
        (1, "alice"), (2, "bob"), (3, "bob")]
    logs = {a["name"]: Path(a["log_dir"]) for a in actors}  # type: ignore[index, union-attr]
    assert logs["alice"] != logs["bob"]
    assert (logs["alice"].name, logs["bob"].name) == ("alice", "bob")  # <output>/<trail run>/<actor>/
    assert logs["alice"].parent == logs["bob"].parent == Path(str(result["log_dir"]))
    bob_log = "".join(p.read_text(encoding="utf-8") for p in logs["bob"].rglob("*.ndjson"))
    assert '"actor": "bob"' in bob_log or '"actor":"bob"' in bob_log



def test_a_run_keeps_its_actor_threads_and_their_playwright_between_trails_and_closes_them(
        tmp_path: Path, board: Board) -> None:
    """A later trail's actors pay a context each, not Playwright's start nor a Chromium: the run lends the
    same threads to each trail, each keeping the Playwright it started and its hold on the one Chromium
    (launched by one, reached over CDP by the other); closing the run's scope ends them all."""
    from trailblaze.reuse import reuse_scope
    from trailblaze.runner import RunOptions
    from trailblaze.runner.crew import ActorThreads
    from trailblaze.runner.progress import QuietProgress
    from trailblaze.runner.run import Runner

    trails = [_write(tmp_path, f"invite{i}.trail.yaml", INVITE.format(url=board.url)) for i in (1, 2, 3)]
    before = {t.ident for t in threading.enumerate()}
    runner = Runner(RunOptions(output_dir=tmp_path / "out", report=False), progress=QuietProgress())
    with reuse_scope() as scope:
        for trail in trails:
            result = runner.run_trail(trail)
            assert result is not None and result.passed, result and result.message
        kept = scope.held[("trailblaze-actor-threads",)].value
        assert isinstance(kept, ActorThreads)
        threads = kept.lease(["carol", "dave"])  # the two threads the three trails used, idle again
        kept.give_back(threads[0])
        kept.give_back(threads[1])
        # Each thread started Playwright once for three trails, and took its hold on the browser once.
        assert [t.scope.opened.get(("playwright",)) for t in threads] == [1, 1]
        holds = [n for t in threads for key, n in t.scope.opened.items() if key[0] == "playwright-actor-browser"]
        assert holds == [1, 1], [t.scope.opened for t in threads]
        # The kept Chromium crashes between trails: the next trail notices and the two share a new one.
        for pid, cmd in descendants():
            if "--remote-debugging-port" in cmd and "--type=" not in cmd:
                os.kill(pid, signal.SIGKILL)
        result = runner.run_trail(trails[0])
        assert result is not None and result.passed, result and result.message
        holds = [n for t in threads for key, n in t.scope.opened.items() if key[0] == "playwright-actor-browser"]
        assert holds == [2, 2], [t.scope.opened for t in threads]
        assert [t.scope.opened.get(("playwright",)) for t in threads] == [1, 1]
        drivers = [pid for pid, cmd in descendants() if "run-driver" in cmd]
        assert len(drivers) == 2, descendants()
        browsers = {a for _pid, cmd in descendants() if "--remote-debugging-port" in cmd
                    for a in cmd.split() if a.startswith("--user-data-dir=")}
        assert len(browsers) == 1, descendants()  # one Chromium, kept open for the run's next trail
    assert [pid for pid, cmd in descendants() if "chrom" in cmd.lower() or "playwright" in cmd.lower()] == []
    left = [t.name for t in threading.enumerate() if t.ident not in before and t.name.startswith("trailblaze-actor")]
    assert left == []


PARALLEL = """\
config:
  title: Two waits at once
  actors: {{alice: web, bob: web}}
trail:
  - parallel:
      - step: Alice waits
        actor: alice
        recording:
          web: [{start_a}, {{web_wait: {{seconds: 2}}}}, {end_a}]
      - step: Bob waits
        actor: bob
        recording:
          web: [{start_b}, {{web_wait: {{seconds: 2}}}}, {end_b}]
  - step: Alice goes on once both are done
    actor: alice
    recording:
      web: [{after}]
"""


def test_the_children_of_a_parallel_block_overlap_and_the_block_ends_when_both_have(tmp_path: Path,
                                                                                     board: Board) -> None:
    text = PARALLEL.format(start_a=_mark(board, "start-alice"), end_a=_mark(board, "end-alice"),
                           start_b=_mark(board, "start-bob"), end_b=_mark(board, "end-bob"),
                           after=_mark(board, "after"))
    done = _run(tmp_path, str(_write(tmp_path, "parallel.trail.yaml", text)))
    assert done.returncode == 0, done.stdout + done.stderr
    events = board.seen()
    # Both children started before either ended (they overlapped); the next step waited for both.
    assert sorted(events[:2]) == ["start-alice", "start-bob"], events
    assert sorted(events[2:4]) == ["end-alice", "end-bob"], events
    assert events[4:] == ["after"], events


FAILING = """\
config:
  title: Bob cannot join
  actors: {{alice: web, bob: web}}
trail:
  - parallel:
      - - step: Alice waits a while
          actor: alice
          recording:
            web: [{start_a}, {waits}]
        - step: Alice would go on
          actor: alice
          recording:
            web: [{late_a}]
      - step: Bob looks for a room that is not there
        actor: bob
        recording:
          web:
            - web_navigate: {{url: '{url}/join?code=NOPE'}}
            - web_verifyTextVisible: {{text: Joined room XK-7, timeoutMs: 500}}
"""


def test_a_failing_actor_is_named_and_the_other_stops_at_its_next_call(tmp_path: Path, board: Board) -> None:
    waits = ", ".join(["{web_wait: {seconds: 0.5}}"] * 40)
    text = FAILING.format(url=board.url, start_a=_mark(board, "start-alice"), waits=waits,
                          late_a=_mark(board, "late-alice"))
    done = _run(tmp_path, str(_write(tmp_path, "failing.trail.yaml", text)))
    assert done.returncode == 1, done.stdout + done.stderr
    result = _summary(tmp_path)
    reason = str(result["failure_reason"])
    assert reason.startswith('actor bob: step 3 "Bob looks for a room that is not there": tool '
                             "'web_verifyTextVisible'"), reason
    assert "late-alice" not in board.seen()  # Alice stopped: her next step never ran
    steps = {s["index"]: s for s in result["steps"]}  # type: ignore[union-attr, index]
    assert steps[1]["actor"] == "alice" and steps[1]["mode"] == "failed"  # stopped at a call boundary
    assert 2 not in steps


def test_sigterm_in_the_middle_of_a_parallel_block_leaves_no_browser(tmp_path: Path, board: Board) -> None:
    waits = ", ".join(["{web_wait: {seconds: 0.5}}"] * 200)
    text = PARALLEL.replace("{{web_wait: {{seconds: 2}}}}", waits.replace("{", "{{").replace("}", "}}"))
    text = text.format(start_a=_mark(board, "start-alice"), end_a=_mark(board, "end-alice"),
                       start_b=_mark(board, "start-bob"), end_b=_mark(board, "end-bob"), after=_mark(board, "after"))
    trail = _write(tmp_path, "long.trail.yaml", text)
    proc = subprocess.Popen([sys.executable, "-m", "trailblaze.cli", "run", str(trail), "--output-dir",
                             str(tmp_path / "out")], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ))
    try:
        for _ in range(1200):  # until both actors are inside the block (polling the server, not a clock)
            if {"start-alice", "start-bob"} <= set(board.seen()) or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert {"start-alice", "start-bob"} <= set(board.seen()), proc.communicate(timeout=60)
        browsers = [pid for pid, cmd in descendants(proc.pid) if "chrom" in cmd.lower() or "playwright" in cmd.lower()]
        assert browsers, descendants(proc.pid)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 2, out + err
    assert "end-alice" not in board.seen() and "end-bob" not in board.seen()
    left = [pid for pid in browsers if Path(f"/proc/{pid}").exists() and
            "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[:1]]
    assert left == [], left
    result = _summary(tmp_path)
    assert result["outcome"] == "CANCELLED" or "interrupted by SIGTERM" in str(result["failure_reason"]), result


def test_a_pool_smaller_than_the_actors_is_refused_before_any_browser_starts(tmp_path: Path, board: Board) -> None:
    trail = _write(tmp_path, "invite.trail.yaml", INVITE.format(url=board.url))
    done = _run(tmp_path, str(trail), "--endpoint", "ws://127.0.0.1:9/")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "2 actors (alice, bob) draw from an endpoint pool of 1: each actor needs its own endpoint" in done.stdout
    assert board.seen() == [] and not list((tmp_path / "out").glob("*/alice"))
    workers = _run(tmp_path, str(trail), "-n", "2", "--endpoint", "ws://127.0.0.1:9/", "--endpoint", "ws://127.0.0.1:10/")
    assert workers.returncode == 3, workers.stdout + workers.stderr
    assert "2 actors (alice, bob) on each of 2 workers draw from an endpoint pool of 2" in workers.stdout + workers.stderr
    wrong = _run(tmp_path, str(trail), "-d", "bob=android/emulator-5554")
    assert wrong.returncode == 3, wrong.stdout + wrong.stderr
    assert "-d bob=android/emulator-5554: actor 'bob' is on platform 'web', not 'android'" in wrong.stdout


def test_run_n_and_pytest_trails_take_a_multi_actor_trail_as_one_item(tmp_path: Path, board: Board) -> None:
    invite = _write(tmp_path, "invite.trail.yaml", INVITE.format(url=board.url))
    marks = {k: _mark(board, k) for k in ("start_a", "end_a", "start_b", "end_b", "after")}
    parallel = _write(tmp_path, "parallel.trail.yaml", PARALLEL.format(**marks))
    done = _run(tmp_path, str(invite), str(parallel), "-n", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout, done.stdout
    tested = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--trails", str(invite)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
                            env=dict(os.environ))
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "1 passed" in tested.stdout, tested.stdout



SHARED = """\
config:
  title: One browser, a context each
  actors: {{alice: web, bob: web}}
trail:
  - step: Alice keeps a cookie
    actor: alice
    recording:
      web:
        - web_navigate: {{url: '{url}/invite'}}
        - web_evaluate: {{script: "document.cookie = 'who=alice'; document.cookie", variable: aliceCookie}}
  - parallel:
      - step: Alice waits
        actor: alice
        recording:
          web: [{start_a}, {waits}, {end_a}]
      - step: Bob sees none of Alice's cookies
        actor: bob
        recording:
          web: [{{web_navigate: {{url: '{url}/invite'}}}}, {{web_evaluate: {{script: "{bob_check}"}}}},
                {start_b}, {waits}, {end_b}{bob_tail}]
"""
BOB_CHECK = "(() => { if (document.cookie.includes('who=alice')) throw new Error('bob sees ' + document.cookie); return 1; })()"


def _browsers(pid: int) -> dict[str, str]:
    """The Chromium browsers under ``pid``, by profile directory (each launch gets its own; a wrapper
    script and the binary it runs, renderers and helpers all name it), with the launching command line."""
    found: dict[str, str] = {}
    for _pid, cmd in descendants(pid):
        profile = next((a for a in cmd.split() if a.startswith("--user-data-dir=")), None)
        if profile is not None and "--remote-debugging-pipe" in cmd:
            found.setdefault(profile, cmd)
    return found


def _run_watching_browsers(tmp_path: Path, board: Board, actors: str, *, bob_tail: str = "",
                           code: int = 0) -> tuple[list[str], str]:
    """Run the SHARED trail with ``actors`` (and ``bob_tail`` after Bob's last call); the browsers seen
    while both actors were in the parallel block, and what the run printed. Asserts it exited with
    ``code`` and left no browser or Playwright process."""
    waits = ", ".join(["{web_wait: {seconds: 0.5}}"] * 8)
    text = SHARED.replace("{{alice: web, bob: web}}", actors).format(
        url=board.url, start_a=_mark(board, "start-alice"), end_a=_mark(board, "end-alice"),
        start_b=_mark(board, "start-bob"), end_b=_mark(board, "end-bob"), waits=waits, bob_check=BOB_CHECK,
        bob_tail=bob_tail)
    trail = _write(tmp_path, "shared.trail.yaml", text)
    proc = subprocess.Popen([sys.executable, "-m", "trailblaze.cli", "run", str(trail), "--output-dir",
                             str(tmp_path / "out")], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ))
    try:
        for _ in range(1200):  # until both actors are inside the block (polling the server, not a clock)
            if {"start-alice", "start-bob"} <= set(board.seen()) or proc.poll() is not None:
                break
            time.sleep(0.1)
        browsers = list(_browsers(proc.pid).values())
        everything = [pid for pid, cmd in descendants(proc.pid) if "chrom" in cmd.lower() or "playwright" in cmd.lower()]
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == code, out + err
    assert "end-bob" in board.seen()
    left = [pid for pid in everything if Path(f"/proc/{pid}").exists() and
            "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[:1]]
    assert left == [], left
    return browsers, out


def test_the_web_actors_of_a_trail_share_one_browser_a_context_each(tmp_path: Path, board: Board) -> None:
    browsers, _out = _run_watching_browsers(tmp_path, board, "{{alice: web, bob: web}}")
    assert len(browsers) == 1, browsers  # both actors' pages live in one Chromium; Bob saw no cookie of Alice's
    assert "--remote-debugging-address=127.0.0.1" in browsers[0]  # its DevTools port is loopback only
    actors = {a["name"]: a for a in _summary(tmp_path)["actors"]}  # type: ignore[union-attr]
    assert actors["alice"]["device"] == actors["bob"]["device"]  # type: ignore[index]


def test_web_actors_with_different_browser_settings_keep_a_browser_each(tmp_path: Path, board: Board) -> None:
    browsers, _out = _run_watching_browsers(
        tmp_path, board, "{{alice: web, bob: {{platform: web, options: {{launch_args: [--bobs-own-browser]}}}}}}")
    assert len(browsers) == 2, browsers
    assert ["--bobs-own-browser" in b for b in browsers].count(True) == 1, browsers


def test_a_shared_browser_is_closed_when_an_actor_fails(tmp_path: Path, board: Board) -> None:
    browsers, out = _run_watching_browsers(
        tmp_path, board, "{{alice: web, bob: web}}", code=1,
        bob_tail=", {web_verifyTextVisible: {text: Never on this page, timeoutMs: 300}}")
    assert len(browsers) == 1, browsers
    assert "actor bob:" in str(_summary(tmp_path)["failure_reason"]), out


AGENT = """\
config:
  title: Bob waves, by the model
  actors: {{alice: web, bob: web}}
trail:
  - step: Alice opens her invitation and keeps its code
    actor: alice
    recording:
      web:
        - web_navigate: {{url: '{url}/invite'}}
        - web_evaluate: {{script: "document.querySelector('#code').textContent", variable: code}}
  - step: Bob joins with the code {{{{code}}}}
    actor: bob
    recording:
      web:
        - web_navigate: {{url: '{url}/join?code={{{{code}}}}'}}
  - step: Bob waves
    actor: bob
  - step: Bob goes back to the room
    actor: bob
    recording:
      web:
        - web_click: {{ref: 'link "Return"'}}   # the link is called "Back to the room" now
  - step: Alice keeps her page open
    actor: alice
    recording:
      web:
        - web_verifyTextVisible: {{text: XK-7}}
"""


def test_an_actors_step_is_solved_and_healed_on_that_actors_screen_and_saved_under_it(tmp_path: Path,
                                                                                       board: Board) -> None:
    def model(request: RecordedRequest) -> Reply:
        if request.tool_results():
            return done("done")
        if "Bob waves" in request.objective:
            return call("web_click", ref=request.ref_on_screen('link "Wave"'))
        return call("web_click", ref=request.ref_on_screen('link "Back to the room"'))

    with ScriptedLlmServer(model) as server:
        config = tmp_path / "trails" / "config"
        config.mkdir(parents=True)
        (config / "trailblaze.yaml").write_text(
            "llm:\n  providers:\n    fake:\n      type: openai_compatible\n"
            f"      base_url: {server.openai_base_url}\n      auth: {{required: false}}\n"
            "      retry_backoff_seconds: 0\n      models: [{id: scripted}]\n  defaults: {model: fake/scripted}\n",
            encoding="utf-8")
        text = AGENT.format(url=board.url)
        trail = _write(tmp_path / "trails", "wave.trail.yaml", text)
        finished = _run(tmp_path, str(trail), "--self-heal")
        requests = list(server.requests)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert board.seen() == ["wave", "wave"]  # bob's agent waved, then the proving replay (no model) did
    assert len(requests) == 4, [r.objective for r in requests]
    for request in requests:  # bob's screen, and a prompt that says whose it is
        assert "Joined room XK-7" in request.last_user_text() or "marked wave" in request.last_user_text()
        assert "Your code" not in request.last_user_text()
        assert "You are acting as bob" in request.body["messages"][1]["content"], request.body["messages"][1]
    result = _summary(tmp_path)
    assert [(s["index"], s["actor"], s["mode"]) for s in result["steps"]] == [  # type: ignore[index, union-attr]
        (1, "alice", "replayed"), (2, "bob", "replayed"), (3, "bob", "agent"), (4, "bob", "healed"),
        (5, "alice", "replayed")]
    assert result["heal_check"]["status"] == "proven" and result["heal_check"]["written"]  # type: ignore[index]
    assert "[alice] Alice opens her invitation" in requests[0].body["messages"][1]["content"]  # earlier steps
    saved = trail.read_text(encoding="utf-8").split("\n  - ")
    original = text.split("\n  - ")
    assert [saved[1], saved[5]] == [original[1], original[5]]  # alice's steps untouched
    assert saved[3].startswith("step: Bob waves\n    actor: bob\n    recording:\n      web:\n        - web_click:")
    assert 'ref: link "Wave"' in saved[3]
    assert 'ref: link "Back to the room"' in saved[4] and 'link "Return"' not in saved[4]
