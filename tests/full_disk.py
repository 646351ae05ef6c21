"""A real small file system for tests that need a full disk or a read-only directory: a tmpfs mounted
for the test (root and mount(8) needed; the test is skipped, with the reason, where that is impossible)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def tmpfs(where: Path, size: str = "1m", *, read_only: bool = False) -> Iterator[Path]:
    """``where`` (created) with a fresh tmpfs of ``size`` mounted on it until the block ends."""
    where.mkdir(parents=True, exist_ok=True)
    options = f"{'ro,' if read_only else ''}size={size}"
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True,
                             text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path, leave: int = 0) -> Path:
    """Fill ``disk`` up, leaving about ``leave`` bytes free; returns the filler file (delete it to free)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0" * 4096)
    finally:
        os.close(fd)
    if leave:
        os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler
