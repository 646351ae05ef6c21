"""The callback channel: a tool server asks Trailblaze to run a tool while its own call is running.

``POST {baseUrl}/scripting/callback`` on a loopback-only HTTP server (upstream §6.3). Every local
process can reach a loopback port, so a request must prove it comes from the tool server Trailblaze
called: it names the *invocation* (``_meta.trailblaze.invocationId``) and carries that invocation's
``callback_token`` (``_meta.trailblaze.callbackToken``), an unguessable secret made for this one
tool call, compared in constant time and forgotten when the call ends. There is no fallback without
it, and a refusal never echoes an invocation id, a session id or which of the two was wrong, so a
stranger learns nothing by probing.

The invocation finds the session, device and depth, so two devices sharing one tool server each get
their own callbacks. Host-only tools (``requiresHost``: ``exec``, ``android_adbShell``...) are refused
over callbacks unless the server's declaration lists them in ``allowHostCallbacks``.

One server per Trailblaze process, started with the first session that has tool servers and stopped
with the last, so tests leave no port behind. Each request runs on its own thread and goes through the
session's normal dispatcher (``ToolContext.call_tool``), one level deeper than the calling tool, up to
a depth of 16, on the thread that made the call (which waits for the call and runs its callbacks
meanwhile): drivers such as Playwright's answer only on the thread that opened them.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import os
import queue
import secrets
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, TypeVar

from trailblaze import ToolContext, TrailblazeError, session_of

from .loop import Turns
from .spawn import callback_timeout_ms

if TYPE_CHECKING:
    from trailblaze import Session

    from .loop import LoopThread

T = TypeVar("T")

CALLBACK_PATH = "/scripting/callback"
MAX_BODY_BYTES = 1024 * 1024
DEFAULT_MAX_DEPTH = 16
INVALID_PARAMS = -32602


def max_depth() -> int:
    raw = os.environ.get("TRAILBLAZE_CALLBACK_MAX_DEPTH")
    try:
        return int(raw) if raw else DEFAULT_MAX_DEPTH
    except ValueError:
        return DEFAULT_MAX_DEPTH


def is_loopback(host: str) -> bool:
    """Whether a peer address is loopback (127.0.0.0/8, ::1, or IPv4-mapped loopback)."""
    try:
        addr = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return addr.is_loopback


TOKEN_KEY = "callback_token"
"""The request body key of the per-invocation secret (``callbackToken`` in ``_meta.trailblaze``)."""
REFUSED = ("callback refused: no running tool call matches this invocation_id and callback_token "
           "(the call may have completed or timed out; both come from _meta.trailblaze of the call)")
MISSING = ("callback refused: it needs the 'invocation_id' and 'callback_token' of the running tool call "
           "(_meta.trailblaze.invocationId and _meta.trailblaze.callbackToken)")


@dataclass
class Invocation:
    """One running tool call that may call back."""

    id: str
    session: Session
    ctx: ToolContext
    tool: str
    server: str
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)
    allow_host: frozenset[str] = frozenset()
    lock: threading.Lock = field(default_factory=threading.Lock)
    callbacks: int = 0
    jobs: queue.SimpleQueue[Callable[[], None]] = field(default_factory=queue.SimpleQueue, repr=False)
    """Callbacks waiting to run on the thread that made the call (see ``call_with_callbacks``)."""
    ended: bool = False
    on_job: Callable[[], None] | None = field(default=None, repr=False)
    """Wakes the thread that made the call when a callback is queued (set while the call runs)."""

    def post(self, job: Callable[[], None]) -> None:
        """Queue ``job`` for the calling thread and wake it."""
        self.jobs.put(job)
        wake = self.on_job
        if wake is not None:
            try:
                wake()
            except RuntimeError:  # the loop closed meanwhile: the call is over, ``ended`` refuses the rest
                pass


def call_with_callbacks(loop: LoopThread, inv: Invocation, call: Coroutine[Any, Any, T]) -> T:
    """Run the tool call ``call`` on the session's loop, driven from this thread (``LoopThread.advance``:
    no thread hop per call, and the call is the drive's own task), and ``inv``'s callbacks on this thread
    too — the one that called the tool, which owns the driver (a Playwright page answers only on the
    thread that opened it). A callback ends the current turn; it runs here, outside the loop (it may call
    tools of the same loop), and the next turn resumes the call until it is done. Exceptions of the call
    propagate; an interrupted call is cancelled."""
    turns = Turns(call)
    inv.on_job = turns.interrupt
    try:
        while True:
            if not inv.jobs.empty():
                _run_jobs(inv)
            if turns.done:
                break
            loop.advance(turns)
    except BaseException:
        turns.cancel(loop.loop)
        raise
    finally:
        inv.on_job = None
        with inv.lock:
            inv.ended = True
    _run_jobs(inv)  # a callback queued while the call was finishing: run it rather than leave it waiting
    return turns.result()


def _run_jobs(inv: Invocation) -> None:
    jobs = inv.jobs
    while not jobs.empty():  # after every call, usually empty: no ``queue.Empty`` raised and caught each time
        try:
            job = jobs.get_nowait()
        except queue.Empty:  # only this thread takes jobs, but stay safe
            return
        job()


def unknown_invocation() -> dict[str, Any]:
    """The one answer for an unknown id, a finished call and a wrong token alike (no oracle, no ids)."""
    return error_body(REFUSED, code=INVALID_PARAMS)


_DUMMY_TOKEN = secrets.token_urlsafe(32)


def error_body(message: str, *, code: int | None = None) -> dict[str, Any]:
    """``{"result": {"type": "error", ...}}`` (§6.3), plus a JSON-RPC-style ``error`` when there is a code."""
    body: dict[str, Any] = {"result": {"type": "error", "message": message}}
    if code is not None:
        body["error"] = {"code": code, "message": message}
    return body


class CallbackHub:
    """Invocation table + the HTTP server. Use the process-wide ``hub()``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._refs = 0
        self._invocations: dict[str, Invocation] = {}
        self.base_url: str | None = None

    # -- lifetime -----------------------------------------------------------------------------
    def acquire(self) -> str:
        """Start the server if needed; returns its base URL (``http://127.0.0.1:<port>``)."""
        with self._lock:
            self._refs += 1
            if self._server is None:
                server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
                server.daemon_threads = True
                server.hub = self  # type: ignore[attr-defined]
                self._server = server
                self.base_url = f"http://127.0.0.1:{server.server_address[1]}"
                self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                                                name="trailblaze-mcp-callbacks", daemon=True)
                self._thread.start()
            assert self.base_url is not None
            return self.base_url

    def release(self) -> None:
        with self._lock:
            self._refs = max(0, self._refs - 1)
            if self._refs or self._server is None:
                return
            server, thread = self._server, self._thread
            self._server = self._thread = None
            self.base_url = None
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join(5)

    @property
    def running(self) -> bool:
        return self._server is not None

    # -- invocations --------------------------------------------------------------------------
    def open(self, ctx: ToolContext, tool: str, server: str,
             allow_host: frozenset[str] = frozenset()) -> Invocation:
        # One read of the OS's randomness for both (what ``secrets.token_hex``/``token_urlsafe`` would each
        # read): the id (8 bytes, hex) is not secret, the token (32 bytes, URL-safe base64) is.
        raw = os.urandom(40)
        inv = Invocation(id="inv-" + raw[:8].hex(), session=session_of(ctx), ctx=ctx, tool=tool,
                         server=server,
                         token=base64.urlsafe_b64encode(raw[8:]).rstrip(b"=").decode("ascii"), allow_host=allow_host)
        with self._lock:
            self._invocations[inv.id] = inv
        return inv

    def close(self, inv: Invocation) -> None:
        with self._lock:
            self._invocations.pop(inv.id, None)

    def get(self, invocation_id: str) -> Invocation | None:
        with self._lock:
            return self._invocations.get(invocation_id)

    # -- one request --------------------------------------------------------------------------
    def handle(self, payload: Any) -> dict[str, Any]:
        """Answer a parsed callback request body (status 200 from here on)."""
        if not isinstance(payload, dict):
            return error_body("callback body must be a JSON object")
        inv_id = payload.get("invocation_id", payload.get("invocationId"))
        token = payload.get(TOKEN_KEY, payload.get("callbackToken"))
        if not isinstance(inv_id, str) or not inv_id or not isinstance(token, str) or not token:
            return error_body(MISSING, code=INVALID_PARAMS)
        inv = self.get(inv_id)
        # Compare against a dummy when the id is unknown, so both refusals take the same path.
        expected = inv.token if inv is not None else _DUMMY_TOKEN
        if not secrets.compare_digest(token.encode("utf-8"), expected.encode("utf-8")) or inv is None:
            return unknown_invocation()
        session_id = payload.get("session_id", payload.get("sessionId"))
        if session_id is not None and session_id != inv.session.id:
            return error_body("callback refused: session_id does not match the session of the running tool call",
                              code=INVALID_PARAMS)
        version = payload.get("version", 1)
        if version != 1:
            return error_body(f"unsupported callback version {version!r} (this Trailblaze speaks 1)")
        action = payload.get("action")
        if not isinstance(action, dict):
            return error_body("callback needs an 'action' object")
        if action.get("type") != "call_tool":
            return error_body(f"unsupported action type {action.get('type')!r} (supported: call_tool)")
        name = action.get("tool_name", action.get("toolName"))
        if not isinstance(name, str) or not name:
            return error_body("action needs a 'tool_name'")
        raw_args = action.get("arguments_json", action.get("argumentsJson", "{}"))
        if isinstance(raw_args, str):
            try:
                args = json.loads(raw_args) if raw_args.strip() else {}
            except ValueError as exc:
                return error_body(f"arguments_json is not valid JSON: {exc}")
        elif isinstance(raw_args, dict):
            args = raw_args
        else:
            return error_body("arguments_json must be a JSON string")
        if not isinstance(args, dict):
            return error_body("arguments_json must encode a JSON object")
        definition = inv.session.registry.get(name)
        if definition is not None and definition.requires_host and name not in inv.allow_host:
            return error_body(f"callback refused: '{name}' runs on the host (requiresHost) and tool servers may not "
                              f"call it back unless their declaration allows it (allowHostCallbacks: [{name}])")
        depth = inv.ctx.depth + 1
        limit = max_depth()
        if depth > limit:
            return error_body(f"callback depth cap reached ({limit}): {' -> '.join((*inv.ctx.chain, inv.tool, name))}")
        return self._dispatch(inv, name, args, depth)

    def _dispatch(self, inv: Invocation, name: str, args: dict[str, Any], depth: int) -> dict[str, Any]:
        child = ToolContext(inv.session, depth=depth, chain=(*inv.ctx.chain, inv.tool),
                            step_index=inv.ctx.step_index, invocation_id=inv.id, extras=inv.ctx.extras)
        box: dict[str, Any] = {}
        done = threading.Event()

        def run() -> None:
            try:
                inv.callbacks += 1  # one callback at a time per invocation: they run on the calling thread
                box["result"] = child.call_tool(name, args)
            except TrailblazeError as exc:
                box["error"] = str(exc)
            except Exception as exc:  # noqa: BLE001 - reported to the tool, which decides
                box["error"] = f"{type(exc).__name__}: {exc}"
            finally:
                done.set()

        with inv.lock:
            ended = inv.ended
        if ended:
            return error_body("callback refused: the tool call it belongs to has already returned")
        inv.post(run)
        timeout = callback_timeout_ms() / 1000
        if not done.wait(timeout):
            return error_body(f"callback '{name}' timed out after {timeout:g}s")
        if "error" in box:
            return error_body(box["error"])
        result = box["result"]
        message = result.message or ""
        return {"result": {"type": "call_tool_result", "success": bool(result.success),
                           "text_content": message if result.success else "",
                           "error_message": "" if result.success else message,
                           "structured_content": _jsonable(result.data)}}


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool, list, dict)):
        try:
            json.dumps(value)
            return value
        except (TypeError, ValueError):
            pass
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return str(value)


