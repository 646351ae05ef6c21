"""Which program runs a script: ``.py`` → this interpreter; ``.ts`` → ``bun``, else ``node`` + ``tsx``.

bun always runs with ``--no-install`` (declared servers and typed-tool modules alike): no runtime downloads
packages while a trail runs, so imports resolve from a real ``node_modules`` next to the script or above it
(bun's ``NODE_PATH`` lookup misses packages' ``exports`` subpaths such as
``@modelcontextprotocol/sdk/server/mcp.js``), and a missing one is an error that names the module
(:func:`missing_module` reads it back out of the server's stderr).

Upstream prefers bun and falls back to a Node TypeScript loader; when neither is there, session start
fails with one sentence that says what to install. ``.js`` files need no loader, so plain ``node`` is
enough for them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from trailblaze import InfrastructureError

TS_SUFFIXES = frozenset({".ts", ".mts", ".cts"})
JS_SUFFIXES = frozenset({".js", ".mjs", ".cjs"})
NO_TS_RUNTIME = ("No compatible TypeScript runtime found on PATH. Install bun (https://bun.sh, "
                 "`npm install -g bun`) or Node with tsx (`npm install -g tsx`)")
NO_JS_RUNTIME = "No JavaScript runtime found on PATH. Install bun (https://bun.sh) or Node.js"


class MissingRuntimeError(InfrastructureError):
    """No program on PATH can run this script."""


@dataclass(frozen=True)
class Runtime:
    name: str
    """``python``, ``bun`` or ``node+tsx`` / ``node``: for messages and benchmarks."""
    argv: tuple[str, ...]
    """The command line before the script path."""


def runtime_for(script: Path, *, path: str | None = None) -> Runtime:
    """The runtime for ``script``; ``path`` is the PATH to search (default: this process's)."""
    suffix = script.suffix.lower()
    if suffix == ".py":
        return Runtime("python", (sys.executable,))
    search = path if path is not None else os.environ.get("PATH", "")
    return _js_runtime(suffix, search)


@lru_cache(maxsize=32)
def _js_runtime(suffix: str, search: str) -> Runtime:
    bun = shutil.which("bun", path=search)
    if bun:
        return Runtime("bun", (bun, "--no-install", "run"))
    node = shutil.which("node", path=search)
    if suffix in JS_SUFFIXES:
        if node:
            return Runtime("node", (node,))
        raise MissingRuntimeError(NO_JS_RUNTIME)
    if suffix not in TS_SUFFIXES:
        raise MissingRuntimeError(f"no runtime for '{suffix}' scripts")
    if node:
        loader = tsx_loader(search)
        if loader is not None:
            return Runtime("node+tsx", (node, "--import", loader.as_uri()))
        raise MissingRuntimeError(NO_TS_RUNTIME + f" (found node at {node} but no tsx: `npm install -g tsx`)")
    raise MissingRuntimeError(NO_TS_RUNTIME)


def tsx_loader(search: str) -> Path | None:
    """tsx's ESM loader (``tsx/dist/loader.mjs``), found from the ``tsx`` command on PATH.

    ``node --import tsx`` would resolve ``tsx`` from the script's directory, which fails for a script
    outside the project that installed tsx; an absolute file URL works from anywhere.
    """
    exe = shutil.which("tsx", path=search)
    if exe is None:
        return None
    here = Path(os.path.realpath(exe)).parent
    for directory in (here, *here.parents):
        manifest = directory / "package.json"
        if manifest.is_file():
            try:
                name = json.loads(manifest.read_text(encoding="utf-8")).get("name")
            except (OSError, ValueError):
                name = None
            if name == "tsx":
                loader = directory / "dist" / "loader.mjs"
                return loader if loader.is_file() else None
    return None


_MISSING = re.compile(r"Cannot find (?:module|package) ['\"]([^'\"]+)['\"]")


def missing_module(stderr_lines: Iterable[str]) -> str | None:
    """The module a script could not import, from bun's or node's error on its stderr, else None."""
    for line in stderr_lines:
        match = _MISSING.search(line)
        if match:
            return match.group(1)
    return None


def missing_module_hint(module: str) -> str:
    """What to do about a missing import: a package is installed by the user, never fetched by us."""
    if module.startswith((".", "/")):
        return f"it imports '{module}', which does not exist"
    parts = module.split("/")
    package = "/".join(parts[:2]) if module.startswith("@") else parts[0]
    return (f"it imports '{module}', which is not installed where the script can resolve it (Trailblaze never "
            f"installs packages while running: `npm install {package}` in the server's folder or a folder above)")


def clear_cache() -> None:
    """Forget cached runtime look-ups (tests that change PATH)."""
    _js_runtime.cache_clear()
