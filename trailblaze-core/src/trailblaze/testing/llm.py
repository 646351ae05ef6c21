"""A scripted LLM provider for tests: a real HTTP server on 127.0.0.1 that speaks OpenAI chat
completions and Anthropic messages, answering from a script.

The point is to test the *real* ``openai``/``anthropic`` clients, our wire translation, retries and
logging end to end, without a hosted model. Every request body is kept (raw bytes and parsed JSON), so a
test can assert what the agent sent, and that no secret ever left the process.

    with ScriptedLlmServer([call("web_click", ref="e3"), done()]) as server:
        server.openai_base_url      # http://127.0.0.1:PORT/v1      (chat completions: /v1/chat/completions)
        server.anthropic_base_url   # http://127.0.0.1:PORT         (messages: /v1/messages)
        ...
        assert server.requests[0].tool_names == [...]

Script entries are ``Reply`` objects, consumed one per request (any path that looks like a chat request,
including custom ``chat_completions_path`` ones); a callable ``script(request) -> Reply`` answers
dynamically; ``always(reply)`` repeats one reply forever. When the script runs out the server answers
HTTP 500 ``script exhausted``, which a test sees as a provider failure.

``latency_ms`` plays a hosted model's think time: the server sleeps that long before every answer (after
reading the request, outside its lock, so concurrent callers wait in parallel as they would on a real
provider). ``benchmarks/bench_agent_overhead.py`` uses it to separate the agent's own time from the
model's.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_REF = re.compile(r"\[([a-z0-9]+)\]")


@dataclass
class Reply:
    """One scripted answer: tool calls and/or text, or an HTTP error."""

    tool_calls: list[tuple[str, Any]] = field(default_factory=list)
    """``(name, args)``: args is a dict, or a raw string sent verbatim as the arguments JSON (OpenAI) to
    script malformed arguments."""
    text: str = ""
    status: int = 200
    error_message: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)
    input_tokens: int = 1000
    output_tokens: int = 50
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    """Anthropic's ``cache_creation_input_tokens`` (the OpenAI wire has no such field)."""


def call(name: str, /, **args: Any) -> Reply:
    """A reply that makes one tool call."""
    return Reply(tool_calls=[(name, args)])


def calls(*items: tuple[str, Any], text: str = "") -> Reply:
    """A reply with several tool calls: ``calls(("a", {...}), ("b", {...}))``."""
    return Reply(tool_calls=list(items), text=text)


def done(explanation: str = "done") -> Reply:
    return call("objectiveStatus", status="COMPLETED", explanation=explanation)


def give_up(explanation: str = "cannot do it") -> Reply:
    return call("objectiveStatus", status="FAILED", explanation=explanation)


def text_only(text: str) -> Reply:
    return Reply(text=text)


def http_error(status: int, message: str = "scripted error", retry_after: float | None = None) -> Reply:
    headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
    return Reply(status=status, error_message=message, headers=headers)


