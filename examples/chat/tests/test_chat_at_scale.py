"""The chat trails on every scale path, as ``trailblaze run`` alone runs them: ``run -n 2``, ``pytest
--trails``, and ``--shard 1/2`` + ``--shard 2/2`` + ``merge-reports``. Each path takes a trail with
actors as one item; the merged summary, JUnit and page carry the same actors and per-step actors as the
plain run's (the same functions derive them). The failing twin fails naming ``bob`` whichever path runs
it, and SIGTERM in the middle of a ``parallel:`` block under ``-n 2`` exits 2 with every trail's outcome
written and no browser, worker or chat server left."""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from trailblaze.logs import read_log
from trailblaze.testing import run_cli

EXAMPLE = Path(__file__).resolve().parents[1]
TRAILS = EXAMPLE / "trails"
FAILING = EXAMPLE / "failing"

pytestmark = [pytest.mark.browser]


def _summary(out: Path) -> dict[str, Any]:
    found = sorted((out / "reports").glob("trailblaze_test_results_*.json")) or [out / "summary.json"]
    return json.loads(found[-1].read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _by_title(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["title"]: r for r in summary["results"]}


def _actors(row: dict[str, Any]) -> list[tuple[str, str, str, str | None]]:
    return [(a["name"], a["platform"], a["driver"], a["device"]) for a in row["actors"]]


def _steps(row: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(s["index"], s.get("actor"), s.get("block"), s["kind"], s["text"], s["mode"]) for s in row["steps"]]


def _actor_properties(junit: Path) -> dict[str, dict[str, str]]:
    cases = ET.parse(junit).getroot().iter("testcase")
    return {str(c.get("name")): {str(p.get("name")): str(p.get("value")) for p in c.iter("property")
                                 if str(p.get("name")).startswith("trailblaze.actor.")} for c in cases}


def _chat_urls(logs: Path) -> set[str]:
    return {str(e["url"]) for stream in logs.rglob("session.ndjson") for e in read_log(stream.parent)
            if e.get("server") == "chat"}


def test_shards_and_merge_reports_carry_the_actors_of_a_plain_run(tmp_path: Path, browser_processes: Any,
                                                                   port_open: Any) -> None:
    plain = run_cli(["run", str(TRAILS), "--output-dir", str(tmp_path / "plain"), "--junit-xml",
                     str(tmp_path / "plain.xml")])
    assert plain.exit_code == 0, plain.output
    for shard in ("1/2", "2/2"):
        done = run_cli(["run", str(TRAILS), "--shard", shard, "--output-dir", str(tmp_path / f"shard-{shard[0]}")])
        assert done.exit_code == 0, done.output
    merged = run_cli(["merge-reports", str(tmp_path / "shard-1"), str(tmp_path / "shard-2"), "--output-dir",
                      str(tmp_path / "merged"), "--junit-xml", str(tmp_path / "merged.xml")])
    assert merged.exit_code == 0, merged.output
    assert "Results: 2 passed, 0 failed, 0 skipped" in merged.output

    ran, joined = _by_title(_summary(tmp_path / "plain")), _by_title(_summary(tmp_path / "merged"))
    assert sorted(ran) == sorted(joined) and len(ran) == 2  # one result per trail, not per actor
    for title, row in ran.items():
        assert _actors(row) == _actors(joined[title])
        assert [a[0] for a in _actors(row)] == ["alice", "bob"]
        assert _steps(row) == _steps(joined[title])
        assert {s[2] for s in _steps(row)} - {None}, "each chat trail has a parallel block"
        for actor in joined[title]["actors"]:  # each actor's own folder, inside the merged output's reach
            folder = Path(actor["log_dir"])
            assert folder.name == actor["name"] and (folder / "session.ndjson").is_file(), actor
    properties = _actor_properties(tmp_path / "plain.xml")
    assert properties == _actor_properties(tmp_path / "merged.xml")
    assert all(set(p) == {"trailblaze.actor.alice", "trailblaze.actor.bob"} for p in properties.values())

    page = (tmp_path / "merged" / "report.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r"<script type=application/json id=tb-data>(.*?)</script>", page, re.S)
                      .group(1))  # type: ignore[union-attr]
    labels = {row["t"]: row["ac"] for row in data["rows"]}
    for title, row in ran.items():
        assert labels[title] == [f"{a['name']}: {a['driver']} on {a['device']}" for a in row["actors"]]
    assert browser_processes() == []
    urls = _chat_urls(tmp_path)
    assert len(urls) == 4 and not any(port_open(url) for url in urls)  # plain + shards: a server per trail


def test_run_n_2_passes_the_chat_trails_and_names_the_failing_actor(tmp_path: Path, browser_processes: Any,
                                                                    port_open: Any) -> None:
    done = run_cli(["run", str(TRAILS), str(FAILING), "-n", "2", "--output-dir", str(tmp_path / "out"),
                    "--junit-xml", str(tmp_path / "junit.xml")])
    assert done.exit_code == 1, done.output
    assert "Results: 2 passed, 1 failed, 0 skipped" in done.output
    rows = _by_title(_summary(tmp_path / "out"))
    failed = [row for row in rows.values() if row["outcome"] != "PASSED"]
    assert len(failed) == 1 and failed[0]["failure_reason"].startswith("actor bob: verify 5 "), failed
    assert "web_verifyTextVisible" in failed[0]["failure_reason"]
    assert all([a[0] for a in _actors(row)] == ["alice", "bob"] for row in rows.values())
    assert all(s.get("actor") in ("alice", "bob") for row in rows.values() for s in row["steps"])
    properties = _actor_properties(tmp_path / "junit.xml")
    assert len(properties) == 3 and all(set(p) == {"trailblaze.actor.alice", "trailblaze.actor.bob"}
                                        for p in properties.values())
    assert browser_processes() == []
    urls = _chat_urls(tmp_path / "out")
    assert len(urls) == 3 and not any(port_open(url) for url in urls)


PR_SET_CHILD_SUBREAPER = 36


@contextmanager
def _adopting_orphans() -> Iterator[None]:
    """This process as the child subreaper (Linux ``prctl``): a browser the run below left behind would be
    re-parented here, not to init, so ``browser_processes`` still finds it after the run has exited."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    if prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        pytest.skip("prctl(PR_SET_CHILD_SUBREAPER) is not available")
    try:
        yield
    finally:
        prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def test_pytest_trails_runs_each_chat_trail_as_one_item(tmp_path: Path, browser_processes: Any,
                                                        port_open: Any) -> None:
    with _adopting_orphans():
        tested = _pytest_trails(tmp_path)
        assert browser_processes() == []
    out = tested.stdout + tested.stderr
    assert tested.returncode == 1, out  # the failing twin is one failed item
    assert "1 failed, 2 passed" in out, out
    assert "actor bob: verify 5" in out, out
    urls = _chat_urls(tmp_path / "out")
    assert len(urls) == 3 and not any(port_open(url) for url in urls)


def _pytest_trails(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--trails", str(TRAILS),
                           "--trails", str(FAILING), "--trailblaze-output-dir", str(tmp_path / "out")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False, env=dict(os.environ))


class _Marks:
    """A loopback server that records the paths it is asked for: how the test knows both actors of both
    trails are inside their ``parallel:`` block (by what the browsers did, not by a clock)."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        marks = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                marks.seen.add(self.path.strip("/"))
                body = b"<!doctype html><p>marked</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def marks() -> Iterator[_Marks]:
    served = _Marks()
    try:
        yield served
    finally:
        served.server.shutdown()
        served.server.server_close()


LONG = """\
config:
  title: "Chat {n}: both wait a long time at once"
  target: chat
  actors: {{alice: web, bob: web}}
trail:
  - step: Alice signs in to the chat
    actor: alice
    recording:
      web:
        - web_navigate: {{url: /}}
        - web_type: {{ref: 'textbox "Your name"', text: Alice}}
        - web_click: {{ref: 'button "Sign in"'}}
  - parallel:
      - step: Alice waits
        actor: alice
        recording:
          web: [{{web_navigate: {{url: '{url}/{n}-alice'}}}}, {waits}]
      - step: Bob waits
        actor: bob
        recording:
          web: [{{web_navigate: {{url: '{url}/{n}-bob'}}}}, {waits}]
"""


def _alive(pid: int) -> bool:
    try:
        return "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[:1]
    except OSError:
        return False


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                children.setdefault(int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]), []).append(
                    int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    out, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), []):
            out.append(child)
            stack.append(child)
    return out


