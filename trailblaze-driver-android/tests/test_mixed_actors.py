"""A trail with a phone and a browser (issue 35), run as ``examples/mixed-devices/README.md`` says:
actor alice on Android (the Appium fake driver, a server Trailblaze manages), actor bob on web
(Chromium), bound with ``-d alice=android/emulator-5554 -d bob=web``. A password made up on the phone
reaches the browser through the shared memory (the desk page accepts only the phone's); a ``parallel:``
block has one child on each; nothing is left running afterwards."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from trailblaze.testing import CliProcess

from .conftest import REPO

pytestmark = [pytest.mark.appium, pytest.mark.browser]

EXAMPLE = REPO / "examples" / "mixed-devices"


def readme_command() -> list[str]:
    """The README's one shell line (its comment cut), as words."""
    text = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    lines = [ln.split("#", 1)[0].strip() for block in re.findall(r"```(?:sh|bash)\n(.*?)```", text, re.S)
             for ln in block.splitlines() if ln.split("#", 1)[0].strip()]
    assert len(lines) == 1, lines
    return shlex.split(lines[0])


def test_the_readme_runs_the_example_trail_with_both_actors_bound() -> None:
    assert readme_command() == ["uv", "run", "trailblaze", "run", "examples/mixed-devices/trails",
                                "-d", "alice=android/emulator-5554", "-d", "bob=web"]
    assert "examples/mixed-devices" in (REPO / "docs" / "multi-device.md").read_text(encoding="utf-8")


def test_a_phone_and_a_browser_in_one_trail(appium_env: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    binary, env = appium_env
    words = readme_command()
    assert words[:3] == ["uv", "run", "trailblaze"]
    # The README's command from the repository root (``uv run trailblaze`` is this environment's
    # ``trailblaze``), its outputs kept out of the example.
    run = CliProcess([*words[3:], "--output-dir", str(tmp_path / "out")], cwd=REPO,
                     env={**env, "TRAILBLAZE_APPIUM_BIN": binary})
    during = run.wait_until(lambda: run.children("--address 127.0.0.1"))  # the managed Appium server
    code, output = run.finish(timeout=300)
    assert code == 0, output
    assert during, output
    assert "[bob]" in output and "[alice]" in output
    summary = next((tmp_path / "out" / "reports").glob("trailblaze_test_results_*.json"))
    result = json.loads(summary.read_text(encoding="utf-8"))["results"][0]
    assert sorted((a["name"], a["platform"]) for a in result["actors"]) == [("alice", "ANDROID"), ("bob", "WEB")]
    assert [(s["actor"], s.get("block") is not None) for s in result["steps"]] == [
        ("alice", False), ("bob", True), ("alice", True)]
    # Typed on the phone, read by the browser: bob typed the password alice's phone made up.
    typed = [e for e in result_entries(tmp_path / "out", "bob") if e.get("toolName") == "web_type"]
    assert typed and str(typed[0]["trailblazeTool"]["raw"]["text"]).startswith("pw-"), typed
    assert run.children_left() == []
    assert not list(EXAMPLE.rglob("logs")), "the run wrote into the example"


def result_entries(out: Path, actor: str) -> list[dict[str, Any]]:
    """The logged tool calls of ``actor``'s session (``<out>/<trail run>/<actor>/*.ndjson``)."""
    entries = []
    for log in out.rglob(f"{actor}/*.ndjson"):
        for line in log.read_text(encoding="utf-8").splitlines():
            if line.strip():
                entries.append(json.loads(line))
    return entries
