"""``TrailblazeClient``: what a Python tool server uses to call Trailblaze back.

Inside a tool handler::

    from mcp.server.mcpserver import MCPServer, Context
    from trailblaze_mcp_subprocess.client import TrailblazeClient

    @app.tool()
    async def shop_login(email: str, ctx: Context) -> str:
        tb = TrailblazeClient.from_context(ctx)          # reads _meta.trailblaze of *this* request
        await tb.call_tool("web_type", {"target": 'textbox "Email"', "text": email})
        return "logged in"

The client carries the invocation id of the request it was made from, so every call lands in the
session (and on the device) that called the tool, even when several devices share one server. It uses
only the standard library (no ``mcp`` import, no HTTP dependency): importable anywhere.

Calls are ``async`` (they run the HTTP request on a worker thread so a server's event loop stays free
to answer other requests, including nested calls back into the same server); ``*_sync`` variants exist
for synchronous handlers.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

CALLBACK_PATH = "/scripting/callback"
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""Callbacks go to Trailblaze on loopback: never through an ``http_proxy`` from the environment."""


class TrailblazeCallbackError(RuntimeError):
    """Trailblaze refused or failed a callback (``result.type == "error"``, or a failed tool)."""

    def __init__(self, message: str, *, code: int | None = None, result: CallResult | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.result = result


@dataclass(frozen=True)
class CallResult:
    success: bool
    text: str = ""
    error: str = ""
    structured: Any = None

    @property
    def value(self) -> Any:
        """Structured content when there is some, else the text (what the TS SDK's typed facade returns)."""
        return self.structured if self.structured is not None else self.text


@dataclass
class TrailblazeClient:
    """A callback client bound to one tool invocation."""

    base_url: str
    invocation_id: str
    callback_token: str = field(default="", repr=False)
    """The invocation's secret (``_meta.trailblaze.callbackToken``): Trailblaze refuses callbacks without it."""
    session_id: str | None = None
    device: dict[str, Any] = field(default_factory=dict)
    memory: dict[str, str] = field(default_factory=dict)
    target: dict[str, Any] | None = None
    timeout: float = 122.0

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_context(cls, ctx: Any) -> TrailblazeClient:
        """From an MCP server request context (``mcp`` ``Context``), its ``_meta`` dict, or the
        ``trailblaze`` envelope itself."""
        return cls.from_meta(_meta_of(ctx))

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any] | None) -> TrailblazeClient:
        meta = dict(meta or {})
        envelope = meta.get("trailblaze") if isinstance(meta.get("trailblaze"), Mapping) else meta
        envelope = dict(envelope or {})
        invocation = envelope.get("invocationId") or meta.get("trailblazeInvocationId")
        base_url = envelope.get("baseUrl") or os.environ.get("TRAILBLAZE_BASE_URL")
        if not invocation or not base_url:
            raise TrailblazeCallbackError(
                "this request carries no Trailblaze invocation context (_meta.trailblaze with baseUrl and "
                "invocationId): was the tool called by Trailblaze?")
        timeout_ms = os.environ.get("TRAILBLAZE_CLIENT_FETCH_TIMEOUT_MS")
        timeout = int(timeout_ms) / 1000 if timeout_ms and timeout_ms.isdigit() else 122.0
        return cls(base_url=str(base_url).rstrip("/"), invocation_id=str(invocation),
                   callback_token=str(envelope.get("callbackToken") or ""),
                   session_id=envelope.get("sessionId"), device=dict(envelope.get("device") or {}),
                   memory=dict(envelope.get("memory") or {}), target=envelope.get("target"), timeout=timeout)

    # -- calls --------------------------------------------------------------------------------
    def call_tool_sync(self, name: str, args: Mapping[str, Any] | None = None, *, check: bool = True) -> CallResult:
        """Run a Trailblaze tool in the calling session; raises on refusal, and on failure if ``check``."""
        body: dict[str, Any] = {"version": 1, "invocation_id": self.invocation_id,
                                "callback_token": self.callback_token,
                                "action": {"type": "call_tool", "tool_name": name,
                                           "arguments_json": json.dumps(dict(args or {}))}}
        if self.session_id:
            body["session_id"] = self.session_id
        answer = self._post(body)
        result = answer.get("result") if isinstance(answer, dict) else None
        if not isinstance(result, dict) or result.get("type") == "error":
            message = (result or {}).get("message") if isinstance(result, dict) else None
            error = answer.get("error") if isinstance(answer, dict) else None
            code = error.get("code") if isinstance(error, dict) else None
            raise TrailblazeCallbackError(message or f"unexpected callback answer: {answer!r}", code=code)
        out = CallResult(bool(result.get("success")), str(result.get("text_content") or ""),
                         str(result.get("error_message") or ""), result.get("structured_content"))
        if check and not out.success:
            raise TrailblazeCallbackError(f"tool '{name}' failed: {out.error or out.text}", result=out)
        return out

    async def call_tool(self, name: str, args: Mapping[str, Any] | None = None, *, check: bool = True) -> CallResult:
        result: CallResult = await _in_thread(lambda: self.call_tool_sync(name, args, check=check))
        return result

    def _post(self, body: dict[str, Any]) -> Any:
        data = json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.base_url + CALLBACK_PATH, data=data, method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with _OPENER.open(request, timeout=self.timeout) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            try:
                payload = json.loads(exc.read())
                message = payload["result"]["message"]
            except (ValueError, KeyError, TypeError):
                message = str(exc)
            raise TrailblazeCallbackError(f"callback refused (HTTP {exc.code}): {message}") from None
        except urllib.error.URLError as exc:
            raise TrailblazeCallbackError(f"cannot reach Trailblaze at {self.base_url}: {exc.reason}") from None

    # -- typed helpers (read-only queries and memory) --------------------------------------------
    @property
    def platform(self) -> str:
        return str(self.device.get("platform", ""))

    async def snapshot(self, screen_name: str = "tool") -> str:
        """The current screen as text (web: ``web_snapshot``; Android/iOS: ``takeSnapshot``)."""
        return (await self.call_tool(self._snapshot_tool(), {"screenName": screen_name})).text

    def snapshot_sync(self, screen_name: str = "tool") -> str:
        return self.call_tool_sync(self._snapshot_tool(), {"screenName": screen_name}).text

    def _snapshot_tool(self) -> str:
        platform = self.platform.lower()
        if platform == "web":
            return "web_snapshot"
        if platform in ("android", "ios"):
            return "takeSnapshot"
        raise TrailblazeCallbackError(f"no snapshot on platform '{platform or 'unknown'}' (this session has no screen)")

    async def dump_memory(self) -> dict[str, str]:
        """The session's memory now (secrets left out)."""
        value = (await self.call_tool("dumpMemory")).structured
        return dict(value) if isinstance(value, dict) else {}

    def dump_memory_sync(self) -> dict[str, str]:
        value = self.call_tool_sync("dumpMemory").structured
        return dict(value) if isinstance(value, dict) else {}

    async def remember(self, variable: str, value: str) -> None:
        await self.call_tool("rememberValue", {"variable": variable, "value": value})

    def remember_sync(self, variable: str, value: str) -> None:
        self.call_tool_sync("rememberValue", {"variable": variable, "value": value})