class _Handler(BaseHTTPRequestHandler):
    server_version = "trailblaze-callbacks/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.close_connection = True
        self._send(405, error_body(f"use POST {CALLBACK_PATH}"))

    def do_POST(self) -> None:
        hub: CallbackHub = self.server.hub  # type: ignore[attr-defined]
        peer = str(self.client_address[0])
        if not is_loopback(peer):
            self.close_connection = True
            self._send(403, error_body(f"callbacks are accepted from loopback only, not from {peer}"))
            return
        if self.path.split("?", 1)[0] != CALLBACK_PATH:
            self.close_connection = True
            self._send(404, error_body(f"not found: {self.path} (the callback endpoint is {CALLBACK_PATH})"))
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self.close_connection = True
            self._send(411, error_body("Content-Length is required"))
            return
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            # Read (and drop) a moderately oversized body first: replying and closing while the client is
            # still sending makes it see a broken pipe instead of the 413.
            if length <= 4 * MAX_BODY_BYTES:
                remaining = length
                while remaining > 0:
                    chunk = self.rfile.read(min(remaining, 65536))
                    if not chunk:
                        break
                    remaining -= len(chunk)
            self._send(413, error_body(f"callback body too large: {length} bytes (limit {MAX_BODY_BYTES})"))
            return
        body = self.rfile.read(length)
        try:
            payload = json.loads(body)
        except ValueError as exc:
            self._send(400, error_body(f"callback body is not valid JSON: {exc}"))
            return
        self._send(200, hub.handle(payload))


_HUB = CallbackHub()


def hub() -> CallbackHub:
    return _HUB
