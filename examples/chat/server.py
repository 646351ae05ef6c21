"""Serve the example two-user chat (``app/`` beside this file) on 127.0.0.1. Standard library only.

In Python::

    with ChatServer() as chat:          # a free port
        print(chat.url)                 # http://127.0.0.1:54321

From a shell, to chat with yourself in two browser tabs (each tab signs in on its own; Ctrl-C stops it)::

    python examples/chat/server.py [--port 8001]

The pages are static files; what they share lives in memory here (:class:`ChatStore`) and goes away
with the server. The JSON API the pages call, each request but sign-in carrying ``X-Chat-Token``:

* ``POST /api/sign-in`` ``{"name"}`` → ``{"token", "name"}``
* ``POST /api/invitations`` → ``{"code", "room"}``: a new room, and the code that lets one person in
* ``POST /api/join`` ``{"code"}`` → ``{"room"}``
* ``GET /api/rooms/<room>?after=<id>`` → ``{"members", "messages"}`` (messages newer than ``after``)
* ``POST /api/rooms/<room>/messages`` ``{"text"}`` → the message

Errors answer ``{"error": "<one sentence for the page to show>"}`` with a 4xx status. Requests are not
logged, responses carry ``Cache-Control: no-store``, and stopping closes every open connection and
joins every thread the server started, so nothing outlives :meth:`ChatServer.stop`.
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import signal
import socket
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, unquote, urlsplit

__all__ = ["APP_ROOT", "ChatError", "ChatServer", "ChatStore", "main"]

APP_ROOT = Path(__file__).resolve().parent / "app"
LOOPBACK = "127.0.0.1"
MAX_NAME = 40
MAX_TEXT = 500
MAX_BODY = 16 * 1024
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I: codes are read aloud and retyped
CODE_LENGTH = 6
ROOM_SIZE = 2

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
}

NOT_FOUND_PAGE = (
    b'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head>'
    b'<body><main><h1>Page not found</h1><p><a href="/">Go to the sign-in page</a></p></main></body></html>'
)


class ChatError(Exception):
    """A request the store refuses; ``status`` is the HTTP answer, the message is shown on the page."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


class _Room:
    __slots__ = ("code", "id", "members", "messages")

    def __init__(self, room_id: str, code: str, inviter: str) -> None:
        self.id = room_id
        self.code = code
        self.members = [inviter]
        """The members' tokens, the inviter first."""
        self.messages: list[dict[str, Any]] = []


