"""The exchange between a CLI call and a session process: one JSON line each way over the session's
unix socket. The socket is 0600 in a 0700 directory, and every request also carries the session's
token (from its 0600 state file), so only its owner's processes can drive it."""

from __future__ import annotations

import json
import socket
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..errors import BadInputError, InfrastructureError
from .registry import files_for, read_state

Op = Literal["snapshot", "tool", "steps", "save", "stop", "info"]
MAX_LINE = 16 * 1024 * 1024


class Request(BaseModel):
    token: str
    op: Op
    args: dict[str, Any] = Field(default_factory=dict)


class Reply(BaseModel):
    exit_code: int = 0
    output: str = ""
    error: str | None = None
    hint: str | None = None


def read_line(sock: socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if b"\n" in chunk or size > MAX_LINE:
            break
    return b"".join(chunks).split(b"\n", 1)[0]


def request(name: str, op: Op, args: dict[str, Any] | None = None, *, timeout: float | None = 900.0) -> Reply:
    """Send one request to the live session ``name`` and wait for its reply."""
    files = files_for(name)
    state = read_state(files)
    if state is None:
        raise BadInputError(f"no live session named '{name}'",
                            hint=f"start one: trailblaze session start --name {name} --url URL "
                                 "(trailblaze session list shows the running ones)")
    payload = Request(token=state["token"], op=op, args=args or {}).model_dump_json().encode() + b"\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(files.socket))
            sock.sendall(payload)
            raw = read_line(sock)
    except OSError as exc:
        raise InfrastructureError(f"session '{name}' did not answer: {exc}",
                                  hint=f"see its log: {files.log}") from None
    if not raw:
        raise InfrastructureError(f"session '{name}' closed the connection without answering",
                                  hint=f"see its log: {files.log}")
    return Reply.model_validate(json.loads(raw))
