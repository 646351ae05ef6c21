"""The example plugin through the one session lifecycle: every session of the chat workspace (every actor
of a trail) gets the same server, which stops when the last of them finishes."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from trailblaze.config import load_workspace
from trailblaze.testing import host_with_plugins, open_session
from trailblaze_example_chat.plugin import MEMORY_KEY, SERVERS, SharedServers

EXAMPLE = Path(__file__).resolve().parents[1]


def test_the_actors_sessions_share_one_server_and_the_last_one_stops_it(tmp_path: Path, port_open: Any) -> None:
    host = host_with_plugins("chat")
    workspace = load_workspace(EXAMPLE, host)
    with open_session(host, root=tmp_path, workspace=workspace, session_id="alice") as alice:
        url = str(alice.memory.get(MEMORY_KEY))
        assert url.startswith("http://127.0.0.1:") and port_open(url)
        with open_session(host, root=tmp_path, workspace=workspace, session_id="bob") as bob:
            assert bob.memory.get(MEMORY_KEY) == url  # the same chat, so they can meet
            assert SERVERS.holders(EXAMPLE) == 2
        assert SERVERS.holders(EXAMPLE) == 1 and port_open(url)  # Alice is still in it
    assert SERVERS.holders(EXAMPLE) == 0 and not port_open(url)
    with open_session(host, root=tmp_path, workspace=workspace, session_id="next") as later:
        assert later.memory.get(MEMORY_KEY) != url  # the next trail: a fresh server


def test_a_session_of_another_workspace_starts_nothing(tmp_path: Path) -> None:
    host = host_with_plugins("chat")
    with open_session(host, root=tmp_path, session_id="elsewhere") as session:
        assert MEMORY_KEY not in session.memory.snapshot()


def test_actors_starting_at_the_same_time_get_one_server(port_open: Any) -> None:
    # Actor sessions may be opened from several threads at once: still one server, stopped by the last.
    servers = SharedServers()
    start = threading.Barrier(4)
    urls: list[str] = []

    def actor() -> None:
        start.wait()
        urls.append(servers.acquire(EXAMPLE))

    threads = [threading.Thread(target=actor) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(urls) == 4 and len(set(urls)) == 1 and servers.holders(EXAMPLE) == 4
    for _ in range(3):
        servers.release(EXAMPLE)
    assert port_open(urls[0])
    servers.release(EXAMPLE)
    assert servers.holders(EXAMPLE) == 0 and not port_open(urls[0])
    servers.release(EXAMPLE)  # one release too many is harmless