class ChatStore:
    """Users, invitations, rooms and messages, in memory, safe to use from many request threads.

    A user is a token (two people may pick the same name); a room holds at most two members, the one
    who created its invitation and the first to join with the code.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._names: dict[str, str] = {}
        self._rooms: dict[str, _Room] = {}
        self._codes: dict[str, str] = {}
        self._next_message = 1

    def sign_in(self, name: object) -> dict[str, str]:
        if not isinstance(name, str) or not name.strip():
            raise ChatError(HTTPStatus.BAD_REQUEST, "Enter your name to sign in")
        clean = " ".join(name.split())
        if len(clean) > MAX_NAME:
            raise ChatError(HTTPStatus.BAD_REQUEST, f"A name has at most {MAX_NAME} characters")
        token = secrets.token_urlsafe(18)
        with self._lock:
            self._names[token] = clean
        return {"token": token, "name": clean}

    def name_of(self, token: str | None) -> str:
        with self._lock:
            name = self._names.get(token or "")
        if name is None:
            raise ChatError(HTTPStatus.UNAUTHORIZED, "Sign in first")
        return name

    def invite(self, token: str | None) -> dict[str, str]:
        self.name_of(token)
        with self._lock:
            code = self._new_code()
            room = _Room(secrets.token_hex(6), code, str(token))
            self._rooms[room.id] = room
            self._codes[code] = room.id
        return {"code": code, "room": room.id}

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self._codes:
                return code

    def join(self, token: str | None, code: object) -> dict[str, str]:
        self.name_of(token)
        wanted = code.strip().upper() if isinstance(code, str) else ""
        if not wanted:
            raise ChatError(HTTPStatus.BAD_REQUEST, "Enter the invitation code you were given")
        with self._lock:
            room = self._rooms.get(self._codes.get(wanted, ""))
            if room is None:
                raise ChatError(HTTPStatus.NOT_FOUND, f"No invitation has the code {wanted}")
            if token not in room.members:
                if len(room.members) >= ROOM_SIZE:
                    raise ChatError(HTTPStatus.CONFLICT, f"The invitation {wanted} was already used")
                room.members.append(str(token))
        return {"room": room.id}

    def read(self, token: str | None, room_id: str, after: int = 0) -> dict[str, Any]:
        self.name_of(token)
        with self._lock:
            room = self._member_room(token, room_id)
            return {"code": room.code, "members": [self._names[t] for t in room.members],
                    "messages": [m for m in room.messages if m["id"] > after]}

    def post(self, token: str | None, room_id: str, text: object) -> dict[str, Any]:
        name = self.name_of(token)
        clean = text.strip() if isinstance(text, str) else ""
        if not clean:
            raise ChatError(HTTPStatus.BAD_REQUEST, "Type a message first")
        if len(clean) > MAX_TEXT:
            raise ChatError(HTTPStatus.BAD_REQUEST, f"A message has at most {MAX_TEXT} characters")
        with self._lock:
            room = self._member_room(token, room_id)
            message = {"id": self._next_message, "author": name, "text": clean}
            self._next_message += 1
            room.messages.append(message)
        return message

    def _member_room(self, token: str | None, room_id: str) -> _Room:
        room = self._rooms.get(room_id)
        if room is None:
            raise ChatError(HTTPStatus.NOT_FOUND, "This chat room does not exist")
        if token not in room.members:
            raise ChatError(HTTPStatus.FORBIDDEN, "You are not in this chat room")
        return room


_ROOM_PATH = re.compile(r"^/api/rooms/([0-9a-f]{1,32})(/messages)?$")


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "TrailblazeChat/1.0"
    sys_version = ""
    timeout = 30  # an idle connection the browser opened ahead of time ends on its own (stop() also closes it)

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path.startswith("/api/"):
            match = _ROOM_PATH.match(parts.path)
            if match is None or match.group(2):
                self._json(HTTPStatus.NOT_FOUND, {"error": "No such API"})
                return
            after = parse_qs(parts.query).get("after", ["0"])[0]
            self._api(lambda token: self.server.store.read(token, match.group(1), int(after) if after.isdigit() else 0))
            return
        self._static(send_body=True)

    def do_HEAD(self) -> None:
        self._static(send_body=False)

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        body = self._body()
        if body is None:
            return
        store = self.server.store
        match = _ROOM_PATH.match(path)
        if path == "/api/sign-in":
            self._api(lambda token: store.sign_in(body.get("name")), status=HTTPStatus.CREATED)
        elif path == "/api/invitations":
            self._api(store.invite, status=HTTPStatus.CREATED)
        elif path == "/api/join":
            self._api(lambda token: store.join(token, body.get("code")))
        elif match is not None and match.group(2):
            self._api(lambda token: store.post(token, match.group(1), body.get("text")), status=HTTPStatus.CREATED)
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": "No such API"})

    def _body(self) -> dict[str, Any] | None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self._json(HTTPStatus.BAD_REQUEST, {"error": "The request body is missing or too large"})
            return None
        raw = self.rfile.read(length) if length else b"{}"
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            data = None
        if not isinstance(data, dict):
            self._json(HTTPStatus.BAD_REQUEST, {"error": "The request body is not a JSON object"})
            return None
        return data

    def _api(self, answer: Any, status: HTTPStatus = HTTPStatus.OK) -> None:
        try:
            data = answer(self.headers.get("X-Chat-Token"))
        except ChatError as exc:
            self._json(exc.status, {"error": str(exc)})
            return
        self._json(status, data)

    def _json(self, status: HTTPStatus, data: Any) -> None:
        self._respond(status, CONTENT_TYPES[".json"], json.dumps(data).encode(), send_body=True)

    def _static(self, *, send_body: bool) -> None:
        path = self.server.resolve(self.path)
        body = None
        if path is not None:
            try:
                body = path.read_bytes()
            except OSError:
                body = None
        if path is None or body is None:
            self._respond(HTTPStatus.NOT_FOUND, CONTENT_TYPES[".html"], NOT_FOUND_PAGE, send_body)
            return
        self._respond(HTTPStatus.OK, CONTENT_TYPES.get(path.suffix.lower(), "application/octet-stream"), body,
                      send_body)

    def _respond(self, status: HTTPStatus, content_type: str, body: bytes, send_body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: tests and trails print their own output


class _Server(HTTPServer):
    """One thread per connection, like ``ThreadingHTTPServer``, but it keeps each connection and its
    thread, so :meth:`close` can cut the connections a browser left open and join every thread."""

    def __init__(self, address: tuple[str, int], root: Path, store: ChatStore) -> None:
        self.root = root.resolve()
        self.store = store
        self._connections: dict[socket.socket, threading.Thread] = {}
        self._connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(target=self._handle, args=(request, client_address), daemon=True,
                                  name=f"chat-server-{self.server_address[1]}-request")
        with self._connections_lock:
            self._connections[request] = thread
        thread.start()

    def _handle(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:  # noqa: BLE001 - socketserver's own contract: report, then close the connection
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.pop(request, None)
        super().shutdown_request(request)

    def close(self) -> None:
        """After ``shutdown()``: cut the open connections, join their threads, close the listening socket."""
        with self._connections_lock:
            open_now = list(self._connections.items())
        for connection, _ in open_now:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by its thread
        for _, thread in open_now:
            thread.join(timeout=5)
        self.server_close()

    def resolve(self, raw_path: str) -> Path | None:
        """The file under ``root`` a request path names, or None (outside the root, a directory, missing)."""
        path = unquote(raw_path.split("?", 1)[0].split("#", 1)[0])
        if "\x00" in path:
            return None
        if path.endswith("/"):
            path += "index.html"
        candidate = (self.root / path.lstrip("/")).resolve()
        if not candidate.is_relative_to(self.root):
            return None
        if not candidate.is_file() and not candidate.suffix:
            candidate = candidate.with_name(candidate.name + ".html")  # /room -> room.html
        return candidate if candidate.is_file() else None

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError):
            return  # the browser went away, or stop() cut the connection: not worth a traceback
        super().handle_error(request, client_address)


class ChatServer:
    """The example chat on ``127.0.0.1``, served from a daemon thread, with its own :class:`ChatStore`.

    ``port=0`` picks a free port; :meth:`start` returns the base URL (no trailing slash). :meth:`stop`
    forgets every user, room and message.
    """

    def __init__(self, host: str = LOOPBACK, port: int = 0, root: Path | None = None) -> None:
        if host not in (LOOPBACK, "localhost"):
            raise ValueError(f"the example chat only listens on {LOOPBACK}, not {host!r}")
        self._host = LOOPBACK
        self._port = port
        self._root = Path(root) if root is not None else APP_ROOT
        if not (self._root / "index.html").is_file():
            raise FileNotFoundError(f"no index.html in the chat app root {self._root}")
        self._running: tuple[_Server, threading.Thread] | None = None
        self._lock = threading.Lock()

    def start(self) -> str:
        """Bind, serve in a daemon thread and return the base URL, e.g. ``http://127.0.0.1:54321``.

        Starting a running server returns its URL again. Raises :class:`OSError` if the port is taken.
        """
        with self._lock:
            if self._running is None:
                server = _Server((self._host, self._port), self._root, ChatStore())
                thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                                          name=f"chat-server-{server.server_address[1]}", daemon=True)
                thread.start()
                self._running = (server, thread)
            return self._url(self._running[0])

    def _url(self, server: _Server) -> str:
        return f"http://{self._host}:{server.server_address[1]}"

    def stop(self) -> None:
        """Stop serving, close every connection and join every thread the server started. Safe to call
        more than once, or before :meth:`start`."""
        with self._lock:
            running, self._running = self._running, None
            if running is None:
                return
            server, thread = running
            server.shutdown()
            thread.join(timeout=5)
            server.close()

    @property
    def url(self) -> str:
        """The base URL while running; :class:`RuntimeError` before :meth:`start` or after :meth:`stop`."""
        running = self._running
        if running is None:
            raise RuntimeError("the chat server is not running; call start() first")
        return self._url(running[0])

    @property
    def running(self) -> bool:
        return self._running is not None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        running = self._running
        state = self._url(running[0]) if running is not None else "stopped"
        return f"ChatServer({state}, root={str(self._root)!r})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the Trailblaze example chat on 127.0.0.1.")
    parser.add_argument(
        "--port", type=int, default=8001, help="port to listen on (0: any free port; default 8001)"
    )
    args = parser.parse_args(argv)

    server = ChatServer(port=args.port)
    try:
        url = server.start()
    except OSError as exc:
        print(f"server.py: cannot listen on {LOOPBACK}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1

    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    print(f"Chat running at {url}/ - open it in two browser tabs to chat with yourself (each tab signs in "
          "on its own). Ctrl-C stops.", flush=True)
    try:
        while not stopping.wait(0.5):
            pass
    finally:
        server.stop()
    print("Stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
