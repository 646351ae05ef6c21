"""Serve the example web shop (``app/`` beside this file) on 127.0.0.1. Standard library only.

In Python::

    with ShopServer() as shop:          # a free port
        print(shop.url)                 # http://127.0.0.1:54321

From a shell, to click around (Ctrl-C stops it)::

    python examples/web-shop/server.py [--port 8000]

Static files only: ``/`` is the sign-in page, ``/products`` also serves ``products.html``, anything
else that is not a file under ``app/`` is a 404. Responses carry ``Cache-Control: no-store`` and
requests are not logged.

A *peer origin* serves the same files from a second loopback port (``peer=True``, the default), so
the account pages can hold a cross-origin iframe, as a real app embeds a partner's widget. A page
learns the other origin from the one generated file, ``/peer-origin.js``
(``window.SHOP_PEER_ORIGIN = "http://127.0.0.1:<port>"``, or ``null`` without a peer).
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Self
from urllib.parse import unquote

__all__ = ["APP_ROOT", "ShopServer", "main"]

APP_ROOT = Path(__file__).resolve().parent / "app"
LOOPBACK = "127.0.0.1"
PEER_SCRIPT = "/peer-origin.js"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
}

NOT_FOUND_PAGE = (
    b'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head>'
    b'<body><main><h1>Page not found</h1><p><a href="/">Go to the sign-in page</a></p></main></body></html>'
)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "TrailblazeShop/1.0"
    sys_version = ""

    def do_GET(self) -> None:
        self._serve(send_body=True)

    def do_HEAD(self) -> None:
        self._serve(send_body=False)

    def _serve(self, *, send_body: bool) -> None:
        if self.path.split("?", 1)[0] == PEER_SCRIPT:
            origin = json.dumps(self.server.peer_origin)
            body = f"window.SHOP_PEER_ORIGIN = {origin};\n".encode()
            self._respond(HTTPStatus.OK, CONTENT_TYPES[".js"], body, send_body)
            return
        path = self.server.resolve(self.path)
        if path is None:
            self._respond(HTTPStatus.NOT_FOUND, "text/html; charset=utf-8", NOT_FOUND_PAGE, send_body)
            return
        try:
            body = path.read_bytes()
        except OSError:
            self._respond(HTTPStatus.NOT_FOUND, "text/html; charset=utf-8", NOT_FOUND_PAGE, send_body)
            return
        content_type = CONTENT_TYPES.get(path.suffix.lower(), "application/octet-stream")
        self._respond(HTTPStatus.OK, content_type, body, send_body)

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


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], root: Path) -> None:
        self.root = root.resolve()
        self.peer_origin: str | None = None
        """The other origin serving the same files (``/peer-origin.js`` tells pages), if any."""
        super().__init__(address, _Handler)

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
            candidate = candidate.with_name(candidate.name + ".html")  # /products -> products.html
        return candidate if candidate.is_file() else None

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError, socket.timeout)):
            return  # the browser went away mid-response: not worth a traceback
        super().handle_error(request, client_address)


class ShopServer:
    """The example shop on ``127.0.0.1``, in a daemon thread.

    ``port=0`` picks a free port; :meth:`start` returns the base URL (no trailing slash). With ``peer``
    (the default) a second server on another free port serves the same files as a different origin,
    :attr:`peer_url`; each tells its pages the other's address through ``/peer-origin.js``.
    """

    def __init__(self, host: str = LOOPBACK, port: int = 0, root: Path | None = None, *, peer: bool = True) -> None:
        if host not in (LOOPBACK, "localhost"):
            raise ValueError(f"the example shop only listens on {LOOPBACK}, not {host!r}")
        self._host = LOOPBACK
        self._port = port
        self._root = Path(root) if root is not None else APP_ROOT
        if not (self._root / "index.html").is_file():
            raise FileNotFoundError(f"no index.html in the shop root {self._root}")
        self._peer = peer
        self._servers: list[tuple[_Server, threading.Thread]] = []
        self._url: str | None = None
        self._peer_url: str | None = None
        self._lock = threading.Lock()

    def start(self) -> str:
        """Bind, serve in a daemon thread and return the base URL, e.g. ``http://127.0.0.1:54321``.

        Starting a running server returns its URL again. Raises :class:`OSError` if the port is taken.
        """
        with self._lock:
            if self._servers and self._url is not None:
                return self._url
            main = self._serve(self._port)
            self._servers = [main]
            self._url = f"http://{self._host}:{main[0].server_address[1]}"
            if self._peer:
                try:
                    peer = self._serve(0)
                except OSError:
                    self._stop_all()
                    raise
                self._servers.append(peer)
                self._peer_url = f"http://{self._host}:{peer[0].server_address[1]}"
                main[0].peer_origin, peer[0].peer_origin = self._peer_url, self._url
            return self._url

    def _serve(self, port: int) -> tuple[_Server, threading.Thread]:
        server = _Server((self._host, port), self._root)
        bound = server.server_address[1]
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                                  name=f"web-shop-{bound}", daemon=True)
        thread.start()
        return server, thread

    def stop(self) -> None:
        """Stop serving (the peer too) and close the sockets. Safe to call more than once, or before
        :meth:`start`."""
        with self._lock:
            self._stop_all()

    def _stop_all(self) -> None:
        servers, self._servers = self._servers, []
        self._url = self._peer_url = None
        for server, thread in servers:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)

    @property
    def url(self) -> str:
        """The base URL while running; :class:`RuntimeError` before :meth:`start` or after :meth:`stop`."""
        if self._url is None:
            raise RuntimeError("the shop server is not running; call start() first")
        return self._url

    @property
    def peer_url(self) -> str | None:
        """The peer origin's base URL while running with ``peer``; None without one."""
        if self._url is None:
            raise RuntimeError("the shop server is not running; call start() first")
        return self._peer_url

    @property
    def running(self) -> bool:
        return bool(self._servers)

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
        state = self._url or "stopped"
        return f"ShopServer({state}, root={str(self._root)!r})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the Trailblaze example web shop on 127.0.0.1.")
    parser.add_argument(
        "--port", type=int, default=8000, help="port to listen on (0: any free port; default 8000)"
    )
    args = parser.parse_args(argv)

    server = ShopServer(port=args.port)
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
    print(f"Web shop running at {url}/ (its peer origin, for the account pages' partner frame: "
          f"{server.peer_url}/)", flush=True)
    print("Sign in with any email containing '@' and the password secret123. Ctrl-C stops.", flush=True)
    try:
        while not stopping.wait(0.5):
            pass
    finally:
        server.stop()
    print("Stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
