"""A pool of Playwright servers, one per worker: ``trailblaze run -n 2 --endpoint A --endpoint B`` binds
each xdist worker to its own ``playwright run-server`` and every trail's result names the endpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from trailblaze.report.bundle import read_bundle
from trailblaze.testing import endpoints_by_worker

from .conftest import SHOP

pytestmark = pytest.mark.browser


def test_two_workers_on_two_playwright_servers(tmp_path: Path, chromium: str,
                                               playwright_servers: Callable[[], str]) -> None:
    servers = [playwright_servers(), playwright_servers()]
    launch = json.dumps({"executablePath": chromium, "args": ["--no-sandbox", "--disable-gpu"]})
    trails = [str(SHOP / "trails" / name) for name in ("sign-in.trail.yaml", "cart.trail.yaml",
                                                      "sign-out.trail.yaml", "search-and-sort.trail.yaml")]
    done = subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", *trails, "-n", "2",
                           "--endpoint", servers[0], "--endpoint", servers[1],
                           "-o", f"connect_launch_options={launch}", "--output-dir", str(tmp_path / "out")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
                          env=dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr
    merged = read_bundle(tmp_path / "out")
    assert len(merged.records) == 4 and all(r.outcome == "Succeeded" for r in merged.records)
    endpoints = list(endpoints_by_worker(tmp_path / "out", servers).values())
    assert set(merged.manifest.endpoints) == set(endpoints)
    report = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert all(url in report for url in endpoints)


def test_fewer_endpoints_than_workers_is_bad_input(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", str(SHOP / "trails"), "-n", "2",
                           "--endpoint", "ws://127.0.0.1:9/"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 3
    assert "2 workers need at least 2 endpoints (--endpoint given 1)" in done.stderr
