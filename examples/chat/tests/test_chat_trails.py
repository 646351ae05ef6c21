"""The chat trails through ``trailblaze run``: two actors per trail, each a browser context on one chat
server; the good trails pass, the failing twin exits 1 naming its actor, and nothing is left running."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from trailblaze.logs import read_log
from trailblaze.testing import run_cli

EXAMPLE = Path(__file__).resolve().parents[1]
TRAILS = EXAMPLE / "trails"
FAILING = EXAMPLE / "failing"  # the failing twin, never-answered.trail.yaml

pytestmark = [pytest.mark.browser]


def _chat_urls(logs: Path) -> set[str]:
    """The chat servers the run's sessions were given (one per trail, shared by its actors); each actor
    logs to ``<logs>/<trail run>/<actor>/``."""
    return {str(e["url"]) for stream in sorted(logs.rglob("session.ndjson"))
            for e in read_log(stream.parent) if e.get("server") == "chat"}


def test_the_chat_trails_pass_and_leave_no_browser_or_server(tmp_path: Path, browser_processes: Any,
                                                             port_open: Any) -> None:
    assert browser_processes() == []
    trails = sorted(TRAILS.glob("*.trail.yaml"))
    result = run_cli(["run", str(TRAILS), "--output-dir", str(tmp_path / "logs")])
    out = result.output
    assert result.exit_code == 0, out
    assert f"Results: {len(trails)} passed, 0 failed, 0 skipped" in out
    for title in ("Chat: Alice invites Bob, and they talk",
                  "Chat: both send at once, and each sees the other's message"):
        assert title in out
    report = Path(re.search(r"^Report: (.+)$", out, re.MULTILINE).group(1))  # type: ignore[union-attr]
    html = report.read_text(encoding="utf-8")
    assert "alice" in html and "bob" in html  # every step is labelled with its actor
    urls = _chat_urls(tmp_path / "logs")
    assert len(urls) == len(trails)  # a fresh server per trail, one for both of its actors
    assert browser_processes() == []
    assert not any(port_open(url) for url in urls)


def test_the_failing_twin_exits_1_and_names_the_actor_step_and_tool(tmp_path: Path, browser_processes: Any,
                                                                     port_open: Any) -> None:
    result = run_cli(["run", str(FAILING), "--output-dir", str(tmp_path / "logs"), "--no-report"])
    out = result.output
    assert result.exit_code == 1, out
    line = next(ln for ln in out.splitlines() if "→ FAILED" in ln)
    assert "bob" in line
    assert 'Bob sees "see you tomorrow", which Alice never sends' in line
    assert "web_verifyTextVisible" in line and '"Alice: see you tomorrow"' in line
    assert "Results: 0 passed, 1 failed, 0 skipped" in out
    assert browser_processes() == []
    urls = _chat_urls(tmp_path / "logs")
    assert len(urls) == 1 and not any(port_open(url) for url in urls)
