"""``trailblaze mcp --http`` under a hostile neighbour, played with real processes on loopback:

* hundreds of half-sent requests (no token) while the server may hold only 256 file descriptors: the
  real MCP client is still served, the half-open connections are closed within the read deadline, and
  stderr stays short;
* ``--token-file`` over an existing 0644 file and over a symlink: the token file is always a fresh
  0600 file, and the symlink's target is never written;
* ``Authorization: bearer`` (lower case) is accepted: RFC 7235 schemes are case-insensitive.
"""

from __future__ import annotations

import json
import resource
import socket
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import http_server, http_session  # noqa: E402
from trailblaze.mcp_server.http_guard import REQUEST_READ_TIMEOUT_S  # noqa: E402

HALF_OPEN = 400
FD_LIMIT = 256


def _limit_fds() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


def workspace(root: Path) -> Path:
    (root / "trails" / "config").mkdir(parents=True)
    (root / "trails" / "config" / "trailblaze.yaml").write_text("defaults: {}\n")
    return root


def test_half_open_connections_do_not_starve_the_real_client(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    token_file = tmp_path / "token.json"
    with http_server(ws, token_file, preexec_fn=_limit_fds) as (proc, info):
        port = int(info["url"].rsplit(":", 1)[1].split("/")[0])
        attackers: list[socket.socket] = []
        try:
            for _ in range(HALF_OPEN):
                sock = socket.socket()
                sock.settimeout(0.5)
                try:
                    sock.connect(("127.0.0.1", port))
                    sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                 b"Content-Type: application/json\r\n")  # and never the rest
                except OSError:
                    sock.close()
                    continue
                attackers.append(sock)
            assert len(attackers) >= 100, len(attackers)

            async def main() -> list[str]:
                with anyio.fail_after(60):
                    async with http_session(info, timeout=60) as session:
                        return [t.name for t in (await session.list_tools()).tools]

            assert "device" in anyio.run(main)

            # Every half-sent request is closed by the server: at once for most, at the deadline for the rest.
            deadline = time.monotonic() + REQUEST_READ_TIMEOUT_S + 15
            still_open = []
            for sock in attackers:
                sock.settimeout(max(0.1, deadline - time.monotonic()))
                try:
                    if sock.recv(1024) != b"":
                        still_open.append(sock)
                except (ConnectionResetError, BrokenPipeError):
                    pass
                except TimeoutError:
                    still_open.append(sock)
            assert still_open == [], f"{len(still_open)} of {len(attackers)} half-open connections still open"
        finally:
            for sock in attackers:
                sock.close()
        assert proc.poll() is None
    assert proc.returncode == 0
    stderr = (ws / "server.stderr").read_text()
    assert len(stderr.splitlines()) < 20, stderr[-3000:]
    assert "Traceback" not in stderr


def test_token_file_is_fresh_owner_only_and_never_follows_a_symlink(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    token_file = tmp_path / "token.json"
    token_file.write_text("old")
    token_file.chmod(0o644)
    with http_server(ws, token_file) as (_, info):
        assert token_file.stat().st_mode & 0o777 == 0o600
        assert info["url"].endswith("/mcp")
    assert not list(tmp_path.glob(".token.json.*"))  # no temporary file left behind

    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    victim.chmod(0o644)
    token_file.unlink()
    token_file.symlink_to(victim)
    with http_server(ws, token_file):
        assert not token_file.is_symlink()
        assert token_file.stat().st_mode & 0o777 == 0o600
    assert victim.read_text() == "precious"
    assert victim.stat().st_mode & 0o777 == 0o644


def test_bearer_scheme_is_case_insensitive(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    token_file = tmp_path / "token.json"
    with http_server(ws, token_file) as (_, info):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}).encode()
        statuses: dict[str, Any] = {}
        for scheme in ("Bearer", "bearer", "BEARER", "Basic"):
            request = urllib.request.Request(info["url"], data=body, headers={
                "Authorization": f"{scheme} {info['token']}", "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream"})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    statuses[scheme] = response.status
            except urllib.error.HTTPError as exc:
                statuses[scheme] = exc.code
    assert statuses == {"Bearer": 200, "bearer": 200, "BEARER": 200, "Basic": 401}, statuses


def test_repeated_errors_are_logged_once_and_fd_exhaustion_without_a_traceback() -> None:
    import errno
    import logging

    from trailblaze.mcp_server.http_guard import RateLimited

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("test.http_guard")
    logger.addHandler(handler)
    logger.addFilter(RateLimited(interval=3600))
    logger.propagate = False
    try:
        for _ in range(1000):
            try:
                raise OSError(errno.EMFILE, "Too many open files")
            except OSError:
                logger.exception("socket.accept() out of system resource\nsocket: <fd=6>")
    finally:
        logger.removeHandler(handler)
    assert len(records) == 1
    assert records[0].exc_info is None
    assert records[0].getMessage() == "socket.accept() out of system resource: Too many open files (retrying)"
