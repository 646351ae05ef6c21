"""What a run on xdist workers shows in pytest's terminal summary: the ``trailblaze`` section.

``trailblaze run -n``'s own console (``RunConsole``) is the command's: ``commands/pytest_bridge.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .state import STATE


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    if state is None or not state.worker_lines:
        return
    terminalreporter.section("trailblaze")
    for line in state.worker_lines:
        terminalreporter.write_line(line)
