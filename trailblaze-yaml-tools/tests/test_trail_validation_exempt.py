"""Upstream's ``trail_validation.exempt`` (issue 37 item 6): a target whose trailmap.yaml gives a reason
has the tool calls its trails record reported by ``check`` but never fatal — even under ``--strict`` —
as upstream's ``CheckCommand.kt`` (``runTrailRecordingValidationPhase``) treats an exempt target; a
blank reason exempts nothing. Upstream's ``examples/android-sample-app`` uses it for a trail recording
tools an undeclared MCP server serves."""

from __future__ import annotations

from pathlib import Path

import pytest
from trailblaze.testing import run_cli

TRAIL = ("config:\n  target: shop\ntrail:\n  - step: w\n    recording:\n      host:\n"
         "        - generateTestUser: {}\n        - wait: {timeToWaitInSeconds: soon}\n")


def workspace(root: Path, exempt: str) -> Path:
    files = {
        "trails/config/trailblaze.yaml": "{}\n",
        "trails/config/trailmaps/shop/trailmap.yaml":
            f"id: shop\ntrail_validation:\n  exempt: {exempt}\ntarget:\n  display_name: Shop\n",
        "trails/demo.trail.yaml": TRAIL,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root / "trails" / "demo.trail.yaml"


@pytest.mark.parametrize("strict", [False, True])
def test_an_exempt_target_reports_its_recordings_without_failing(tmp_path: Path, strict: bool) -> None:
    trail = workspace(tmp_path, '"records MCP tools not in the typed surface"')
    done = run_cli(["check", *(["--strict"] if strict else []), str(trail)], cwd=tmp_path)
    assert done.exit_code == 0, done.output
    reason = "(not fatal: target 'shop' is exempt from trail validation: records MCP tools not in the typed surface)"
    assert f"demo.trail.yaml:7:11: warning: [UnknownTool] unknown tool 'generateTestUser' {reason}" in done.output
    assert "warning: [ToolArguments]" in done.output and reason in done.output


def test_a_blank_reason_exempts_nothing(tmp_path: Path) -> None:
    trail = workspace(tmp_path, '""')
    done = run_cli(["check", str(trail)], cwd=tmp_path)
    assert done.exit_code == 3, done.output
    assert "error: [ToolArguments]" in done.output
