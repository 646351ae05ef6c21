"""Where live sessions are found, and which of them are still alive.

A session is three files in a per-user runtime directory (mode 0700, checked without following a
link: see ``runtime_dir``): ``NAME.json`` (pid, boot id, socket, token; 0600, written atomically),
``NAME.sock`` (the unix socket, 0600) and ``NAME.lock`` (held with ``flock`` by the owning process for its whole life: a second owner of a name is refused by the kernel, not by a
check that could race). A state file is only believed when its boot id is this boot's and its process
still holds the lock, so nothing a crash or a reboot leaves behind is ever mistaken for a live session
(and it is removed when seen).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BadInputError
from ..files import write_atomic

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DIR_ENV = "TRAILBLAZE_SESSION_DIR"
_warned: set[Path] = set()
"""Fallback directories already announced by this process (one warning line, not one per call)."""


def runtime_dir() -> Path:
    """``$TRAILBLAZE_SESSION_DIR``, else ``$XDG_RUNTIME_DIR/trailblaze-sessions`` (a tmpfs emptied at
    reboot), else ``trailblaze-sessions-<uid>`` in the temporary directory, else
    ``~/.cache/trailblaze/sessions``: the first that is (or can be made) private to this user.

    The tokens in it open the sessions, and the temporary directory is shared: another user can create
    ``trailblaze-sessions-<uid>`` first, or plant it as a symbolic link to a directory we own, so that our
    state, token and socket land where they choose. A default that is not ours is refused with one line
    on stderr and the next one is used; a directory the user named (``$TRAILBLAZE_SESSION_DIR``) is
    refused outright."""
    explicit = os.environ.get(DIR_ENV)
    if explicit:
        problem = private_dir(Path(explicit))
        if problem:
            raise BadInputError(f"the session directory {explicit} (${DIR_ENV}) {problem}",
                                hint=f"point {DIR_ENV} at a directory of your own (mode 0700)")
        return Path(explicit)
    refused: list[str] = []
    for path in default_dirs():
        problem = private_dir(path)
        if problem is None:
            if refused and path not in _warned:
                _warned.add(path)
                print(f"trailblaze: warning: {'; '.join(refused)}; using {path} instead (hint: remove it if it "
                      f"is yours, or set {DIR_ENV} to a directory of your own)", file=sys.stderr, flush=True)
            return path
        refused.append(f"the session directory {path} {problem}")
    raise BadInputError("; ".join(refused), hint=f"set {DIR_ENV} to a directory of your own (mode 0700)")


def default_dirs() -> list[Path]:
    """Where sessions live when ``$TRAILBLAZE_SESSION_DIR`` is not set, in the order they are tried."""
    dirs = []
    if os.environ.get("XDG_RUNTIME_DIR"):
        dirs.append(Path(os.environ["XDG_RUNTIME_DIR"]) / "trailblaze-sessions")
    dirs.append(Path(tempfile.gettempdir()) / f"trailblaze-sessions-{os.getuid()}")
    dirs.append(Path.home() / ".cache" / "trailblaze" / "sessions")
    return dirs


def private_dir(path: Path) -> str | None:
    """Create ``path`` 0700 if it is missing; None when it is a real directory (not a symbolic link),
    owned by this user and closed to everyone else, else what is wrong with it. Checked on the directory
    itself, opened without following a link (``lstat``'s view, with no window between check and use)."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(path):
            return f"is a symbolic link (to {os.readlink(path)}), not a directory of its own"
        if exc.errno == errno.ENOTDIR:
            return "is not a directory"
        return f"cannot be used ({exc.strerror})"
    try:
        info = os.fstat(fd)
    finally:
        os.close(fd)
    if info.st_uid != os.getuid():
        return f"belongs to another user (uid {info.st_uid})"
    if info.st_mode & 0o077:
        return f"is open to other users (mode {oct(stat.S_IMODE(info.st_mode))}, want 0o700)"
    return None


def check_name(name: str) -> str:
    if not NAME_RE.match(name):
        raise BadInputError(f"'{name}' is not a session name",
                            hint="use letters, digits, '.', '_' or '-' (64 at most)")
    return name


def boot_id() -> str:
    """This boot of the machine (Linux); elsewhere the boot time, which serves the same purpose."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        import time

        return str(int(time.time() - time.monotonic()) // 10)


@dataclass(frozen=True)
class SessionFiles:
    name: str
    directory: Path

    @property
    def state(self) -> Path:
        return self.directory / f"{self.name}.json"

    @property
    def socket(self) -> Path:
        return self.directory / f"{self.name}.sock"

    @property
    def lock(self) -> Path:
        return self.directory / f"{self.name}.lock"

    @property
    def log(self) -> Path:
        return self.directory / f"{self.name}.log"

    def remove(self) -> None:
        for path in (self.state, self.socket):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def files_for(name: str) -> SessionFiles:
    return SessionFiles(check_name(name), runtime_dir())


def lock_is_held(files: SessionFiles) -> bool:
    """Whether some process holds the name's lock (probed without taking it for long)."""
    try:
        fd = os.open(files.lock, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def take_lock(files: SessionFiles) -> int:
    """Own the name for this process's life (the fd stays open); BadInputError when another does."""
    fd = os.open(files.lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise BadInputError(f"session '{files.name}' is already running",
                            hint=f"use it with --session {files.name}, or stop it: trailblaze session stop "
                                 f"--name {files.name}") from None
    return fd


def read_state(files: SessionFiles) -> dict[str, Any] | None:
    """The state of a live session, or None (a stale state file, from a crash or an earlier boot, is
    removed on the way)."""
    try:
        state: dict[str, Any] = json.loads(files.state.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    alive = state.get("bootId") == boot_id() and pid_alive(int(state.get("pid", 0))) and lock_is_held(files)
    if not alive:
        files.remove()
        return None
    return state


def write_state(files: SessionFiles, state: dict[str, Any]) -> None:
    """Atomically, 0600: a reader never sees half a token."""
    write_atomic(files.state, json.dumps(state), mode=0o600)


def live_sessions() -> list[dict[str, Any]]:
    directory = runtime_dir()
    found = []
    for path in sorted(directory.glob("*.json")):
        if not NAME_RE.match(path.stem):
            continue
        state = read_state(SessionFiles(path.stem, directory))
        if state is not None:
            found.append(state)
    return found


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not: it has ended, its parent just has not reaped it yet)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True



