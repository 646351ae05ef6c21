"""Keeping ``trailblaze mcp --http`` available to its real client when others hold connections open.

uvicorn has no deadline for reading a request: a connection that sends half a request line and then
nothing stays open for ever, holding a file descriptor. A few hundred of them (no token needed: the
token is checked once a request is complete) starved the server, and every ``accept()`` that then failed
with EMFILE logged a traceback — millions of lines. Three guards, all inside this process:

* a **request-read deadline**: a request (headers and body) must arrive within ``REQUEST_READ_TIMEOUT_S``
  of the connection opening or of the previous response; otherwise the connection is closed;
* a **cap on connections still sending their request** (``MAX_PENDING``): when a new one would exceed
  it, the one that has waited longest is closed, so a newcomer — the real client — always gets in;
* **rate-limited logging** for the server's and the event loop's repeated errors.

And one for shutdown (SIGTERM, Ctrl-C): a client's last message (a cancellation, a session DELETE) that
arrives while the server closes its sessions made the MCP SDK log a ``ClosedResourceError`` traceback and
then try a second response on a finished one (uvicorn's "Exception in ASGI application"). A session
stream that is closed only means the session is gone: that is logged at debug level, and a response
that is complete stays complete (``ResponseOnce``).

Only imported by ``serve_http`` (it imports uvicorn and h11).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import time
from collections import OrderedDict
from typing import Any

import anyio
import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

REQUEST_READ_TIMEOUT_S = 10.0
MAX_PENDING = 32
MAX_CONNECTIONS = 128
"""uvicorn's ``limit_concurrency``: beyond it a request gets 503 (pending ones are capped lower)."""
LOG_INTERVAL_S = 10.0


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a request-read deadline and a cap on connections mid-request."""

    pending: "OrderedDict[GuardedH11Protocol, float]" = OrderedDict()
    """Connections (all of this process's) whose current request has not fully arrived, oldest first."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_request()
        while len(self.pending) > MAX_PENDING:
            oldest = next(iter(self.pending))
            oldest._give_up("too many connections still sending their request")

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
            self._request_arrived()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_request()  # the next request on this keep-alive connection has the same deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._request_arrived()
        super().connection_lost(exc)

    def _await_request(self) -> None:
        self._request_arrived()
        self.pending[self] = time.monotonic()
        self._deadline = self.loop.call_later(REQUEST_READ_TIMEOUT_S, self._give_up,
                                              f"no complete request within {REQUEST_READ_TIMEOUT_S:g} s")

    def _request_arrived(self) -> None:
        self.pending.pop(self, None)
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _give_up(self, reason: str) -> None:
        self._request_arrived()
        if self.transport is not None and not self.transport.is_closing():
            self.logger.info("closing a connection from %s: %s", self.client, reason)
            self.transport.close()


_RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


class RateLimited(logging.Filter):
    """Lets one record per message template through every ``interval`` seconds and says how many it held
    back, so a failure repeated in a tight loop cannot flood stderr. Running out of file descriptors (a
    flood of connections: the event loop retries ``accept`` by itself) is one line, not a traceback."""

    def __init__(self, interval: float = LOG_INTERVAL_S) -> None:
        super().__init__()
        self.interval = interval
        self._last: dict[tuple[str, Any], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg).split("\n", 1)[0])
        now = time.monotonic()
        last, held = self._last.get(key, (float("-inf"), 0))
        if now - last < self.interval:
            self._last[key] = (last, held + 1)
            return False
        self._last[key] = (now, 0)
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, OSError) and exc.errno in _RESOURCE_ERRNOS:
            record.msg = f"{str(record.msg).splitlines()[0]}: {exc.strerror} (retrying)"
            record.args, record.exc_info, record.exc_text = None, None, None
        if held:
            record.msg = f"{record.msg} (and {held} more like it in the last {now - last:.0f} s)"
        return True


class SessionGone(logging.Filter):
    """Records whose exception says a session stream is closed go to debug level: the session ended."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, anyio.ClosedResourceError | anyio.BrokenResourceError | anyio.EndOfStream):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            record.exc_info, record.exc_text = None, None
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


class ResponseOnce:
    """ASGI middleware: once a response is complete, later messages for it are dropped instead of
    raising in the server (the SDK answers a second time when a session closes under a request)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        done = False

        async def send_once(message: dict[str, Any]) -> None:
            nonlocal done
            if done:
                return
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                done = True
            await send(message)

        await self.app(scope, receive, send_once)


def install_log_limits() -> None:
    """Rate-limit the loggers that repeat themselves under load (uvicorn's and the event loop's), and
    keep a closed session's streams out of the error log."""
    for name in ("asyncio", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RateLimited) for f in logger.filters):
            logger.addFilter(RateLimited())
    for name in ("mcp.server.streamable_http", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, SessionGone) for f in logger.filters):
            logger.addFilter(SessionGone())


__all__ = ["GuardedH11Protocol", "MAX_CONNECTIONS", "MAX_PENDING", "REQUEST_READ_TIMEOUT_S", "RateLimited",
           "ResponseOnce", "SessionGone", "install_log_limits"]
