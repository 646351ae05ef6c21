"""docs/recording.md is true: every shell line in it runs, in order, in a copy of the example shop — the
live-session walk-through saves a trail that then replays green — and its output never shows the
password."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import PASSWORD, REPO, TRAILBLAZE, live_tree, server_env, shop_workspace

DOC = REPO / "docs" / "recording.md"


RECORD_PREFIX = "uv run trailblaze record "


def shell_lines() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def record_line() -> str:
    """The documented `trailblaze record` line: it waits for a person, so tests/test_record_command.py runs
    it (with a person played by Playwright) and the walk-through below leaves it out."""
    return next(ln for ln in shell_lines() if ln.startswith(RECORD_PREFIX))


def test_every_shell_line_of_the_walk_through_runs_and_the_saved_trail_replays(tmp_path: Path) -> None:
    lines = [ln for ln in shell_lines() if not ln.startswith(RECORD_PREFIX)]
    assert lines[0] == "cd examples/web-shop" and any("session save" in ln for ln in lines)
    shop_workspace(tmp_path / "examples" / "web-shop")
    script = "set -euo pipefail\n" + "\n".join(ln.replace("uv run trailblaze", str(TRAILBLAZE)) for ln in lines)
    session_dir = Path(tempfile.mkdtemp(prefix="tbs-"))
    try:
        done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                              env={**server_env(), "TRAILBLAZE_SESSION_DIR": str(session_dir),
                                   "HOME": str(tmp_path / "home")}, check=False)
        output = done.stdout + done.stderr
        assert done.returncode == 0, output
        assert "Session shop started: playwright-native at /" in output
        assert 'Text "Welcome, hiker@example.com" is visible' in output  # the verify step's one line
        assert "Results: 1 passed, 0 failed" in output, output
        assert PASSWORD not in output
        saved = (tmp_path / "examples" / "web-shop" / "trails" / "my-sign-in.trail.yaml").read_text()
        assert PASSWORD not in saved and "{{password}}" in saved
        assert (tmp_path / "examples" / "web-shop" / ".agents" / "skills" / "trailblaze" / "SKILL.md").is_file()
        assert list(session_dir.glob("*.json")) == []  # stopped
    finally:
        for state in session_dir.glob("*.json"):  # a failed run must not leave the session behind
            import json
            import os
            import signal

            pid = int(json.loads(state.read_text())["pid"])
            for child in [pid, *live_tree(pid)]:
                try:
                    os.kill(child, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        shutil.rmtree(session_dir, ignore_errors=True)
