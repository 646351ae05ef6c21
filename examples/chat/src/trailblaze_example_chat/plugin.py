"""Serve the example chat for the sessions that test it: one server, shared by all of them at once.

A session tests the chat when its target is ``chat`` and its workspace ships the app (``server.py`` and
``app/`` beside ``trails/``). A chat needs two people on the *same* server, and a multi-actor trail opens
one session per actor, so the server is not per session as the web shop's is: the first session to
start starts it, later sessions share it, and the last one to finish stops it. Its address goes into
memory as ``chatUrl``, the ``chat`` trailmap's web ``base_url`` (``{{chatUrl}}``), so trails navigate
with relative URLs. Trails run one after another in a process, so each trail still gets a fresh server
with no users or rooms left from the one before.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from trailblaze import InfrastructureError, hookimpl

if TYPE_CHECKING:
    from trailblaze import Session, SessionOutcome

TARGET = "chat"
RESOURCE = "chat.server"
MEMORY_KEY = "chatUrl"


def chat_root(session: Session) -> Path | None:
    target = session.target or session.workspace.defaults.target
    root = session.workspace.root
    if target != TARGET or not (root / "server.py").is_file() or not (root / "app").is_dir():
        return None
    return root


def load_server_module(root: Path) -> ModuleType:
    """Import ``<root>/server.py`` under a name unique to its path (two copies never clash)."""
    path = (root / "server.py").resolve()
    name = f"_trailblaze_chat_server_{abs(hash(str(path)))}"
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InfrastructureError(f"cannot import the chat server from {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        raise InfrastructureError(f"the chat server {path} failed to import: {type(exc).__name__}: {exc}") from None
    return module


class SharedServers:
    """The chat servers of this process, one per app root, each running while any session holds it.

    Actor sessions may start and finish from different threads, hence the lock.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[Path, tuple[Any, int]] = {}

    def acquire(self, root: Path) -> str:
        """Start the server of ``root`` or join the running one; its base URL."""
        key = root.resolve()
        with self._lock:
            server, holders = self._running.get(key, (None, 0))
            if server is None:
                server = load_server_module(key).ChatServer("127.0.0.1", port=0)
                try:
                    server.start()
                except OSError as exc:
                    raise InfrastructureError(f"the example chat could not start on 127.0.0.1: {exc}") from None
            self._running[key] = (server, holders + 1)
            return str(server.url)

    def release(self, root: Path) -> None:
        """Let go of the server of ``root``; the last holder stops it."""
        key = root.resolve()
        with self._lock:
            server, holders = self._running.get(key, (None, 0))
            if server is None:
                return
            if holders > 1:
                self._running[key] = (server, holders - 1)
                return
            del self._running[key]
        try:
            server.stop()
        except Exception:  # noqa: BLE001 - must not raise; the process exit frees the port anyway
            pass

    def holders(self, root: Path) -> int:
        """How many sessions hold the server of ``root`` now (0: it is not running)."""
        with self._lock:
            return self._running.get(root.resolve(), (None, 0))[1]


SERVERS = SharedServers()


@hookimpl
def trailblaze_session_started(session: Session) -> None:
    root = chat_root(session)
    if root is None:
        return
    url = SERVERS.acquire(root).rstrip("/")
    session.resources[RESOURCE] = root
    session.memory.remember(MEMORY_KEY, url)
    session.log.write("ExampleServerLog", {"server": "chat", "url": url, "sessions": SERVERS.holders(root)})


@hookimpl
def trailblaze_session_finished(session: Session, outcome: SessionOutcome) -> None:
    root = session.resources.pop(RESOURCE, None)
    if isinstance(root, Path):
        SERVERS.release(root)
