"""The merged report of two CI shards, in Chromium: a trail that failed once and passed on its retry is
in the *flaky* bucket, and its row opens on each attempt (real ``trailblaze`` processes, real files)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FLAKY = """\
import sys
from pathlib import Path
counter = Path(sys.argv[1])
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
if n <= 1:
    print("backend not ready")
    sys.exit(1)
"""


@pytest.fixture
def page(chromium: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=None if chromium == "playwright" else chromium, headless=True)
        try:
            yield browser.new_page(viewport={"width": 1200, "height": 900})
        finally:
            browser.close()


def _trailblaze(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TRAILBLAZE_RUN_ID"}
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300, check=False)


def test_the_merged_report_shows_the_flaky_bucket_and_each_attempt(page: Any, tmp_path: Path) -> None:
    trails = tmp_path / "trails"
    trails.mkdir()
    (tmp_path / "flaky.py").write_text(FLAKY)
    argv = json.dumps([sys.executable, str(tmp_path / "flaky.py"), str(tmp_path / "flaky.count")])
    (trails / "flaky.trail.yaml").write_text(
        f"config:\n  id: flaky\ntrail:\n  - step: check the backend\n    recording:\n      host:\n"
        f"        - exec: {{argv: {argv}}}\n")
    for name in ("p0", "p1", "p2"):
        (trails / f"{name}.trail.yaml").write_text(
            f"config:\n  id: {name}\ntrail:\n  - step: wait\n    recording:\n      host:\n"
            "        - wait: {timeToWaitInSeconds: 0.01}\n")
    for i in (1, 2):
        done = _trailblaze(["run", "trails", "--retries", "1", "--shard", f"{i}/2", "--output-dir", f"s{i}"],
                           tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
    merged = _trailblaze(["merge-reports", "s1", "s2", "--output-dir", "M"], tmp_path)
    assert merged.returncode == 0 and "(1 flaky)" in merged.stdout, merged.stdout + merged.stderr

    page.goto((tmp_path / "M" / "report.html").as_uri())
    assert "(1 flaky)" in page.title()
    page.select_option("#f-outcome", "flaky")
    rows = page.locator("#rows > tr")
    assert rows.count() == 1 and rows.first.locator(".badge").inner_text() == "FLAKY"
    assert 'attempt 1: step 1 "check the backend"' in rows.first.inner_text()  # why it was flaky, at a glance
    assert page.locator("#count").inner_text() == "1 of 4 trail runs"
    rows.first.click()
    attempts = page.locator("table.attempts tr")
    assert attempts.count() == 3  # the header, attempt 1, attempt 2
    assert [attempts.nth(i).locator(".badge").inner_text() for i in (1, 2)] == ["FAILED", "PASSED"]
    assert 'step 1 "check the backend"' in attempts.nth(1).inner_text()
    logs = attempts.nth(1).locator("a").get_attribute("href")
    assert logs and (tmp_path / "M" / logs).resolve().is_dir()  # the failed attempt's own logs
    page.select_option("#f-outcome", "passed")
    assert page.locator("#count").inner_text() == "3 of 4 trail runs"
