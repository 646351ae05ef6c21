"""The session process: one device opened through the ``Workbench`` that ``trailblaze mcp`` uses, served
on a unix socket until ``session stop``, a signal, or ``idle_timeout_s`` without a request.

Started by ``trailblaze session start`` as ``python -m trailblaze.live.server`` with its settings (the
secrets among them) on stdin, never in argv where ``ps`` would show them.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import secrets
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..errors import BadInputError, ExitCode, TrailblazeError
from .protocol import Reply, Request, read_line
from .registry import SessionFiles, boot_id, files_for, take_lock, write_state

ACCEPT_TICK_S = 0.5


class SessionConfig(BaseModel):
    """What ``session start`` hands the process (CLI flags map onto it)."""

    name: str
    idle_timeout_s: float = Field(1800, gt=0)
    url: str | None = None
    setup: list[str] = Field(default_factory=list)
    """Trails whose steps run first (signing in, say), each replayed from its recording; none given: the
    workspace's ``defaults.setup``."""
    driver: str | None = None
    device: str | None = None
    workspace: str | None = None
    target: str | None = None
    driver_options: dict[str, Any] = Field(default_factory=dict)
    headed: bool = False
    memory: dict[str, str] = Field(default_factory=dict)
    secrets: dict[str, str] = Field(default_factory=dict)
    llm: str | None = None
    max_llm_calls: int | None = None
    allow_host_tools: bool = False
    output_dir: str | None = None
    logging: bool = True


