"""Proof for tests that no runtime fetches packages: a loopback listener stands in for the package registry
and every proxy, and bun gets an empty install cache.

A test that spawns bun, node or npm runs them with :meth:`RegistrySentinel.env`; afterwards
``sentinel.connections`` must be 0. An empty cache matters as much as the listener: bun answers an import
from its global cache without asking the registry, which would hide a missing ``node_modules``.

    with RegistrySentinel() as sentinel:
        subprocess.run([...], env={**os.environ, **sentinel.env()})
    assert sentinel.connections == 0

Packages then resolve from a real ``node_modules``: :func:`link_node_modules` gives a folder (the repository
root, a temporary copy of an example) one that points at the packages ``scripts/bootstrap.sh`` installed.
"""

from __future__ import annotations

import shutil
import socket
import tempfile
import threading
from pathlib import Path
from types import TracebackType
from typing import Self

REGISTRY_VARIABLES = ("npm_config_registry", "NPM_CONFIG_REGISTRY", "BUN_CONFIG_REGISTRY", "HTTP_PROXY",
                      "HTTPS_PROXY", "http_proxy", "https_proxy")


class RegistrySentinel:
    """A loopback listener for the package registry and any proxy: it counts connections."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/"
        self.connections = 0
        self.bun_cache = tempfile.mkdtemp(prefix="trailblaze-empty-bun-cache-")
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def env(self) -> dict[str, str]:
        """Variables that send every registry/proxy request here and leave bun nothing cached."""
        loopback = "127.0.0.1,localhost"
        return {**{n: self.url for n in REGISTRY_VARIABLES}, "NO_PROXY": loopback, "no_proxy": loopback,
                "BUN_INSTALL_CACHE_DIR": self.bun_cache}

    def close(self) -> None:
        self.sock.close()
        self._thread.join(5)
        shutil.rmtree(self.bun_cache, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def link_node_modules(folder: Path, packages: Path) -> Path:
    """``folder/node_modules`` → ``packages`` unless ``folder`` already has one (as bootstrap links the
    repository root); scripts in ``folder`` and below then resolve their imports without a download."""
    link = folder / "node_modules"
    if not link.exists() and not link.is_symlink():
        try:
            link.symlink_to(packages, target_is_directory=True)
        except FileExistsError:  # another test process linked it first
            pass
    return link
