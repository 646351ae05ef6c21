"""``-d`` runs every trail once per device, each with its own driver and session, devices in parallel."""

from __future__ import annotations

import json
from pathlib import Path

from trailblaze.logs import read_log
from trailblaze.testing import run_cli

TRAIL = """\
config:
  id: on-each-device
trail:
  - step: record which device ran this
    recording:
      memory:
        - dumpMemory: {}
"""


def test_each_device_runs_every_trail(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.trail.yaml").write_text(TRAIL)
    (tmp_path / "b.trail.yaml").write_text(TRAIL.replace("on-each-device", "second"))
    out = tmp_path / "out"
    result = run_cli(["run", str(tmp_path), "-d", "memory/dev-a", "-d", "memory/dev-b", "--output-dir", str(out)],
                     host=plugin_host)
    assert result.exit_code == 0, result.output
    assert "Results: 4 passed, 0 failed, 0 skipped" in result.output
    summary = json.loads(next((out / "reports").glob("trailblaze_test_results_*.json")).read_text())
    sessions = {r["session_id"] for r in summary["results"]}
    assert len(sessions) == 4
    started = []
    for log_dir in out.iterdir():
        if log_dir.name == "reports":
            continue
        first = next(e for e in read_log(log_dir) if e["class"].endswith(".TrailblazeSessionStatusChangeLog"))
        started.append(first["sessionStatus"]["trailblazeDeviceInfo"]["device_id"])
    assert sorted(started) == ["dev-a", "dev-a", "dev-b", "dev-b"]


def test_a_device_for_a_platform_without_a_driver_is_infrastructure(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.trail.yaml").write_text(TRAIL)
    result = run_cli(["run", str(tmp_path), "-d", "tv/living-room", "--output-dir", str(tmp_path / "o")],
                     host=plugin_host)
    assert result.exit_code == 2 and "no installed driver drives platform 'tv'" in result.output


def test_a_driver_without_device_selection_says_so(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.trail.yaml").write_text(TRAIL.replace("memory:", "host:"))
    result = run_cli(["run", str(tmp_path), "-d", "host/box-1", "--output-dir", str(tmp_path / "o")],
                     host=plugin_host)
    assert result.exit_code == 3 and "driver 'host' cannot be pointed at a device ('box-1')" in result.output
