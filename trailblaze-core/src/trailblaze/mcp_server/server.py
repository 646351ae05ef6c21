"""The MCP side of ``trailblaze mcp``: tools, resources, notifications and the two transports.

This is the one module of the feature that imports the ``mcp`` SDK (2.x, low-level ``Server``: the
tool list is computed per request from the connected device, which the decorator API cannot express).
Tool handlers hand their work to the ``Workbench``'s device thread and await it, so the protocol keeps
flowing (progress, logging, cancellation) while a browser or phone works.

Session tools follow upstream's names (``device``, ``step``, ``trail``, ``toolbox``; upper-case enum
actions); every tool of the connected device's toolbox is offered directly beside them, and
``notifications/tools/list_changed`` is sent whenever connecting or disconnecting changes that list.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import hmac
import json
import logging
import threading
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPDeprecationWarning

from .._version import __version__
from ..errors import TrailblazeError
from ..runner.interrupt import RunInterrupted
from ..untrusted import valid_data
from .workbench import PLATFORM_ACTIONS, SESSION_TOOLS, Outcome, Workbench

SERVER_NAME = "Trailblaze MCP server"
STEP_META_KEY = "trailblaze/step"
"""A direct tool call's ``_meta`` key naming the step it belongs to (calls with the same text group)."""
PROGRESS_POLL_S = 0.25

Ctx = ServerRequestContext[Any, Any]

INSTRUCTIONS = """\
Trailblaze drives a browser (web), an Android or iOS device (Appium) and records what you do as a
replayable trail. Typical loop: `device` {"action": "WEB"} → `snapshot` → act with the device's tools
(e.g. web_click {"ref": "e12"}; refs come from the latest snapshot) or `step` {"objective": "..."} →
`verify` → `trail` {"action": "SAVE", "file": "trails/my-flow.trail.yaml"}. The saved file replays with
`trailblaze run` and no model. Secrets are never shown: write {{name}} for a secret the server was
started with (--secret name=...). Give a direct tool call a step text with _meta {"trailblaze/step": "..."};
consecutive calls with the same text become one step."""

_DEVICE_ACTIONS = ["LIST", "CONNECT", "WEB", "ANDROID", "IOS", "HOST", "INFO", "DISCONNECT"]
_TRAIL_ACTIONS = ["START", "SAVE", "RUN", "LIST", "END"]
_TOOL_LIST = {"type": "array", "items": {"type": "object"},
              "description": "Tool calls to run directly instead of asking the model, as in a trail's recording: "
                             "[{\"web_click\": {\"ref\": \"e12\"}}, {\"web_type\": {\"ref\": \"e5\", \"text\": \"hi\"}}]."}

