"""Serve the example shop for every session that tests it, and stop it when the session ends.

A session tests the shop when its target is ``shop`` and its workspace ships the app (``server.py``
and ``app/`` beside ``trails/``). The server listens on a free port of 127.0.0.1; its address goes into
memory as ``shopUrl``, which the ``shop`` trailmap uses as the web ``base_url`` (``{{shopUrl}}``), so
trails navigate with relative URLs and no port is ever written down. Nothing for the user to start.
The server's peer origin (a second port, for the account pages' cross-origin iframe) starts and stops
with it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from trailblaze import InfrastructureError, hookimpl

if TYPE_CHECKING:
    from trailblaze import Session, SessionOutcome

TARGET = "shop"
RESOURCE = "web_shop.server"
MEMORY_KEY = "shopUrl"


def shop_root(session: Session) -> Path | None:
    target = session.target or session.workspace.defaults.target
    root = session.workspace.root
    if target != TARGET or not (root / "server.py").is_file() or not (root / "app").is_dir():
        return None
    return root


def load_server_module(root: Path) -> ModuleType:
    """Import ``<root>/server.py`` under a name unique to its path (two copies never clash)."""
    path = (root / "server.py").resolve()
    name = f"_trailblaze_web_shop_server_{abs(hash(str(path)))}"
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InfrastructureError(f"cannot import the shop server from {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        raise InfrastructureError(f"the shop server {path} failed to import: {type(exc).__name__}: {exc}") from None
    return module


@hookimpl
def trailblaze_session_started(session: Session) -> None:
    root = shop_root(session)
    if root is None:
        return
    module = load_server_module(root)
    server: Any = module.ShopServer("127.0.0.1", port=0)
    try:
        url = str(server.start())
    except OSError as exc:
        raise InfrastructureError(f"the example shop could not start on 127.0.0.1: {exc}") from None
    session.resources[RESOURCE] = server
    session.memory.remember(MEMORY_KEY, url.rstrip("/"))
    session.log.write("ExampleServerLog", {"server": "web-shop", "url": url, "peerUrl": server.peer_url})


@hookimpl
def trailblaze_session_finished(session: Session, outcome: SessionOutcome) -> None:
    server = session.resources.pop(RESOURCE, None)
    if server is not None:
        try:
            server.stop()
        except Exception:  # noqa: BLE001 - must not raise; the process exit frees the port anyway
            pass
