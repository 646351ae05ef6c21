"""docs/results.md is true: every shell command it shows runs, in the order shown, in a workspace with a
trail that fails its first attempt, and does what the page says."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "results.md"

FLAKY = """\
import sys
from pathlib import Path
counter = Path(sys.argv[1])
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
sys.exit(1 if n == 1 else 0)
"""

EXPECTED = {  # command → (exit code, text its output contains)
    "trailblaze run trails --retries 2 --junit-xml junit.xml": (0, "(1 flaky)"),
    "trailblaze run trails --retries 2 --fail-on-flaky": (1, "(1 flaky)"),
    "pytest --trails trails --trailblaze-retries 2": (0, "2 passed"),
    "trailblaze results": (0, "shop/checkout"),
    "trailblaze results shop/checkout --last 50": (0, "≈"),
    "trailblaze results --flaky --json": (0, '"flake_rate"'),
    "trailblaze run trails --retries 2 --alluredir allure-results": (0, "(1 flaky)"),
    "allure generate allure-results -o allure-report": (0, ""),
    "trailblaze run trails --retries 2 --max-llm-cost 0.50": (0, "(1 flaky)"),
}


def doc_commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_the_documented_commands_are_the_tested_ones() -> None:
    assert doc_commands() == [c for c in EXPECTED if c in doc_commands()] and set(doc_commands()) == set(EXPECTED)


def test_every_documented_command_runs(tmp_path: Path) -> None:
    allure = os.environ.get("TRAILBLAZE_ALLURE_BIN") or str(REPO / ".tools/node/node_modules/.bin/allure")
    if not Path(allure).exists():
        pytest.fail("the Allure generator is not installed: run scripts/bootstrap.sh or set TRAILBLAZE_ALLURE_BIN")
    (tmp_path / "trails" / "config").mkdir(parents=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text("defaults: {}\n")
    (tmp_path / "flaky.py").write_text(FLAKY)
    argv = json.dumps([sys.executable, str(tmp_path / "flaky.py"), str(tmp_path / "count")])
    (tmp_path / "trails" / "checkout.trail.yaml").write_text(
        f"config:\n  id: shop/checkout\ntrail:\n  - step: wait for the backend\n    recording:\n      host:\n"
        f"        - exec: {{argv: {argv}}}\n")
    (tmp_path / "trails" / "home.trail.yaml").write_text(
        "config:\n  id: shop/home\ntrail:\n  - step: pause\n    recording:\n      host:\n"
        "        - wait: {timeToWaitInSeconds: 0}\n")
    programs = {"trailblaze": [sys.executable, "-m", "trailblaze.cli"], "allure": [allure],
                "pytest": [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=",
                           "--rootdir", str(tmp_path)]}
    for command in doc_commands():
        (tmp_path / "count").unlink(missing_ok=True)  # every run's first attempt of checkout fails
        words = shlex.split(command)
        done = subprocess.run([*programs[words[0]], *words[1:]], cwd=tmp_path, capture_output=True, text=True,
                              timeout=300, check=False)
        code, text = EXPECTED[command]
        out = done.stdout + done.stderr
        assert done.returncode == code and text in out, f"{command}\n{out}"
    assert "flakyFailure" in (tmp_path / "junit.xml").read_text()
    assert (tmp_path / ".trailblaze" / "results.db").is_file()
    assert json.loads((tmp_path / "allure-report" / "summary.json").read_text())["stats"]["flaky"] == 1