SESSION_TOOL_SPECS: list[dict[str, Any]] = [
    {"name": "device", "description": (
        "Connect, inspect or list devices. LIST: installed drivers and the connected device. WEB / ANDROID / "
        "IOS / HOST: connect a device of that platform (ends the connected one; the tool list changes). "
        "CONNECT: connect by 'driver' (e.g. playwright-native, android-appium-uiautomator2) or 'deviceId' "
        "(android/emulator-5554). INFO: the connected device. DISCONNECT: end it (browser/app session closed)."),
     "inputSchema": {"type": "object", "properties": {
         "action": {"type": "string", "enum": _DEVICE_ACTIONS, "description": "What to do (default LIST)."},
         "driver": {"type": "string", "description": "Driver key or upstream name, for CONNECT."},
         "deviceId": {"type": "string", "description": "PLATFORM/ID or an instance id, as `trailblaze run -d`."},
         "options": {"type": "object", "description": "Driver settings, as `-o` (e.g. {\"viewport\": \"390x844\"})."}},
         "required": ["action"]}},
    {"name": "snapshot", "description": (
        "What is on the screen now: compact text with refs ([e12]) to pass to the device's tools. Take a new one "
        "after the screen changes; refs of older snapshots go stale."),
     "inputSchema": {"type": "object", "properties": {
         "screenshot": {"type": "boolean", "description": "Also return a screenshot image."},
         "detail": {"type": "array", "items": {"type": "string", "enum": ["bounds", "offscreen", "urls", "all"]},
                    "description": "Extra detail, as `trailblaze snapshot --bounds/--offscreen/--urls/--all`."}}}},
    {"name": "step", "description": (
        "One step of the trail. With 'tools', those calls run directly (no model). Without, the objective is "
        "solved by Trailblaze's agent with the configured model. Either way the calls that ran are recorded "
        "under the objective's text; consecutive calls with the same text form one step."),
     "inputSchema": {"type": "object", "properties": {
         "objective": {"type": "string", "description": "The step in natural language, as it will read in the trail."},
         "tools": _TOOL_LIST}, "required": ["objective"]}},
    {"name": "verify", "description": (
        "Check a statement about the screen. With 'tools' (verification tools such as web_verifyTextVisible) "
        "they run directly; without, the agent checks it with verification tools only. Recorded as a verify step."),
     "inputSchema": {"type": "object", "properties": {
         "assertion": {"type": "string", "description": "What must be true, in natural language."},
         "tools": _TOOL_LIST}, "required": ["assertion"]}},
    {"name": "trail", "description": (
        "The trail being recorded. START: begin a new one (optional 'name'; unsaved steps are dropped). SAVE: write "
        "the recorded steps to 'file' (created with a config naming this device's driver, or appended to, keeping "
        "its comments). RUN: run 'file' like `trailblaze run` on a fresh device, no model needed for recorded steps. "
        "LIST: trails in the workspace. END: drop the unsaved steps."),
     "inputSchema": {"type": "object", "properties": {
         "action": {"type": "string", "enum": _TRAIL_ACTIONS},
         "name": {"type": "string", "description": "Title of the trail (START)."},
         "file": {"type": "string", "description": "NAME.trail.yaml, relative to the workspace root (SAVE, RUN)."}},
         "required": ["action"]}},
    {"name": "toolbox", "description": (
        "Search every tool of the workspace for the connected driver (all drivers when none is connected), with "
        "its source: plugin, YAML file or MCP server."),
     "inputSchema": {"type": "object", "properties": {
         "search": {"type": "string", "description": "Only tools whose name or description contains this."},
         "all": {"type": "boolean", "description": "Include tools hidden from models (recording-only)."}}}},
]
assert [s["name"] for s in SESSION_TOOL_SPECS] == list(SESSION_TOOLS)

RESOURCES: list[dict[str, str]] = [
    {"uri": "trailblaze://registry", "name": "registry", "mimeType": "application/json",
     "description": "Every tool of the workspace with its groups (toolsets), flags and source."},
    {"uri": "trailblaze://trails", "name": "trails", "mimeType": "application/json",
     "description": "The trail files of the workspace."},
    {"uri": "trailblaze://devices", "name": "devices", "mimeType": "application/json",
     "description": "Installed drivers and the connected device."},
    {"uri": "trailblaze://snapshot", "name": "snapshot", "mimeType": "text/plain",
     "description": "The last snapshot taken (the 'snapshot' tool)."},
    {"uri": "trailblaze://recording", "name": "recording", "mimeType": "application/json",
     "description": "The steps recorded and not saved yet."},
    {"uri": "trailblaze://failures", "name": "failures", "mimeType": "application/json",
     "description": "The prompt for the latest failure of each trail in the run history: trail file and line, "
                    "step, recording, error, screen, last pass, what to do (trailblaze results TRAIL --prompt)."},
]


