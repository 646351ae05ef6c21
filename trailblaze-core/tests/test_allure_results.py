"""``trailblaze run --alluredir``: Allure results through allure-python-commons, turned into a report by
the real Allure 3 generator from npm (scripts/node-tools)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from trailblaze.testing import run_cli

from .test_retries import flaky_trail

REPO = Path(__file__).resolve().parents[2]


def allure_bin() -> str:
    binary = os.environ.get("TRAILBLAZE_ALLURE_BIN") or str(REPO / ".tools/node/node_modules/.bin/allure")
    if not Path(binary).exists():
        pytest.fail("the Allure generator is not installed: run scripts/bootstrap.sh or set TRAILBLAZE_ALLURE_BIN")
    return binary


def test_the_allure_report_lists_every_trail_with_steps_attachments_and_retries(tmp_path: Path,
                                                                              plugin_host) -> None:  # type: ignore[no-untyped-def]
    flaky_trail(tmp_path, "checkout", fail_first=1, config="  tags: [smoke]\n")
    flaky_trail(tmp_path, "login", fail_first=9)
    results = tmp_path / "allure-results"
    run = run_cli(["run", str(tmp_path), "--retries", "1", "--alluredir", str(results), "--secret", "pw=hunter2",
                   "--output-dir", str(tmp_path / "out")], host=plugin_host)
    assert run.exit_code == 1, run.output
    written = [json.loads(p.read_text()) for p in results.glob("*-result.json")]
    assert len(written) == 4  # two attempts each
    assert all("hunter2" not in p.read_text(errors="replace") for p in results.iterdir())

    report = tmp_path / "report"
    done = subprocess.run([allure_bin(), "generate", str(results), "-o", str(report)], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((report / "summary.json").read_text())
    assert summary["stats"]["total"] == 2 and summary["stats"]["retries"] == 2 and summary["stats"]["flaky"] == 1
    tests = {}
    for path in (report / "data" / "test-results").glob("*.json"):
        data = json.loads(path.read_text())
        tests.setdefault(data["name"], []).append(data)
    assert set(tests) == {"shop/checkout [host]", "shop/login [host]"}
    final = next(t for t in tests["shop/checkout [host]"] if t["status"] == "passed")
    assert final["flaky"] is True and len(final["retries"]) == 1
    assert [s["name"] for s in final["steps"] if s.get("name")] == ["step 1: wait for the backend"]
    assert final["steps"][0]["steps"][0]["name"].startswith("exec ")
    assert {"name": "tag", "value": "smoke"} in final["labels"]
    attachments = list((report / "data" / "attachments").iterdir())
    assert attachments and any(p.suffix == ".ndjson" for p in attachments)  # each attempt's event log
    login = [t for t in tests["shop/login [host]"] if t["status"] == "failed"]
    assert login and "exited with 1" in login[0]["error"]["message"]


def test_without_allure_python_commons_the_flag_is_a_clear_usage_error(tmp_path: Path) -> None:
    trail = flaky_trail(tmp_path, "checkout", fail_first=0)
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "allure_commons.py").write_text("raise ImportError('not installed')\n")
    env = {**os.environ, "PYTHONPATH": str(blocker)}
    done = subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", str(trail), "--alluredir",
                           str(tmp_path / "a"), "--output-dir", str(tmp_path / "o")], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "--alluredir needs allure-python-commons" in done.stderr and "trailblaze[allure]" in done.stderr
    assert "Traceback" not in done.stderr


def test_with_allure_pytest_the_trail_steps_land_in_its_test(tmp_path: Path) -> None:
    trail = flaky_trail(tmp_path, "checkout", fail_first=1, config="  tags: [smoke]\n")
    results = tmp_path / "allure-results"
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--trails", str(trail),
                           "--trailblaze-retries", "1", "--alluredir", str(results), "--rootdir", str(tmp_path),
                           "-o", "addopts=", "--trailblaze-output-dir", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    (result,) = [json.loads(p.read_text()) for p in results.glob("*-result.json")]
    assert result["status"] == "passed" and {"name": "tag", "value": "smoke"} in result["labels"]
    first, second = result["steps"]
    assert first["name"] == "attempt 1: FAILED" and first["status"] == "failed"
    assert first["steps"][0]["name"] == "step 1: wait for the backend" and first["steps"][0]["status"] == "failed"
    assert first["steps"][0]["steps"][0]["name"].startswith("exec ")
    assert second["name"] == "attempt 2: PASSED" and second["status"] == "passed"
    for attempt in (first, second):  # each attempt's own event log, in its step
        assert any(a["name"] == "session.ndjson" for a in attempt["attachments"])
