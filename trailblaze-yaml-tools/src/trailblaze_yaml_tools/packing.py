"""Packing for the catalog cache: YAML data kept as bytes until a tool is called (``pack``/``unpack``), and
paths made and pickled fast (``fast_path``, ``PATH_DISPATCH``).

The bottom of the package: the tool models (``parameters``, ``template``) pack what they carry through
this module without reaching the cache that stores them (``cache.py``).
"""

from __future__ import annotations

import copyreg
import marshal
import os
import pickle
from pathlib import Path
from typing import Any

__all__ = ["PATH_DISPATCH", "fast_path", "pack", "unpack"]


def _probe_fast_path() -> Any:
    """A constructor for absolute, normalised POSIX paths that skips re-parsing them (CPython 3.11's
    ``_from_parsed_parts``); ``Path`` itself wherever that does not give the very same path."""
    cls = type(Path())

    def fast(text: str) -> Path:
        if text[:1] != "/" or "//" in text or "/." in text or text.endswith("/"):
            return cls(text)
        return cls._from_parsed_parts("", "/", ["/", *text[1:].split("/")])  # type: ignore[attr-defined,no-any-return]

    try:
        for probe in ("/a/b.tool.yaml", "/x", "/a b/c-d/e_f.yml"):
            made = fast(probe)
            if made != cls(probe) or str(made) != probe or made.parent != cls(probe).parent or \
                    made.name != cls(probe).name or hash(made) != hash(cls(probe)):
                return cls
    except Exception:  # noqa: BLE001 - another Python's pathlib: parse as usual
        return cls
    return fast


_MAKE_PATH = _probe_fast_path()


def fast_path(text: str) -> Path:
    """``Path(text)``, faster for an absolute, normalised path (a scanned directory's entries, a cached file)."""
    made: Path = _MAKE_PATH(text)
    return made


def _reduce_path(path: Path) -> tuple[Any, tuple[str]]:
    # Pickled as its parts, a path is parsed back 3x slower than ``Path(text)`` and 20x slower than ``fast_path``.
    return fast_path, (os.fspath(path),)


PATH_DISPATCH = copyreg.dispatch_table.copy()
PATH_DISPATCH[type(Path())] = _reduce_path


def pack(value: Any) -> bytes:
    """``value`` (YAML data) as bytes that a cached catalog carries unread until ``unpack``.

    A tool's body and its raw ``parameters:`` are needed only when a session calls the tool; kept as
    bytes, the 10,000 tools of a large workspace cost one bytes object each to read back, not a tree of
    dicts and lists. marshal where it can (several times faster than pickle both ways; the cache key
    pins the Python version), pickle for what marshal cannot hold (a YAML timestamp or ``!!set``).
    """
    try:
        return b"m" + marshal.dumps(value)
    except ValueError:
        return b"p" + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(data: bytes) -> Any:
    return marshal.loads(data[1:]) if data[:1] == b"m" else pickle.loads(data[1:])
