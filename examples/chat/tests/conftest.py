"""Helpers for the chat example tests: the server, a Chromium for plain Playwright, leftovers to look for."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from trailblaze_example_chat.plugin import load_server_module

EXAMPLE = Path(__file__).resolve().parents[1]


@pytest.fixture
def chat_server() -> Iterator[Any]:
    """The example chat on a free loopback port, stopped after the test."""
    server = load_server_module(EXAMPLE).ChatServer("127.0.0.1", port=0)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def launch_options() -> dict[str, Any]:
    """``chromium.launch`` options for the browser the web driver would pick (scripts/bootstrap.sh)."""
    from trailblaze_driver_web.browser import find_chromium
    from trailblaze_driver_web.config import WebDriverConfig

    choice = find_chromium(WebDriverConfig())
    return {"executable_path": choice.path} if choice.path else {}


def _port_open(url: str) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 80), timeout=0.5):
            return True
    except OSError:
        return False


def _server_threads(url: str) -> list[str]:
    prefix = f"chat-server-{urlparse(url).port}"
    return [t.name for t in threading.enumerate() if t.name.startswith(prefix) and t.is_alive()]


def _browser_processes() -> list[tuple[int, str]]:
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
    found: list[tuple[int, str]] = []
    stack = [os.getpid()]
    while stack:
        for child in children.get(stack.pop(), []):
            if child in cmds:
                stack.append(child)
                if "chrom" in cmds[child].lower() or "playwright" in cmds[child].lower():
                    found.append((child, cmds[child]))
    return found


@pytest.fixture
def port_open() -> Callable[[str], bool]:
    """Whether something still accepts connections at a URL's host and port."""
    return _port_open


@pytest.fixture
def server_threads() -> Callable[[str], list[str]]:
    """The live threads of the chat server at a URL (its serving thread and its connections')."""
    return _server_threads


@pytest.fixture
def browser_processes() -> Callable[[], list[tuple[int, str]]]:
    """This test process's Chromium / Playwright-driver descendants."""
    return _browser_processes