class always:  # lower-case on purpose: reads as a phrase, always(http_error(500))
    """A script that answers every request with the same reply."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply

    def __call__(self, request: "RecordedRequest") -> Reply:
        return self.reply


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    raw: bytes
    body: dict[str, Any]
    wire: str
    """``openai`` or ``anthropic``."""

    @property
    def tool_names(self) -> list[str]:
        tools = self.body.get("tools") or []
        if self.wire == "openai":
            return [t["function"]["name"] for t in tools]
        return [t["name"] for t in tools]

    @property
    def offered_tools(self) -> list[str]:
        """Every tool the model may call: those described in full (``tool_names``) and those the system
        text lists by name (fetched with ``toolDescriptor``, see ``trailblaze.agent.tool_offer``)."""
        names = [n for n in self.tool_names if n != "toolDescriptor"]
        listing = self.system_text().split("More tools, by name", 1)
        if len(listing) == 2:
            for line in listing[1].split("\n\n", 1)[0].splitlines()[1:]:
                if line.startswith("- ") and ":" in line:
                    names.append(line[2:].split(":", 1)[0])
        return names

    def system_text(self) -> str:
        """The system prompt (both wires)."""
        system = self.body.get("system")
        if system is None:
            for message in self.body.get("messages") or []:
                if message.get("role") == "system":
                    system = message.get("content")
                    break
        if isinstance(system, list):
            return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
        return str(system or "")

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")

    def last_user_text(self) -> str:
        """The text of the last user turn (the screen and the notes)."""
        for message in reversed(self.body.get("messages") or []):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, str):
                return content
            return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
        return ""

    @property
    def objective(self) -> str:
        """The first line of the first user turn: ``Step N of M: <the step's text>``."""
        for message in self.body.get("messages") or []:
            if message.get("role") == "user":
                content = message.get("content")
                text = content if isinstance(content, str) else "\n".join(
                    b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")
                return text.splitlines()[0] if text else ""
        return ""

    def ref_on_screen(self, label: str) -> str:
        """What a model does with the snapshot: the ``[ref]`` on the first line that mentions ``label``
        (``'button "Sign in"'``, ``'EditText "Email"'``). AssertionError when the screen has none."""
        screen = self.last_user_text()
        for text in self._user_texts_latest_first():
            for line in text.splitlines():
                if label in line and not line.startswith("- "):  # a diff's "- " line is gone from the screen
                    found = _REF.search(line)
                    if found:
                        return found.group(1)
        raise AssertionError(f"{label!r} is not on the screen:\n{screen[:2000]}")

    def _user_texts_latest_first(self) -> list[str]:
        """User turns, latest first: on big screens a turn shows only what changed, earlier turns the rest."""
        out = []
        for message in reversed(self.body.get("messages") or []):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            out.append(content if isinstance(content, str) else "\n".join(
                b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"))
        return out

    def tool_results(self) -> list[str]:
        """Every tool result in the conversation, in order (both wires)."""
        out: list[str] = []
        for message in self.body.get("messages") or []:
            if message.get("role") == "tool":
                out.append(str(message.get("content")))
            elif isinstance(message.get("content"), list):
                out.extend(str(b.get("content")) for b in message["content"]
                           if isinstance(b, dict) and b.get("type") == "tool_result")
        return out


Script = Iterable[Reply] | Callable[[RecordedRequest], Reply]


class ScriptedLlmServer:
    """See the module docstring. Use as a context manager, or ``start()``/``stop()``."""

    def __init__(self, script: Script, *, model_name: str = "scripted-model", latency_ms: int = 0) -> None:
        if latency_ms < 0:
            raise ValueError(f"latency_ms must be 0 or more, not {latency_ms}")
        self.latency_ms = latency_ms
        """How long every answer is held back (a real sleep in the server), in milliseconds."""
        self._callable: Callable[[RecordedRequest], Reply] | None = script if callable(script) else None
        self._queue: list[Reply] = [] if callable(script) else list(script)
        self.model_name = model_name
        self.requests: list[RecordedRequest] = []
        self.script_errors: list[str] = []
        """Exceptions the script raised (each answered as HTTP 400, which the agent does not retry)."""
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> "ScriptedLlmServer":
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes: with Nagle's algorithm the body waits for the
            # client's delayed ACK of the headers, ~40 ms per answer on loopback, all of it charged to
            # the agent by anything that times a call.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # silence the access log
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                server._handle(self, raw)

            def do_GET(self) -> None:
                self._send(404, {"error": {"message": "not found"}})

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="scripted-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "ScriptedLlmServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses ------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return int(self._server.server_address[1])

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.root_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.root_url

    # -- inspection -----------------------------------------------------------------------------
    def bodies_text(self) -> str:
        """Every request body received, concatenated (for 'this never left the process' checks)."""
        return "\n".join(r.text for r in self.requests)

    @property
    def remaining(self) -> int:
        return len(self._queue)

    def add(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    # -- answering ------------------------------------------------------------------------------
    def _handle(self, handler: Any, raw: bytes) -> None:
        path = handler.path.split("?", 1)[0]
        wire = "anthropic" if path.rstrip("/").endswith("/messages") else "openai"
        try:
            body = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, json.JSONDecodeError):
            handler._send(400, {"error": {"message": "request body is not JSON"}})
            return
        headers = {k.lower(): v for k, v in handler.headers.items()}
        request = RecordedRequest(path, headers, raw, body, wire)
        with self._lock:
            self.requests.append(request)
            try:
                if self._callable is not None:
                    reply: Reply | None = self._callable(request)
                else:
                    reply = self._queue.pop(0) if self._queue else None
            except Exception as exc:  # noqa: BLE001 - a broken script is answered, not a dead socket
                self.script_errors.append(f"{type(exc).__name__}: {exc}")
                handler._send(400, _error_payload(wire, 400, f"scripted model failed: {type(exc).__name__}: {exc}"))
                return
        if self.latency_ms:
            time.sleep(self.latency_ms / 1000)
        if reply is None:
            handler._send(500, _error_payload(wire, 500, "script exhausted: the test scripted fewer replies"))
            return
        if reply.status != 200:
            handler._send(reply.status, _error_payload(wire, reply.status, reply.error_message), reply.headers)
            return
        payload = _openai_reply(reply, self.model_name) if wire == "openai" else _anthropic_reply(reply, self.model_name)
        handler._send(200, payload, reply.headers)


def _error_payload(wire: str, status: int, message: str) -> dict[str, Any]:
    if wire == "anthropic":
        kind = {429: "rate_limit_error", 529: "overloaded_error", 401: "authentication_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": "server_error" if status >= 500 else "invalid_request_error",
                      "code": None}}


def _openai_reply(reply: Reply, model: str) -> dict[str, Any]:
    tool_calls = []
    for name, args in reply.tool_calls:
        arguments = args if isinstance(args, str) else json.dumps(args)
        tool_calls.append({"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                           "function": {"name": name, "arguments": arguments}})
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop",
                     "logprobs": None}],
        "usage": {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens,
                  "total_tokens": reply.input_tokens + reply.output_tokens,
                  "prompt_tokens_details": {"cached_tokens": reply.cached_input_tokens}},
    }


def _anthropic_reply(reply: Reply, model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for name, args in reply.tool_calls:
        if isinstance(args, str):
            with contextlib.suppress(json.JSONDecodeError):
                args = json.loads(args)  # unparsable text stays a string: a non-object input
        content.append({"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:12]}", "name": name, "input": args})
    return {
        "id": f"msg_{uuid.uuid4().hex[:12]}", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": "tool_use" if reply.tool_calls else "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": reply.input_tokens - reply.cached_input_tokens - reply.cache_write_tokens,
                  "output_tokens": reply.output_tokens, "cache_read_input_tokens": reply.cached_input_tokens,
                  "cache_creation_input_tokens": reply.cache_write_tokens},
    }


__all__ = ["RecordedRequest", "Reply", "ScriptedLlmServer", "always", "call", "calls", "done", "give_up",
           "http_error", "text_only"]