async def _in_thread(fn: Any) -> Any:
    """Run ``fn`` on a thread of its own. Not the default executor: nested callbacks (a tool calling a tool
    that calls back) each hold a thread while they wait, and a small shared pool would deadlock."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if future.cancelled():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def work() -> None:
        try:
            value = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            loop.call_soon_threadsafe(settle, False, exc)
        else:
            loop.call_soon_threadsafe(settle, True, value)

    threading.Thread(target=work, name="trailblaze-client-call", daemon=True).start()
    return await future


def _meta_of(ctx: Any) -> Mapping[str, Any] | None:
    if ctx is None or isinstance(ctx, Mapping):
        return ctx
    request_context = getattr(ctx, "request_context", None)
    meta = getattr(request_context, "meta", None) if request_context is not None else getattr(ctx, "meta", None)
    if meta is None:
        return None
    if isinstance(meta, Mapping):
        return meta
    if hasattr(meta, "model_dump"):  # mcp 1.x: a pydantic Meta with extra fields
        dumped: dict[str, Any] = meta.model_dump(by_alias=True)
        return dumped
    return dict(getattr(meta, "__dict__", {}))


def memory_result(text: str = "", *, delta: Mapping[str, str] | None = None,
                  deletions: list[str] | None = None) -> dict[str, Any]:
    """The ``_meta`` of a result that writes memory: ``{"trailblaze": {"memoryDelta", "memoryDeletions"}}``."""
    block: dict[str, Any] = {}
    if delta:
        block["memoryDelta"] = dict(delta)
    if deletions:
        block["memoryDeletions"] = list(deletions)
    return {"trailblaze": block}


__all__ = ["CallResult", "TrailblazeCallbackError", "TrailblazeClient", "memory_result"]
