"""An interruption of a run on several devices: each device finishes the trail it is on and starts no
other; the summary lists every trail of every device, exit 2. (Single-device runs are interrupted with
real signals against a real subprocess in tests/test_interrupted_runs.py.)"""

from __future__ import annotations

import json
import signal
from pathlib import Path

from trailblaze.testing import run_cli

FIRST = """\
config:
  id: first
  title: first
trail:
  - step: once both devices are here, one asks the runner to stop (SIGTERM to this test's own process)
    recording:
      memory:
        - exec: {argv: [sh, -c, "touch '{lock}'.$$; i=0; while [ $(ls '{lock}'.* | wc -l) -lt 2 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; mkdir '{lock}' 2>/dev/null && kill -TERM $PPID; exit 0"]}
        - wait: {timeToWaitInSeconds: 3}
"""

SECOND = """\
config:
  id: second
  title: second
trail:
  - step: never reached
    recording:
      memory:
        - dumpMemory: {}
"""


def test_each_device_finishes_its_trail_and_starts_no_other(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.trail.yaml").write_text(FIRST.replace("{lock}", str(tmp_path / "sent")))
    (tmp_path / "b.trail.yaml").write_text(SECOND)
    out = tmp_path / "out"
    before = signal.getsignal(signal.SIGTERM)
    result = run_cli(["run", str(tmp_path), "-d", "memory/dev-a", "-d", "memory/dev-b", "--output-dir", str(out)],
                     host=plugin_host)
    assert signal.getsignal(signal.SIGTERM) is before, "the run restores the signal handlers it installed"
    assert result.exit_code == 2, result.output
    assert "interrupted by SIGTERM" in result.output
    summary = json.loads(next((out / "reports").glob("trailblaze_test_results_*.json")).read_text())
    assert summary["metadata"]["interrupted_by"] == "SIGTERM"
    outcomes = sorted((r["title"], r["outcome"], r["failure_reason"]) for r in summary["results"])
    # A trail never started was never parsed: it is named by its file, and the device it was meant for.
    assert outcomes == [
        ("b on memory/dev-a", "CANCELLED", "interrupted by SIGTERM: not started"),
        ("b on memory/dev-b", "CANCELLED", "interrupted by SIGTERM: not started"),
        ("first", "PASSED", None), ("first", "PASSED", None),
    ], outcomes