class LiveSession:
    """The workbench and the socket of one session process."""

    def __init__(self, config: SessionConfig, files: SessionFiles) -> None:
        from ..mcp_server.workbench import McpSettings, Workbench

        self.config = config
        self.files = files
        self.token = secrets.token_urlsafe(32)
        self.stopping = False
        settings = McpSettings(
            workspace=Path(config.workspace) if config.workspace else None, target=config.target,
            allow_host_tools=config.allow_host_tools, secrets=dict(config.secrets),
            memory=dict(config.memory),
            driver_options=dict(config.driver_options), headed=config.headed, llm=config.llm,
            max_llm_calls=config.max_llm_calls, logging=config.logging, setup=list(config.setup),
            output_dir=Path(config.output_dir) if config.output_dir else None)
        self.workbench = Workbench(settings)

    def on_device(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return self.workbench.submit(fn, *args, **kwargs).result()

    def open(self) -> dict[str, Any]:
        wb = self.workbench
        info: dict[str, Any] = self.on_device(lambda: wb.connect(platform=None, driver=self.config.driver,
                                                                 device_id=self.config.device, url=self.config.url))
        self.on_device(wb.replay_setup)
        if self.config.url:
            if info["platform"] == "web":  # recorded, so the saved trail starts where the session started
                outcome = self.on_device(wb.call_tool, "web_navigate", {"url": self.config.url},
                                         step_text=f"Open {self.config.url}")
                if not outcome.success:
                    raise BadInputError(f"could not open {self.config.url}: {outcome.message}")
            else:
                self.on_device(lambda: wb.devices.require().driver.open_url(self.config.url))
        return info

    # -- serving ----------------------------------------------------------------------------------
    def serve(self, listener: socket.socket) -> None:
        idle = self.config.idle_timeout_s
        last = time.monotonic()
        listener.settimeout(ACCEPT_TICK_S)
        while not self.stopping:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                if time.monotonic() - last >= idle:
                    print(f"trailblaze session {self.config.name}: idle for {idle:g} s, stopping", flush=True)
                    return
                continue
            with conn:
                self._handle(conn)
            last = time.monotonic()

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(30)
        try:
            raw = read_line(conn)
            req = Request.model_validate(json.loads(raw))
        except Exception:  # noqa: BLE001 - whatever a client sent, it gets one line back
            self._send(conn, Reply(exit_code=int(ExitCode.BAD_INPUT), error="malformed request"))
            return
        if not hmac.compare_digest(req.token.encode(), self.token.encode()):
            self._send(conn, Reply(exit_code=int(ExitCode.BAD_INPUT), error="wrong session token"))
            return
        conn.settimeout(None)
        try:
            reply = self._dispatch(req)
        except TrailblazeError as exc:
            reply = Reply(exit_code=int(exc.exit_code), error=str(self.workbench.redactor(exc.message)),
                          hint=exc.hint)
        except Exception as exc:  # noqa: BLE001 - a bug in one call must not end the session
            reply = Reply(exit_code=int(ExitCode.INFRASTRUCTURE),
                          error=str(self.workbench.redactor(f"{type(exc).__name__}: {exc}")))
        self._send(conn, reply)

    def _send(self, conn: socket.socket, reply: Reply) -> None:
        with contextlib.suppress(OSError):
            conn.sendall(reply.model_dump_json().encode() + b"\n")

    def _dispatch(self, req: Request) -> Reply:
        wb, args = self.workbench, req.args
        if req.op == "snapshot":
            text, _png = self.on_device(wb.snapshot, frozenset(args.get("detail") or ()))
            return Reply(output=text)
        if req.op == "tool":
            outcome = self.on_device(wb.call_tool, str(args["name"]), dict(args.get("args") or {}),
                                     step_text=args.get("step"))
            return _outcome_reply(outcome)
        if req.op == "steps":
            kind = "verify" if args.get("kind") == "verify" else "step"
            tools = args.get("tools")
            outcome = self.on_device(wb.run_tools, str(args.get("text") or ""), kind, list(tools)) if tools \
                else self.on_device(wb.solve, str(args.get("text") or ""), kind)
            return _outcome_reply(outcome)
        if req.op == "save":
            saved = self.on_device(wb.save_trail, str(args["path"]))
            verb = "Created" if saved["created"] else "Appended to"
            steps = f"{saved['steps']} step{'s' if saved['steps'] != 1 else ''}"
            return Reply(output=f"{verb} {saved['file']} ({steps})")
        if req.op == "stop":
            self.stopping = True
            return Reply(output=f"session {self.config.name} stopped")
        info = self.on_device(wb.device_info)
        return Reply(output=json.dumps(info))


def _outcome_reply(outcome: Any) -> Reply:
    """A tool call's or step's outcome: its message (cut as files are: it quotes what the tool said), exit 1
    when it failed."""
    from ..untrusted import MAX_OUTPUT_CHARS, truncated

    return Reply(exit_code=0 if outcome.success else int(ExitCode.TRAIL_FAILED),
                 output=truncated(outcome.message, MAX_OUTPUT_CHARS))


def listen(path: Path) -> socket.socket:
    """The session socket, 0600 from its creation (the umask covers the window before a chmod)."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(str(path))
    finally:
        os.umask(old)
    sock.listen(8)
    return sock


def run(config: SessionConfig) -> int:
    files = files_for(config.name)
    lock_fd = take_lock(files)  # a second owner of the name ends here
    live: LiveSession | None = None
    listener: socket.socket | None = None

    def stop(signum: int, _frame: Any) -> None:
        if live is not None:
            live.stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        live = LiveSession(config, files)
        info = live.open()
        listener = listen(files.socket)
        write_state(files, {"name": config.name, "pid": os.getpid(), "bootId": boot_id(), "token": live.token,
                            "socket": str(files.socket), "started": time.time(), "driver": info.get("driver"),
                            "platform": info.get("platform"), "url": config.url,
                            "workspace": str(live.workbench.ws.config.root),
                            "idleTimeoutS": config.idle_timeout_s, "log": str(files.log)})
        print(f"trailblaze session {config.name}: serving {info.get('driver')} on {files.socket}", flush=True)
        live.serve(listener)
        return 0
    finally:
        files.remove()
        if listener is not None:
            listener.close()
        if live is not None:
            for problem in live.workbench.close():
                print(f"trailblaze session {config.name}: warning: {problem}", flush=True)
        os.close(lock_fd)


def main() -> None:
    try:
        config = SessionConfig.model_validate_json(sys.stdin.read())
        sys.stdin.close()
        code = run(config)
    except TrailblazeError as exc:
        print(f"trailblaze: {exc}", flush=True)
        code = int(exc.exit_code)
    sys.exit(code)


if __name__ == "__main__":
    main()
