"""``{{run.shard_index}}``, ``{{run.shard_count}}``, ``{{run.worker_id}}`` and ``{{run.endpoint}}``: a trail
reads where it runs (each shard can use its own test account)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TRAIL = """config:
  id: facts/{name}
  title: Run facts {name}
trail:
  - step: The shard is {index} of 2, on no worker and no endpoint
    recording:
      host:
        - assertEquals: {{actual: "{{{{run.shard_index}}}}/{{{{run.shard_count}}}}", expected: "{index}/2"}}
        - assertEquals: {{actual: "[{{{{run.worker_id}}}}][{{{{run.endpoint}}}}]", expected: "[][]"}}
"""


def _workspace(root: Path) -> Path:
    (root / "trails" / "config").mkdir(parents=True)
    (root / "trails" / "config" / "trailblaze.yaml").write_text("defaults:\n  driver: host\n", encoding="utf-8")
    for name, index in (("a", 1), ("b", 2)):  # no durations: a round-robin of the sorted trails
        (root / "trails" / f"{name}.trail.yaml").write_text(TRAIL.format(name=name, index=index), encoding="utf-8")
    return root


def test_each_shard_reads_its_own_index(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    for shard, title in (("1/2", "Run facts a"), ("2/2", "Run facts b")):
        done = subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", "trails", "--shard", shard,
                               "--output-dir", str(tmp_path / shard.replace("/", "-"))],
                              cwd=ws, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"PASSED: {title}" in done.stdout and done.stdout.splitlines()[-1].startswith("Results: 1 passed")
