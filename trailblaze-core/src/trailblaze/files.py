"""Writing files so that a reader never sees half of one: the one place Trailblaze writes its outputs.

Every file Trailblaze writes (trails on save-back, summaries, reports, JUnit XML, schemas, caches) is
written to a temporary file in the target's own directory, flushed to disk and renamed over the target.
A rename inside one directory is atomic, so a full disk, a killed process or a second run writing the
same file leaves either the old file or the new one, never a truncated mix. A write that fails raises
``OutputWriteError``: one line naming the file and the reason, and saying the old file is untouched.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
import time
from pathlib import Path

from .errors import BadInputError, InfrastructureError

__all__ = ["OutputWriteError", "check_writable_dir", "unique_stamp", "write_atomic", "write_new"]


class OutputWriteError(InfrastructureError):
    """A file could not be written (disk full, read-only directory, a path component that is a file)."""


def write_atomic(path: Path | str, data: bytes | str, *, mode: int | None = None, sync: bool = True) -> Path:
    """Replace ``path`` with ``data`` in one step; keeps an existing file's permission bits unless
    ``mode`` is given (new files: ``mode`` or 0644). ``sync=False`` skips the ``fsync`` for files that
    may be lost in a power cut but must never be seen half-written (caches, log artifacts)."""
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if mode is None:
            with contextlib.suppress(FileNotFoundError):
                mode = os.stat(path).st_mode & 0o7777
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = _write_temp(path.parent, path.name, payload, 0o644 if mode is None else mode, sync)
        try:
            os.replace(tmp, path)
        except BaseException:
            _discard(tmp)
            raise
    except OSError as exc:
        raise _failed(path, exc) from None
    return path


def write_new(directory: Path | str, stem: str, suffix: str, data: bytes | str) -> Path:
    """Write ``data`` under a name of its own in ``directory`` (``<stem>_<time>_<token><suffix>``) and
    return it. The file appears complete (a hard link from a finished temporary file, which fails
    rather than replace a file that exists), so concurrent runs sharing a directory never overwrite
    each other's outputs, and a reader never sees a partial file."""
    directory = Path(directory)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    target = directory / f"{stem}{suffix}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tmp = _write_temp(directory, stem + suffix, payload, 0o644, True)
        try:
            while True:
                target = directory / f"{stem}_{unique_stamp()}{suffix}"
                try:
                    os.link(tmp, target)
                    return target
                except FileExistsError:
                    continue
                except OSError:  # a file system without hard links: create-exclusive, then replace
                    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                    os.close(fd)
                    os.replace(tmp, target)
                    return target
        finally:
            _discard(tmp)
    except OSError as exc:
        raise _failed(target, exc) from None


def unique_stamp() -> str:
    """``2026_11_25_02_41_07_123_3f9a1c``: sortable to the millisecond, unique across processes."""
    now = time.time()
    return time.strftime("%Y_%m_%d_%H_%M_%S", time.localtime(now)) + f"_{int(now * 1000) % 1000:03d}_" \
        + secrets.token_hex(3)


def check_writable_dir(path: Path | str, what: str) -> Path:
    """``path`` as a directory Trailblaze can write into, created if missing. A path through a file is
    bad input (``BadInputError``, exit 3); a directory that cannot be written (read-only, permissions,
    full) is ``OutputWriteError`` (exit 2). Both say which ``what`` (``--output-dir``…) to change."""
    path = Path(path)
    for parent in (path, *path.parents):
        if parent.exists():
            if not parent.is_dir():
                where = "is a file" if parent == path else f"is below {parent}, which is a file"
                raise BadInputError(f"{what} {path} {where}, not a directory", hint=f"give {what} a directory")
            break
    try:
        path.mkdir(parents=True, exist_ok=True)
        if not os.access(path, os.W_OK | os.X_OK):
            raise OutputWriteError(f"{what} {path} is not writable", hint=f"give {what} a writable directory")
    except OSError as exc:
        raise OutputWriteError(f"{what} {path}: {exc.strerror or exc}",
                               hint=f"give {what} a writable directory") from None
    return path


def _write_temp(directory: Path, name: str, payload: bytes, mode: int, sync: bool) -> str:
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        _discard(tmp)
        raise
    return tmp


def _discard(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def _failed(path: Path, exc: OSError) -> OutputWriteError:
    reason = exc.strerror or type(exc).__name__
    kept = "the previous file is unchanged" if path.exists() else "nothing was written"
    return OutputWriteError(f"could not write {path}: {reason} ({kept})")
