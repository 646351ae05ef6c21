"""The one module that imports the ``mcp`` SDK (2.x): connect, list, read, call, close.

Everything else in this plugin works on ``wire`` dataclasses, so an SDK change (1.x → 2.x renamed
every field and moved the server class) is absorbed here. The stdio transport is our own small bridge
between a ``ServerProcess`` and the SDK's ``ClientSession`` streams rather than the SDK's
``stdio_client``: Trailblaze needs its own shutdown sequence (5 s after closing stdin, not 2 s), its own
process groups, a stderr tail, and a clear error when a server writes something that is not JSON-RPC
to stdout. The handshake is always the legacy ``initialize`` one, which every 2025-era server speaks.

Imported lazily (only when a session has servers): ``import mcp`` costs ~0.8 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp import ClientSession, types
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from trailblaze import valid_data, valid_text

from .output_check import Check, compile_check
from .process import ServerProcess
from .wire import (CallOutcome, ConnectionLost, ListedTool, ProtocolError, RequestTimeout, ResultRefused,
                   ServerHello)

CLIENT_NAME = "trailblaze"
CLIENT_VERSION = "0.1.0"
_CONNECTION_CLOSED = getattr(types, "CONNECTION_CLOSED", -32000)
_REQUEST_TIMEOUT = getattr(types, "REQUEST_TIMEOUT", -32001)
_message_adapter = types.jsonrpc_message_adapter


def _as_dict(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    return dict(dump(by_alias=True, mode="json", exclude_none=True)) if dump else {}


class Connection:
    """An initialized MCP client session to one server, held open by one task on the session loop."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.hello = ServerHello()
        self._session: _Session | None = None
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._side_tasks: list[asyncio.Task[Any]] = []
        self.lost: BaseException | None = None

    # -- opening ----------------------------------------------------------------------------------
    @classmethod
    async def open_stdio(cls, proc: ServerProcess, *, timeout: float) -> Connection:
        conn = cls(proc.name)
        await conn._open(conn._stdio_streams(proc), timeout)
        return conn

    @classmethod
    async def open_http(cls, url: str, *, headers: Mapping[str, str] | None = None, timeout: float) -> Connection:
        from mcp.client.streamable_http import streamable_http_client

        conn = cls(url)

        @asynccontextmanager
        async def streams() -> AsyncIterator[Any]:
            if headers:
                import httpx2

                client = httpx2.AsyncClient(headers=dict(headers), timeout=httpx2.Timeout(30.0, read=None))
                async with client, streamable_http_client(url, http_client=client) as pair:
                    yield pair
            else:
                async with streamable_http_client(url) as pair:
                    yield pair

        await conn._open(streams(), timeout)
        return conn

    async def _open(self, streams: Any, timeout: float) -> None:
        self._task = asyncio.create_task(self._hold(streams), name=f"mcp-session-{self.label}")
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), timeout)
        except TimeoutError:
            await self.close()
            raise RequestTimeout(f"no answer to initialize within {timeout:g}s") from None
        except BaseException:
            await self.close()
            raise

    async def _hold(self, streams: Any) -> None:
        try:
            async with streams as pair:
                read, write = pair[0], pair[1]
                client_info = types.Implementation(name=CLIENT_NAME, version=CLIENT_VERSION)
                async with _Session(read, write, client_info=client_info) as session:
                    result = await session.initialize()
                    caps = result.capabilities
                    info = result.server_info
                    self.hello = ServerHello(name=info.name or "", version=info.version or "",
                                             protocol_version=str(result.protocol_version),
                                             has_resources=getattr(caps, "resources", None) is not None)
                    self._session = session
                    self._ready.set_result(None)
                    await self._stop.wait()
        except asyncio.CancelledError:
            self._fail_ready(ConnectionLost("cancelled during initialize"))
            raise
        except BaseException as exc:  # noqa: BLE001 - every failure becomes a typed one
            mapped = _map_error(exc)
            self.lost = mapped
            self._fail_ready(mapped)
        finally:
            self._session = None

    def _fail_ready(self, exc: Exception) -> None:
        if not self._ready.done():
            self._ready.set_exception(exc)
            self._ready.exception()  # mark retrieved: after a handshake timeout nobody awaits it any more

    @asynccontextmanager
    async def _stdio_streams(self, proc: ServerProcess) -> AsyncIterator[tuple[Any, Any]]:
        """The process pipes as the session's streams, one JSON-RPC message per line (see ``_PipeReader``
        and ``_PipeWriter``: no pipe tasks and memory streams in between)."""
        assert proc.proc is not None and proc.proc.stdout is not None and proc.proc.stdin is not None
        reader = _PipeReader(proc, proc.proc.stdout, self._side_tasks)
        writer = _PipeWriter(proc.proc.stdin)
        try:
            yield reader, writer
        finally:
            writer.close()
            reader.close()

    # -- requests -----------------------------------------------------------------------------
    def _require(self) -> _Session:
        if self._session is None:
            raise self.lost if isinstance(self.lost, Exception) else ConnectionLost("connection closed")
        return self._session

    @property
    def open(self) -> bool:
        return self._session is not None

    async def list_tools(self, *, timeout: float) -> list[ListedTool]:
        session = self._require()
        tools: list[ListedTool] = []
        checks: dict[str, Check | None] = {}
        cursor: str | None = None
        try:
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                result = await asyncio.wait_for(session.list_tools(params=params), timeout)
                for tool in result.tools:
                    schema = tool.output_schema
                    checks[tool.name] = compile_check(schema) if schema is not None else None
                    tools.append(ListedTool(name=tool.name, description=tool.description or "",
                                            input_schema=dict(tool.input_schema) if tool.input_schema is not None else None,
                                            meta=_as_dict(tool.meta),
                                            read_only=bool(tool.annotations is not None
                                                           and tool.annotations.read_only_hint)))
                cursor = result.next_cursor
                if not cursor:
                    session.output_checks = checks
                    return tools
        except TimeoutError:
            raise RequestTimeout(f"no answer to tools/list within {timeout:g}s") from None
        except (MCPError, anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as exc:
            raise _map_error(exc) from None

    async def read_json_resource(self, uri: str, *, timeout: float) -> Any:
        """A resource's first text content parsed as JSON. Raises ``ProtocolError`` when absent or not JSON."""
        session = self._require()
        try:
            result = await asyncio.wait_for(session.read_resource(uri), timeout)
        except TimeoutError:
            raise RequestTimeout(f"no answer to resources/read within {timeout:g}s") from None
        except (MCPError, anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as exc:
            raise _map_error(exc) from None
        for item in getattr(result, "contents", []) or []:
            text = getattr(item, "text", None)
            if isinstance(text, str):
                try:
                    return json.loads(text)
                except ValueError as exc:
                    raise ProtocolError(f"{uri} is not JSON: {exc}") from None
        raise ProtocolError(f"{uri} has no text content")

    async def call_tool(self, name: str, arguments: dict[str, Any], *, meta: dict[str, Any] | None,
                        timeout: float | None) -> CallOutcome:
        session = self._require()
        try:
            result = await session.call_tool(name, arguments, read_timeout_seconds=timeout, meta=meta)  # type: ignore[arg-type]
        except (MCPError, anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as exc:
            raise _map_error(exc) from None
        texts: list[str] = []
        kinds: list[dict[str, Any]] = []
        for block in result.content:
            kind = getattr(block, "type", "")
            if kind == "text":
                texts.append(valid_text(block.text))  # type: ignore[union-attr]
            else:
                kinds.append({"type": kind})
        return CallOutcome(is_error=bool(result.is_error), texts=texts,
                           structured=valid_data(result.structured_content),
                           meta=valid_data(_as_dict(result.meta)), content=kinds)

    # -- closing ------------------------------------------------------------------------------
    async def close(self) -> None:
        """End the client session (stdin is closed by the process stop that follows)."""
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        with contextlib.suppress(BaseException):  # closing: the task's own failure is in self.lost
            try:
                await asyncio.wait_for(asyncio.shield(task), 2.0)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
                await task

    async def finish_side_tasks(self, timeout: float = 1.0) -> None:
        """After the process is gone: let the pipe tasks end, cancel what will not."""
        pending = [t for t in self._side_tasks if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=timeout)
        for t in self._side_tasks:
            if not t.done():
                t.cancel()


class _Session(ClientSession):
    """The SDK's client session, with a quick check of a result's structured content in front of the SDK's
    own ``jsonschema`` pass (``output_check``): a result the quick check vouches for skips that pass (~80 µs
    of a call); any other result, and any tool whose output schema the quick check does not cover, goes
    through the SDK's check as before. What that check refuses is a ``ResultRefused`` with the SDK's words
    (the SDK raises a bare ``RuntimeError``, which would read as the tool's own crash)."""

    output_checks: dict[str, Check | None]
    """Per tool of the last full ``tools/list``: the quick check of its output schema, or None."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.output_checks = {}

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        check = self.output_checks.get(name)
        content = result.structured_content
        if check is not None and content is not None and check(content):
            return
        try:
            await super().validate_tool_result(name, result)
        except RuntimeError as exc:
            raise ResultRefused(str(exc)) from None


class _PipeReader:
    """The session's read stream: the next JSON-RPC message is read off the server's stdout when the
    session asks for it.

    The SDK's ``stdio_client`` puts a reader task and a memory stream between the pipe and the session
    (so does a bridge built the same way): every message then costs a task switch and the memory
    stream's bookkeeping, a measurable part of a ``tools/call`` round trip. The session's receive loop
    is always waiting on its read stream, so reading in ``receive`` keeps the pipe drained just the same.
    A line that is not JSON-RPC ends the stream and is kept as ``protocol_error``; once the stream has
    ended (EOF, garbage, or the session closed it), a side task keeps reading stdout so a server
    flushing output on its way out never blocks on a full pipe.
    """

    def __init__(self, proc: ServerProcess, stdout: asyncio.StreamReader, side_tasks: list[asyncio.Task[Any]]) -> None:
        self._proc = proc
        self._stdout = stdout
        self._side_tasks = side_tasks
        self._ended = False
        self._closed = False

    async def receive(self) -> SessionMessage:
        if self._closed:
            raise anyio.ClosedResourceError
        if self._ended:
            raise anyio.EndOfStream
        stdout = self._stdout
        while True:
            try:
                line = await stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                self._proc.protocol_error = "a stdout line longer than the limit"
                line = b""
            except OSError:
                line = b""
            if not line:
                self._end()
                raise anyio.EndOfStream
            if line.isspace():
                continue
            try:
                message = _message_adapter.validate_json(line, by_name=False)
            except ValueError:
                self._proc.protocol_error = line.decode("utf-8", "replace").strip()[:200]
                self._end()
                raise anyio.EndOfStream from None
            return SessionMessage(message)

    def _end(self, *, check_next: bool = False) -> None:
        """No more messages: keep the pipe drained until the server closes it. ``check_next``: the session
        stopped listening while the server may still write, so the next line is still checked (garbage a
        server writes on its way out is reported, not dropped)."""
        if self._ended:
            return
        self._ended = True
        self._side_tasks.append(asyncio.get_running_loop().create_task(
            self._drain(check_next), name=f"mcp-stdout-{self._proc.name}"))

    async def _drain(self, check_next: bool) -> None:
        stdout = self._stdout
        try:
            while check_next:
                line = await stdout.readline()
                if line.isspace():
                    continue
                if line:
                    try:
                        _message_adapter.validate_json(line, by_name=False)
                    except ValueError:
                        self._proc.protocol_error = line.decode("utf-8", "replace").strip()[:200]
                break
            while await stdout.read(65536):
                pass
        except (OSError, ValueError, RuntimeError):  # RuntimeError: a read still pending elsewhere
            pass

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(RuntimeError):  # no running loop: nothing left to drain into
            self._end(check_next=True)

    async def aclose(self) -> None:
        self.close()

    def __aiter__(self) -> _PipeReader:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _PipeReader:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class _PipeWriter:
    """The session's write stream: each message is written to the server's stdin as it is sent (one line,
    one ``write``; ``drain`` waits only when the pipe is full), rather than handed to a writer task
    through a memory stream. A write that fails (the server closed stdin or died) raises
    ``BrokenResourceError``, which the SDK reports as a closed connection; the session's reader sees the
    end of stdout. Closing does not close stdin: the process stop that follows does, in its own order."""

    def __init__(self, stdin: asyncio.StreamWriter) -> None:
        self._stdin = stdin
        self._closed = False

    async def send(self, item: SessionMessage) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        data = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
        try:
            self._stdin.write(data)
            await self._stdin.drain()
        except (OSError, RuntimeError) as exc:
            self._closed = True
            raise anyio.BrokenResourceError from exc

    def close(self) -> None:
        self._closed = True

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> _PipeWriter:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._closed = True


def _map_error(exc: BaseException) -> Exception:
    """Turn SDK/anyio failures into ``wire`` errors; exception groups are unwrapped to their cause."""
    if isinstance(exc, BaseExceptionGroup):
        inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        if inner:
            return _map_error(inner[0])
    if isinstance(exc, (ConnectionLost, ProtocolError, RequestTimeout)):
        return exc
    if isinstance(exc, MCPError):
        if exc.code == _CONNECTION_CLOSED:
            return ConnectionLost("connection closed")
        if exc.code == _REQUEST_TIMEOUT:
            return RequestTimeout(exc.message)
        return ProtocolError(exc.message, exc.code)
    if isinstance(exc, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, EOFError)):
        return ConnectionLost("connection closed")
    if isinstance(exc, OSError):
        return ConnectionLost(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, RuntimeError) and "protocol version" in str(exc):
        return ProtocolError(str(exc))
    text = str(exc) or type(exc).__name__
    return ConnectionLost(f"{type(exc).__name__}: {text}")