def test_sigterm_mid_parallel_under_run_n_2_exits_2_and_leaves_nothing(tmp_path: Path, marks: _Marks,
                                                                       port_open: Any) -> None:
    shutil.copytree(TRAILS / "config", tmp_path / "trails" / "config")  # the chat workspace, with its app:
    shutil.copytree(EXAMPLE / "app", tmp_path / "app")  # the plugin serves the app beside trails/
    shutil.copy(EXAMPLE / "server.py", tmp_path / "server.py")
    waits = ", ".join(["{web_wait: {seconds: 0.5}}"] * 240)
    for n in (1, 2):
        (tmp_path / "trails" / f"long-{n}.trail.yaml").write_text(
            LONG.format(n=n, url=marks.url, waits=waits), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "trailblaze.cli", "run", "trails", "-n", "2", "--output-dir",
                             str(tmp_path / "out")], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ))
    inside = {"1-alice", "1-bob", "2-alice", "2-bob"}
    try:
        for _ in range(1800):  # until both actors of both trails are inside their parallel block
            if inside <= marks.seen or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert inside <= marks.seen, proc.communicate(timeout=60)
        started = _descendants(proc.pid)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 2, out + err
    assert [pid for pid in started if _alive(pid)] == []  # no worker, browser or driver left
    rows = _summary(tmp_path / "out")["results"]
    assert sorted(r["title"] for r in rows) == ["Chat 1: both wait a long time at once",
                                                "Chat 2: both wait a long time at once"]
    for row in rows:
        assert row["outcome"] == "CANCELLED" and "interrupted by SIGTERM" in row["failure_reason"], row
        assert [a[0] for a in _actors(row)] == ["alice", "bob"]
    urls = _chat_urls(tmp_path / "out")
    assert len(urls) == 2 and not any(port_open(url) for url in urls)


