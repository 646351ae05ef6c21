"""``run --all-devices``: each trail once per platform it declares that an installed driver drives
(upstream's ``TrailDeviceSelector.selectDevicesToRun`` / ``supportedPlatformsForTrail``,
``trailblaze-models/…/devices/TrailDeviceSelection.kt``); the web driver's run is in
``trailblaze-driver-web/tests/test_web_upstream_cli_flags.py``."""

from __future__ import annotations

import json
from pathlib import Path

from trailblaze.builtin.host_driver import HostDriver
from trailblaze.driver import DriverRegistry
from trailblaze.runner.all_devices import plan_every_device
from trailblaze.testing import MemoryDriver, run_cli

ON_BOTH = """\
config:
  id: on-both
trail:
  - step: record which device ran this
    recording:
      memory-tablet:
        - dumpMemory: {}
      host:
        - dumpMemory: {}
"""


def test_the_plan_folds_classifiers_and_driver_names_to_installed_platforms(tmp_path: Path) -> None:
    drivers = DriverRegistry()
    drivers.add_driver(HostDriver)
    drivers.add_driver(MemoryDriver)
    both = tmp_path / "both.trail.yaml"
    both.write_text(ON_BOTH)
    pinned = tmp_path / "pinned.trail.yaml"  # a driver name (upstream's enum spelling works too) → its platform
    pinned.write_text("config:\n  devices:\n    tablet: IN-MEMORY\ntrail:\n  - step: look\n")
    elsewhere = tmp_path / "tv.trail.yaml"  # only a platform nothing here drives: runs as without the flag
    elsewhere.write_text("trail:\n  - step: look\n    recording:\n      tv-big:\n        - dumpMemory: {}\n")
    legacy = tmp_path / "legacy.trail.yaml"  # a v1 list: its config's platform
    legacy.write_text("- config:\n    platform: host\n- prompts:\n    - step: look\n")
    broken = tmp_path / "broken.trail.yaml"
    broken.write_text("trail: [\n")
    devices, plan = plan_every_device([both, pinned, elsewhere, legacy, broken], drivers)
    assert devices == ["host", "memory", None]
    assert plan == [[both, legacy], [both, pinned], [elsewhere, broken]]


def test_a_trail_runs_once_per_platform_each_a_result(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    # The device's own classifiers pick the recording it replays (a plain memory device: ``memory``).
    (tmp_path / "a.trail.yaml").write_text(ON_BOTH.replace("memory-tablet:", "memory:"))
    out = tmp_path / "out"
    result = run_cli(["run", str(tmp_path), "--all-devices", "--output-dir", str(out)], host=plugin_host)
    assert result.exit_code == 0, result.output
    assert "Results: 2 passed, 0 failed, 0 skipped" in result.output
    summary = json.loads(next((out / "reports").glob("trailblaze_test_results_*.json")).read_text())
    assert sorted((r["device"], r["driver"]) for r in summary["results"]) == [("host", "host"),
                                                                              ("memory", "in-memory")]
