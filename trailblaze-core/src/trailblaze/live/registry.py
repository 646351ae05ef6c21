"""Where live sessions are found, and which of them are still alive.

A session is three files in a per-user runtime directory (mode 0700): ``NAME.json`` (pid, boot id,
socket, token; 0600), ``NAME.sock`` (the unix socket, 0600) and ``NAME.lock`` (held with ``flock`` by
the owning process for its whole life: a second owner of a name is refused by the kernel, not by a
check that could race). A state file is only believed when its boot id is this boot's and its process
still holds the lock, so nothing a crash or a reboot leaves behind is ever mistaken for a live session
(and it is removed when seen).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BadInputError
from ..files import write_atomic

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DIR_ENV = "TRAILBLAZE_SESSION_DIR"


def runtime_dir() -> Path:
    """``$TRAILBLAZE_SESSION_DIR``, else ``$XDG_RUNTIME_DIR/trailblaze-sessions`` (a tmpfs emptied at
    reboot), else a per-user directory under the temporary directory; created 0700 and checked to be
    ours, since the tokens in it open the sessions."""
    explicit = os.environ.get(DIR_ENV)
    if explicit:
        path = Path(explicit)
    elif os.environ.get("XDG_RUNTIME_DIR"):
        path = Path(os.environ["XDG_RUNTIME_DIR"]) / "trailblaze-sessions"
    else:
        path = Path(tempfile.gettempdir()) / f"trailblaze-sessions-{os.getuid()}"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise BadInputError(f"the session directory {path} is not private to this user "
                            f"(owner {info.st_uid}, mode {oct(info.st_mode & 0o777)})",
                            hint=f"remove it, or set {DIR_ENV} to a directory of your own")
    return path


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
    fd = os.open(files.lock, os.O_RDWR | os.O_CREAT, 0o600)
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



