"""Helpers for the web-shop example tests: this process's browser descendants, open ports."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from urllib.parse import urlparse

import pytest

EXAMPLE = Path(__file__).resolve().parents[1]


def _descendants() -> list[tuple[int, str]]:
    children: dict[int, list[int]] = {}
    cmds: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if stat[0] == "Z":
                continue
            cmds[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            children.setdefault(int(stat[1]), []).append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    out: list[tuple[int, str]] = []
    stack = [os.getpid()]
    while stack:
        for child in children.get(stack.pop(), []):
            if child in cmds:
                out.append((child, cmds[child]))
                stack.append(child)
    return out


@pytest.fixture
def browser_processes():  # type: ignore[no-untyped-def]
    """Lists this test process's Chromium / Playwright-driver descendants."""
    return lambda: [(p, c) for p, c in _descendants() if "chrom" in c.lower() or "playwright" in c.lower()]


@pytest.fixture
def port_open():  # type: ignore[no-untyped-def]
    def check(url: str) -> bool:
        parsed = urlparse(url)
        try:
            with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 80), timeout=0.5):
                return True
        except OSError:
            return False

    return check
