"""The recorder's test pages on two loopback origins: ``http://127.0.0.1:P`` (the app) and
``http://localhost:Q`` (a partner site, cross-origin and cross-site, so a headed Chromium puts its iframe
in another process). ``{{OTHER_ORIGIN}}`` in a page is the partner's origin.

    python serve_recorder_pages.py        # prints both origins, serves until interrupted
"""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

PAGES = Path(__file__).resolve().parent


class _Handler(http.server.SimpleHTTPRequestHandler):
    other_origin = ""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = PAGES / self.path.split("?")[0].lstrip("/")
        if path.suffix != ".html" or not path.is_file() or path.parent != PAGES:
            self.send_error(404)
            return
        body = path.read_text().replace("{{OTHER_ORIGIN}}", self.other_origin).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
        pass


@contextlib.contextmanager
def serve_pages() -> Iterator[tuple[str, str]]:
    """(app origin, partner origin), each served by its own thread until the block ends."""
    servers: list[http.server.ThreadingHTTPServer] = []
    handlers: list[type[_Handler]] = []
    try:
        for _ in range(2):
            handler = type("Handler", (_Handler,), {})
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(PAGES)))
            threading.Thread(target=server.serve_forever, daemon=True).start()
            servers.append(server)
            handlers.append(handler)
        app = f"http://127.0.0.1:{servers[0].server_address[1]}"
        partner = f"http://localhost:{servers[1].server_address[1]}"
        handlers[0].other_origin, handlers[1].other_origin = partner, app
        yield app, partner
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    with serve_pages() as (app_origin, partner_origin):
        print(app_origin, partner_origin, flush=True)
        threading.Event().wait()
