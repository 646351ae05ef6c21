"""The chat server without a browser: its API's rules, and a stop that leaves no thread, port or
connection behind (a browser keeps idle connections open; stop must not wait for them)."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from trailblaze_example_chat.plugin import load_server_module

EXAMPLE = Path(__file__).resolve().parents[1]


def _call(url: str, method: str = "GET", body: Any = None, token: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json", **({"X-Chat-Token": token} if token else {})}
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - loopback only
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _sign_in(url: str, name: str) -> str:
    status, account = _call(url + "/api/sign-in", "POST", {"name": name})
    assert status == 201 and account["name"] == name.strip()
    return str(account["token"])


def test_the_api_keeps_a_room_to_its_two_members(chat_server: Any) -> None:
    url = chat_server.url
    alice, bob, carol = (_sign_in(url, n) for n in ("Alice", "Bob", " Carol "))
    assert _call(url + "/api/invitations", "POST", {}) == (401, {"error": "Sign in first"})
    status, invitation = _call(url + "/api/invitations", "POST", {}, alice)
    assert status == 201
    code, room = invitation["code"], invitation["room"]
    assert _call(url + "/api/join", "POST", {"code": "ZZZZZZ"}, bob) == (
        404, {"error": "No invitation has the code ZZZZZZ"})
    assert _call(url + "/api/join", "POST", {"code": f" {code.lower()} "}, bob) == (200, {"room": room})
    assert _call(url + "/api/join", "POST", {"code": code}, bob) == (200, {"room": room})  # again: still in
    assert _call(url + "/api/join", "POST", {"code": code}, carol) == (
        409, {"error": f"The invitation {code} was already used"})
    assert _call(f"{url}/api/rooms/{room}", token=carol) == (403, {"error": "You are not in this chat room"})
    assert _call(f"{url}/api/rooms/{room}/messages", "POST", {"text": " "}, bob) == (
        400, {"error": "Type a message first"})
    status, first = _call(f"{url}/api/rooms/{room}/messages", "POST", {"text": "hi Bob"}, alice)
    assert status == 201 and first["author"] == "Alice"
    _call(f"{url}/api/rooms/{room}/messages", "POST", {"text": "hi Alice"}, bob)
    status, seen = _call(f"{url}/api/rooms/{room}?after=0", token=bob)
    assert status == 200 and seen["members"] == ["Alice", "Bob"] and seen["code"] == code
    assert [(m["author"], m["text"]) for m in seen["messages"]] == [("Alice", "hi Bob"), ("Bob", "hi Alice")]
    status, newer = _call(f"{url}/api/rooms/{room}?after={first['id']}", token=alice)
    assert [m["text"] for m in newer["messages"]] == ["hi Alice"]  # what a poll asks for: only what is new


def test_stop_closes_the_port_and_joins_every_thread_even_with_an_idle_connection_open(port_open: Any,
                                                                                        server_threads: Any) -> None:
    server = load_server_module(EXAMPLE).ChatServer("127.0.0.1", port=0)
    url = server.start()
    assert server.start() == url and server.running  # starting again is the same server
    _sign_in(url, "Alice")
    idle = socket.create_connection(("127.0.0.1", urlparse(url).port or 0))  # as a browser's preconnect
    try:
        with urllib.request.urlopen(url + "/", timeout=10) as response:  # noqa: S310 - loopback only
            assert b"Sign in to Trail Chat" in response.read()
        assert len(server_threads(url)) >= 2  # the serving thread and the idle connection's
        server.stop()
        assert server_threads(url) == []
        assert not port_open(url)
        assert idle.recv(1) == b""  # the server hung up on it
    finally:
        idle.close()
    assert not server.running
    with pytest.raises(RuntimeError, match="not running"):
        server.url  # noqa: B018 - the property raises
    server.stop()  # twice is fine


def test_it_listens_on_loopback_only_and_stopping_forgets_everyone() -> None:
    module = load_server_module(EXAMPLE)
    with pytest.raises(ValueError, match="only listens on 127.0.0.1"):
        module.ChatServer("0.0.0.0")  # noqa: S104 - the address it refuses
    with module.ChatServer() as server:
        token = _sign_in(server.url, "Alice")
        port = urlparse(server.url).port
    with module.ChatServer(port=port or 0) as again:  # the same port is free again at once
        assert _call(again.url + "/api/invitations", "POST", {}, token)[0] == 401