SNAPSHOTS = """\
config:
  title: "Chat: each actor snapshots its own screen at once"
  target: chat
  actors: {alice: web, bob: web}
trail:
  - step: Alice signs in
    actor: alice
    recording:
      web:
        - web_navigate: {url: /}
        - web_type: {ref: 'textbox "Your name"', text: Alice}
        - web_click: {ref: 'button "Sign in"'}
  - parallel:
      - step: Alice snapshots the lobby
        actor: alice
        recording:
          web: [{web_snapshot: {screenName: screen}}]
      - step: Bob snapshots the sign-in page
        actor: bob
        recording:
          web: [{web_navigate: {url: /}}, {web_snapshot: {screenName: screen}}]
"""


def test_the_report_shows_a_lane_per_actor_with_each_actors_own_screenshot(tmp_path: Path) -> None:
    shutil.copytree(TRAILS / "config", tmp_path / "trails" / "config")
    shutil.copytree(EXAMPLE / "app", tmp_path / "app")
    shutil.copy(EXAMPLE / "server.py", tmp_path / "server.py")
    (tmp_path / "trails" / "snapshots.trail.yaml").write_text(SNAPSHOTS, encoding="utf-8")
    done = run_cli(["run", str(tmp_path / "trails"), "--output-dir", str(tmp_path / "out")])
    assert done.exit_code == 0, done.output
    row = _summary(tmp_path / "out")["results"][0]
    folders = {a["name"]: Path(a["log_dir"]) for a in row["actors"]}
    shots = {name: folder / "snapshot_screen.jpg" for name, folder in folders.items()}
    assert all(p.is_file() for p in shots.values()), shots  # the same name, each in its actor's folder
    assert shots["alice"].read_bytes() != shots["bob"].read_bytes()
    page = next((tmp_path / "out" / "reports").glob("trailblaze_report_*.html")).read_text(encoding="utf-8")
    assert "(not found)" not in page
    block = page[page.index("<div class=parallel"):]
    lanes = re.findall(r"<div class=lane data-actor='(\w+)'>(.*?)(?=<div class=lane data-actor=|</div></div></div>)",
                       block, re.S)
    assert [name for name, _ in lanes] == ["alice", "bob"]
    keys = {name: re.findall(r"data-shot=(\w+)", body) for name, body in lanes}
    assert len(keys["alice"]) == len(keys["bob"]) == 1 and keys["alice"] != keys["bob"], keys
    assert page.count("<span class=actor data-actor='alice'>") == 2
    assert page.count("<span class=actor data-actor='bob'>") == 1
