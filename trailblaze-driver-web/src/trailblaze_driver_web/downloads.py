"""``Downloads``: what the pages of a web session downloaded, kept next to the run's logs.

Each download is saved once it completes, under ``downloads/`` in the session's log directory (inside the
run's output directory), by the file name the server or the ``download`` attribute suggested (``a.csv``,
then ``a-2.csv`` for a second one of that name). A file larger than ``MAX_DOWNLOAD_BYTES`` is noted (name,
size) but not kept. Each is logged once (``WebDownloadLog``, in the step running when the browser reported
it: a click's download can be reported after the click returned) and kept, with that step, for
``web_verifyDownload``. Without a session log (a bare driver) the file stays where Playwright put
it, for as long as the browser context lives.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import valid_text

from .dialogs import LogWriter

if TYPE_CHECKING:
    from playwright.sync_api import Download

MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024
"""Downloads larger than this (50 MiB) are not copied next to the logs; ``web_verifyDownload`` can still
check their name, not their content."""
DOWNLOADS_DIR = "downloads"
MAX_KEPT = 200



@dataclass
class KeptDownload:
    """One download: what the page suggested, where it is kept, and whether it arrived."""

    file_name: str
    url: str
    step: int
    download: Download | None = field(default=None, repr=False)
    path: Path | None = None
    size: int | None = None
    failure: str | None = None
    settled: bool = False

    def entry(self, log_dir: Path | None) -> dict[str, Any]:
        """The ``WebDownloadLog`` payload: the file relative to the log directory when it is kept there."""
        out: dict[str, Any] = {"fileName": self.file_name, "url": self.url}
        if self.path is not None:
            out["download"] = _relative(self.path, log_dir)
        if self.size is not None:
            out["size"] = self.size
        if self.failure:
            out["failure"] = self.failure
        return out


class Downloads:
    """``directory`` is where to keep files (the session's ``log_dir / downloads``), None to leave them."""

    def __init__(self, directory: Callable[[], Path | None], log: LogWriter) -> None:
        self.directory = directory
        self.log = log
        self.seen: list[KeptDownload] = []
        self.step = 0

    def step_started(self) -> None:
        self.step += 1

    def started(self, download: Download) -> KeptDownload:
        """A page's ``download`` event: noted now, saved when asked for or when the step ends."""
        kept = KeptDownload(valid_text(download.suggested_filename), download.url, self.step, download)
        self.seen.append(kept)
        del self.seen[:-MAX_KEPT]
        return kept

    def settle(self, kept: KeptDownload) -> KeptDownload:
        """Wait for ``kept`` to finish, keep its file (size-limited) and log it; once per download."""
        if kept.settled:
            return kept
        kept.settled = True
        download, kept.download = kept.download, None
        assert download is not None
        try:
            failure = download.failure()
            source = None if failure else download.path()
        except Exception as exc:  # noqa: BLE001 - the context closed mid-download
            failure, source = str(exc).splitlines()[0] if str(exc) else type(exc).__name__, None
        if failure or source is None:
            kept.failure = f"the download failed: {failure or 'no file'}"
        else:
            kept.size = source.stat().st_size
            kept.path = self._keep(source, kept)
        log_dir = self._log_dir()
        self.log("WebDownloadLog", kept.entry(log_dir))
        return kept

    def _keep(self, source: Path, kept: KeptDownload) -> Path | None:
        directory = self.directory()
        if directory is None:
            return source
        if kept.size is not None and kept.size > MAX_DOWNLOAD_BYTES:
            kept.failure = (f"{kept.size} bytes, more than the {MAX_DOWNLOAD_BYTES // (1024 * 1024)} MiB kept: "
                            "not copied next to the logs")
            return None
        directory.mkdir(parents=True, exist_ok=True)
        target = _free_name(directory, _safe_name(kept.file_name))
        shutil.copyfile(source, target)
        return target

    def _log_dir(self) -> Path | None:
        directory = self.directory()
        return directory.parent if directory is not None else None

    def settle_all(self) -> None:
        """Save and log every download not yet saved (the step, or the trail, is ending)."""
        for kept in list(self.seen):
            if not kept.settled:
                self.settle(kept)

    def recent(self) -> list[KeptDownload]:
        """Downloads started in this step, else in the step before it (a ``verify:`` step checks what the
        step before it did)."""
        for step in (self.step, self.step - 1):
            found = [d for d in self.seen if d.step == step]
            if found:
                return found
        return []


_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]+")


def _safe_name(name: str) -> str:
    """The suggested name as a plain file name: no directories, no leading dots, no control characters."""
    base = _UNSAFE.sub("_", Path(name.replace("\\", "/")).name).strip(" .") or "download"
    return base[:120]


def _free_name(directory: Path, name: str) -> Path:
    target = directory / name
    stem, suffix = target.stem, target.suffix
    n = 2
    while target.exists():
        target = directory / f"{stem}-{n}{suffix}"
        n += 1
    return target


def _relative(path: Path, base: Path | None) -> str:
    if base is not None:
        try:
            return path.relative_to(base).as_posix()
        except ValueError:
            pass
    return str(path)
