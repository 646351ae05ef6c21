"""Writing ``trailblaze mcp --token-file``: the bearer token must be readable by its owner only, and the
path must not be a way to overwrite another file.

The file is created fresh, mode 0600, with ``O_EXCL|O_NOFOLLOW`` under a unique name in the target's
directory, then renamed over the target. A rename replaces a symlink rather than writing through it,
and an existing file's looser mode is not kept (its inode is replaced, not truncated).
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from ..errors import BadInputError


def write_token_file(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` as JSON to ``path`` atomically, owner-only; one readable error otherwise."""
    if path.is_dir() and not path.is_symlink():
        raise BadInputError(f"--token-file {path} is a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(temp, flags, 0o600)
    except OSError as exc:
        raise BadInputError(f"cannot write --token-file {path}: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, 0o600)  # whatever the umask said
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(document, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, path)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise BadInputError(f"cannot write --token-file {path}: {exc.strerror or exc}") from None


__all__ = ["write_token_file"]