class TrailblazeServer(Server[Any]):
    """Announces ``listChanged`` for tools and resources on every transport (the HTTP session manager
    builds its initialize result from the defaults)."""

    def create_initialization_options(self, notification_options: NotificationOptions | None = None,
                                      experimental_capabilities: dict[str, dict[str, Any]] | None = None,
                                      extensions: dict[str, dict[str, Any]] | None = None) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True, resources_changed=True),
            experimental_capabilities, extensions)


class Handlers:
    """The request handlers, bound to one workbench."""

    def __init__(self, workbench: Workbench) -> None:
        self.wb = workbench
        self._log = logging.getLogger("trailblaze.mcp")

    # -- helpers ------------------------------------------------------------------------------------
    def _redact(self, value: Any) -> Any:
        """Every answer passes here: secrets out, and valid Unicode (a page's lone surrogate must not make
        the transport's encoder raise and end the server)."""
        return valid_data(self.wb.redactor(value))

    async def _on_device(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.wrap_future(self.wb.submit(fn, *args, **kwargs))

    async def _in_new_thread(self, fn: Callable[..., Any], /, *args: Any) -> Any:
        """Run ``fn`` on a thread of its own, started from a clean context. Not ``asyncio.to_thread``: it
        copies this task's context into the thread, and Playwright's sync API (a trail RUN starts a
        browser) then runs its own event loop under that context and corrupts the server's task state."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def target() -> None:
            if not future.set_running_or_notify_cancel():
                return  # cancelled before it started
            try:
                future.set_result(fn(*args))
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting handler
                future.set_exception(exc)

        thread = threading.Thread(target=target, name="trailblaze-mcp-worker", daemon=True)
        thread.start()
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            # The client cancelled (or the server is stopping): a trail RUN must not go on to its end.
            # The worker gets the interruption a Ctrl-C gives `trailblaze run`: the running trail ends as
            # cancelled through its cleanup paths (browser closed, servers stopped).
            if thread.is_alive() and thread.ident is not None:
                interrupt_thread(thread.ident)
            raise

    async def _notify_log(self, ctx: Ctx, level: types.LoggingLevel, text: str) -> None:
        text = str(self._redact(text))
        self._log.info(text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            try:
                await ctx.session.send_log_message(level, text, logger="trailblaze", related_request_id=ctx.request_id)
            except Exception:  # noqa: BLE001 - a client gone mid-call must not turn a result into an error
                pass

    def _tool_names(self) -> set[str]:
        return {d["name"] for d in self.wb.tool_descriptors}

    async def _tools_changed(self, ctx: Ctx, before: set[str], *, changed: bool = False) -> bool:
        """Send ``notifications/tools/list_changed`` when the offered tools differ from ``before``."""
        after = self._tool_names()
        if after == before and not changed:
            return False
        await ctx.session.send_notification(types.ToolListChangedNotification(), related_request_id=ctx.request_id)
        await self._notify_log(ctx, "info", f"tools changed: {len(after - before)} added, {len(before - after)} removed")
        return True

    def _result(self, text: str, data: Any = None, *, error: bool = False,
                extra: list[types.TextContent | types.ImageContent] | None = None) -> types.CallToolResult:
        content: list[Any] = [types.TextContent(type="text", text=str(self._redact(text)))]
        content.extend(extra or [])
        structured = self._redact(data) if isinstance(data, dict) else ({"result": self._redact(data)} if data is not None
                                                                        else None)
        return types.CallToolResult(content=content, structured_content=structured, is_error=error)

    def _outcome(self, outcome: Outcome) -> types.CallToolResult:
        lines = [outcome.message or ("ok" if outcome.success else "failed")]
        if outcome.step is not None and outcome.recorded:
            calls = "; ".join(json.dumps(c.to_yaml(), ensure_ascii=False) for c in outcome.recorded)
            lines.append(f"recorded in {outcome.step.kind} \"{outcome.step.text}\": {calls}")
        return self._result("\n".join(lines), outcome.to_json(), error=not outcome.success)

    # -- tools/list and tools/call -------------------------------------------------------------------
    async def list_tools(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        tools = [types.Tool.model_validate(spec) for spec in SESSION_TOOL_SPECS]
        for d in list(self.wb.tool_descriptors):
            tools.append(types.Tool.model_validate(d))
        return types.ListToolsResult(tools=tools)

    async def call_tool(self, ctx: Ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = dict(params.arguments or {})
        meta: dict[str, Any] = dict(params.meta or {})
        try:
            if params.name in SESSION_TOOLS:
                handler: Callable[[Ctx, dict[str, Any]], Awaitable[types.CallToolResult]] = getattr(self, f"_{params.name}")
                return await handler(ctx, args)
            step = meta.get(STEP_META_KEY)
            before = self._tool_names()
            outcome = await self._on_device(self.wb.call_tool, params.name, args,
                                            step_text=step if isinstance(step, str) and step.strip() else None)
            await self._notify_log(ctx, "info" if outcome.success else "warning",
                                   f"{params.name}: {outcome.message.splitlines()[0] if outcome.message else ''}")
            if outcome.tools_changed:
                await self._tools_changed(ctx, before, changed=True)
            return self._outcome(outcome)
        except TrailblazeError as exc:
            text = exc.message + (f" ({exc.hint})" if exc.hint else "")
            return self._result(f"error: {text}", {"success": False, "error": type(exc).__name__, "message": text},
                                error=True)
        except Exception as exc:  # noqa: BLE001 - a bug is one error result, never a dead server
            self._log.exception("tool %s failed", params.name)
            return self._result(f"internal error: {type(exc).__name__}: {exc}", error=True)

    async def _device(self, ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        action = str(args.get("action") or "LIST").upper()
        # Describing the device asks the driver, and a driver is only ever used from the device thread.
        if action == "LIST":
            document = await self._on_device(self.wb.devices_document)
            return self._result(json.dumps(document, indent=2), document)
        if action == "INFO":
            info = await self._on_device(self.wb.device_info)
            return self._result(json.dumps(info, indent=2) if info else "no device is connected", {"connected": info})
        before = self._tool_names()
        if action == "DISCONNECT":
            problems = await self._on_device(self.wb.disconnect)
            await self._tools_changed(ctx, before)
            return self._result("disconnected" + "".join(f"\n! {p}" for p in problems), {"problems": problems})
        if action not in PLATFORM_ACTIONS and action != "CONNECT":
            return self._result(f"error: unknown action {action!r}; one of {', '.join(_DEVICE_ACTIONS)}", error=True)
        platform = PLATFORM_ACTIONS.get(action)
        options = args.get("options")
        if options is not None and not isinstance(options, dict):
            return self._result("error: 'options' must be an object of driver settings", error=True)
        await ctx.session.report_progress(0, 1, f"starting {platform or args.get('driver') or 'the device'}")
        info = await self._on_device(self.wb.connect, platform=platform, driver=args.get("driver") or None,
                                     device_id=args.get("deviceId") or None, options=options)
        await ctx.session.report_progress(1, 1, "connected")
        await self._notify_log(ctx, "info", f"connected {info['driver']} ({info['classifier']})")
        await self._tools_changed(ctx, before)
        count = len(self.wb.tool_descriptors)
        return self._result(f"connected {info['driver']} · {info.get('screen') or info['platform']} · "
                            f"{count} device tools offered (recording under classifier '{info['classifier']}')", info)

    async def _snapshot(self, ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        detail = frozenset(str(d) for d in args.get("detail") or [])
        text, png = await self._on_device(self.wb.snapshot, detail, bool(args.get("screenshot")))
        extra: list[Any] = []
        if png:
            mime = "image/jpeg" if png.startswith(b"\xff\xd8") else "image/png"
            extra.append(types.ImageContent(type="image", data=base64.b64encode(png).decode("ascii"), mime_type=mime))
        return self._result(text, None, extra=extra)

    async def _step(self, ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        return await self._step_or_verify(ctx, "step", args.get("objective"), args.get("tools"))

    async def _verify(self, ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        return await self._step_or_verify(ctx, "verify", args.get("assertion"), args.get("tools"))

    async def _step_or_verify(self, ctx: Ctx, kind: str, text: Any, tools: Any) -> types.CallToolResult:
        text = text if isinstance(text, str) else ""
        before = self._tool_names()
        if tools is not None:
            if not isinstance(tools, list):
                return self._result("error: 'tools' must be a list of {toolName: {args}}", error=True)
            outcome: Outcome = await self._on_device(self.wb.run_tools, text, kind, tools)
        else:
            outcome = await self._solve_with_progress(ctx, kind, text)
        await self._notify_log(ctx, "info" if outcome.success else "warning", f"{kind} {text!r}: {outcome.message}")
        if outcome.tools_changed:
            await self._tools_changed(ctx, before, changed=True)
        return self._outcome(outcome)

    async def _solve_with_progress(self, ctx: Ctx, kind: str, text: str) -> Outcome:
        """The agent can take minutes: tell the client about every call it makes while it works."""
        future = asyncio.wrap_future(self.wb.submit(self.wb.solve, text, kind))
        connected = self.wb.connected
        seen = len(connected.session.executed) if connected is not None else 0
        done = 0
        while True:
            finished, _ = await asyncio.wait({future}, timeout=PROGRESS_POLL_S)
            if connected is not None:
                executed = connected.session.executed
                while seen < len(executed):
                    call = executed[seen]
                    seen += 1
                    if call.depth == 0:
                        done += 1
                        note = f"{call.authored.name} {'ok' if call.success else 'failed'}"
                        await ctx.session.report_progress(done, None, str(self._redact(note)))
                        await self._notify_log(ctx, "info", f"agent: {note}")
            if finished:
                result: Outcome = future.result()
                return result

    async def _trail(self, ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        action = str(args.get("action") or "").upper()
        file = args.get("file") if isinstance(args.get("file"), str) else None
        if action == "START":
            return self._result(await self._on_device(self.wb.start_trail, args.get("name") or None))
        if action == "END":
            return self._result(await self._on_device(self.wb.end_trail))
        if action == "LIST":
            trails = await self._in_new_thread(self.wb.list_trails)
            return self._result("\n".join(t["file"] for t in trails) or "no trails in this workspace", {"trails": trails})
        if action == "SAVE":
            saved = await self._on_device(self.wb.save_trail, file)
            verb = "created" if saved["created"] else "appended to"
            await self._notify_log(ctx, "info", f"trail saved: {saved['file']}")
            return self._result(f"{verb} {saved['file']}: {saved['steps']} step{'s' if saved['steps'] != 1 else ''}; "
                                f"replay it with `trailblaze run {saved['file']}`", saved)
        if action == "RUN":
            if not file:
                return self._result("error: RUN needs 'file'", error=True)
            await ctx.session.report_progress(0, 1, f"running {file}")
            ran = await self._in_new_thread(self.wb.run_trail, file)
            await ctx.session.report_progress(1, 1, "done")
            return self._result(ran["output"] or f"exit code {ran['exitCode']}", ran, error=not ran["passed"])
        return self._result(f"error: unknown action {action!r}; one of {', '.join(_TRAIL_ACTIONS)}", error=True)

    async def _toolbox(self, ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        search = args.get("search") if isinstance(args.get("search"), str) else None
        entries = await self._in_new_thread(self.wb.toolbox, search, bool(args.get("all")))
        lines = [f"{e['name']} — {e['source']}" + (f"\n    {e['description'].strip().splitlines()[0][:110]}"
                                                  if (e['description'] or '').strip() else "") for e in entries]
        return self._result("\n".join(lines) or "no tools match", {"tools": entries})

    # -- resources ----------------------------------------------------------------------------------
    async def list_resources(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource.model_validate(r) for r in RESOURCES])

    async def read_resource(self, ctx: Ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri == "trailblaze://registry":
            body: Any = self.wb.registry_document()
        elif uri == "trailblaze://trails":
            body = {"trails": await self._in_new_thread(self.wb.list_trails)}
        elif uri == "trailblaze://devices":
            body = await self._on_device(self.wb.devices_document)
        elif uri == "trailblaze://failures":
            body = {"failures": await self._in_new_thread(self.wb.failure_prompts)}
        elif uri == "trailblaze://recording":
            body = {"name": self.wb.trail_name, "steps": [s.to_json() for s in list(self.wb.steps)]}
        elif uri == "trailblaze://snapshot":
            text = self.wb.last_snapshot or "(no snapshot taken yet: call the 'snapshot' tool)"
            return types.ReadResourceResult(contents=[types.TextResourceContents(
                uri=uri, mime_type="text/plain", text=str(self._redact(text)))])
        else:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=-32002, message=f"unknown resource {uri}")
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, mime_type="application/json", text=json.dumps(self._redact(body), indent=2, default=str))])

    async def set_level(self, ctx: Ctx, params: types.SetLevelRequestParams) -> types.EmptyResult:
        return types.EmptyResult()


class ClientCancelled(RunInterrupted):
    """Raised in a worker thread whose request the MCP client cancelled."""

    def __init__(self, signal_name: str = "the MCP client's cancellation") -> None:
        super().__init__(signal_name)


def interrupt_thread(ident: int) -> None:
    """Raise ``ClientCancelled`` in thread ``ident`` at its next Python instruction."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(ClientCancelled))


def build_server(workbench: Workbench) -> TrailblazeServer:
    handlers = Handlers(workbench)
    with warnings.catch_warnings():
        # Logging is deprecated for 2026-07-28 connections, but today's clients speak the handshake era
        # and show server logs: keep announcing it.
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        return TrailblazeServer(
            SERVER_NAME, version=__version__, instructions=INSTRUCTIONS,
            on_list_tools=handlers.list_tools, on_call_tool=handlers.call_tool,
            on_list_resources=handlers.list_resources, on_read_resource=handlers.read_resource,
            on_set_logging_level=handlers.set_level)


# -- transports -------------------------------------------------------------------------------------
async def serve_stdio(workbench: Workbench) -> None:
    """Serve one client on stdin/stdout until it closes them (or dies)."""
    from mcp.server.stdio import stdio_server

    server = build_server(workbench)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``.

    Binding to 127.0.0.1 keeps other machines out, not other local users or a web page's fetches;
    the per-invocation token does (project rule: every local endpoint authenticates its callers)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            got = b""
            for key, value in scope.get("headers") or []:
                if key.lower() == b"authorization":
                    got = value
                    break
            scheme, _, credentials = got.strip().partition(b" ")
            # RFC 7235: the scheme is case-insensitive ("bearer" is as good as "Bearer").
            if not (scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self._token)):
                body = json.dumps({"error": "unauthorized",
                                   "message": "send the token trailblaze mcp printed: Authorization: Bearer <token>"})
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body.encode()})
                return
        await self.app(scope, receive, send)


async def serve_http(workbench: Workbench, sock: Any, token: str, host: str) -> None:
    """Serve Streamable HTTP at ``/mcp`` on an already bound socket until interrupted."""
    import uvicorn

    from .http_guard import MAX_CONNECTIONS, GuardedH11Protocol, ResponseOnce, install_log_limits

    server = build_server(workbench)
    app = BearerAuth(ResponseOnce(server.streamable_http_app(host=host)), token)
    install_log_limits()
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False,
                            http=GuardedH11Protocol, limit_concurrency=MAX_CONNECTIONS)
    await uvicorn.Server(config).serve(sockets=[sock])
