"""One bad tool body fails the trails that reach it, not every run (issue 25 item 4).

Upstream decodes tool arguments leniently at run time (``TrailblazeYaml.kt``: ``strict = false``, "runtime
decoding stays lenient"; only lint opts in to strict), so its calendar shortcut with ``wait: {ms: 5000}``
never stops a trail that does not call it. Here the mismatch is a warning of the workspace, an error
(exit 3, naming the file and line) of each trail whose recording reaches the tool, directly or through
another tool's body, and an error of ``check --strict`` whatever it checks.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FILES = {
    "trails/config/trailblaze.yaml": "{}\n",
    "trails/config/trailmaps/cal/trailmap.yaml": "id: cal\ntarget:\n  display_name: Calendar\n",
    "trails/config/trailmaps/cal/shortcuts/cal_dayToSearch.shortcut.yaml": (
        "id: cal_dayToSearch\ndescription: Open search from the day view.\nparameters: []\n"
        "shortcut:\n  from: cal/android/day_view\n  to: cal/android/search\ntools:\n  - wait: {ms: 5000}\n"),
    "trails/config/trailmaps/cal/tools/cal_openSearch.tool.yaml": (
        "id: cal_openSearch\ndescription: Reaches the bad body through another tool.\nparameters: []\n"
        "tools:\n  - cal_dayToSearch: {}\n"),
    "trails/plain.trail.yaml": "trail:\n  - step: wait\n    recording:\n      host:\n"
                               "        - wait: {timeToWaitInSeconds: 0}\n",
    "trails/direct.trail.yaml": "trail:\n  - step: search\n    recording:\n      host:\n        - cal_dayToSearch: {}\n",
    "trails/indirect.trail.yaml": "trail:\n  - step: search\n    recording:\n      host:\n        - cal_openSearch: {}\n",
}
WHERE = "cal_dayToSearch.shortcut.yaml:8:5"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def cli(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", *args], cwd=workspace, capture_output=True,
                          text=True, timeout=120, check=False, env=dict(os.environ))


def test_a_trail_that_does_not_reach_the_bad_body_runs_green(workspace: Path) -> None:
    done = cli(workspace, "run", "trails/plain.trail.yaml", "-d", "host", "--no-report", "--output-dir", "out")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Results: 1 passed, 0 failed" in done.stdout


@pytest.mark.parametrize("trail", ["direct", "indirect"])
def test_a_trail_that_reaches_it_fails_as_bad_input_naming_the_file(workspace: Path, trail: str) -> None:
    done = cli(workspace, "run", f"trails/{trail}.trail.yaml", "-d", "host", "--no-report", "--output-dir", "out")
    assert done.returncode == 3, done.stdout + done.stderr
    assert f"{WHERE}: error: [YamlToolBody] tool 'cal_dayToSearch' calls 'wait' with arguments it rejects" \
        in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_check_reports_it_for_the_trails_that_reach_it_and_always_under_strict(workspace: Path) -> None:
    plain = cli(workspace, "check", "trails/plain.trail.yaml")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "0 error(s), 1 warning(s)" in plain.stdout
    reached = cli(workspace, "check", "trails/indirect.trail.yaml")
    assert reached.returncode == 3
    assert f"{WHERE}: error: [YamlToolBody]" in reached.stderr
    assert "(called by trails/indirect.trail.yaml)" in reached.stderr
    strict = cli(workspace, "check", "--strict", "trails/plain.trail.yaml")
    assert strict.returncode == 3
    assert f"{WHERE}: error: [YamlToolBody]" in strict.stderr
