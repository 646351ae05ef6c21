"""A pool of Playwright servers, one per worker: ``trailblaze run -n 2 --endpoint A --endpoint B`` (or the
same pool under ``endpoints:`` in trailblaze.yaml) binds each xdist worker to its own ``playwright
run-server`` and every trail's result names the endpoint."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from trailblaze.report.bundle import read_bundle
from trailblaze.testing import endpoints_by_worker

from .conftest import REPO, SHOP

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
    # pytest -n refuses the same pool before a worker starts (a usage error), as run -n does.
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--trails",
                           str(SHOP / "trails"), "-n", "2", "--trailblaze-endpoint", "ws://127.0.0.1:9/"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "2 workers need at least 2 endpoints (--endpoint given 1)" in done.stderr


def _shop_with(tmp_path: Path, endpoints: str) -> Path:
    """A copy of the example shop whose trailblaze.yaml ends with ``endpoints``."""
    ws = tmp_path / "shop"
    shutil.copytree(SHOP, ws, ignore=shutil.ignore_patterns("tests", "logs", "broken", "__pycache__"))
    config = ws / "trails" / "config" / "trailblaze.yaml"
    config.write_text(config.read_text(encoding="utf-8") + endpoints, encoding="utf-8")
    return ws


def _run(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    trails = [str(ws / "trails" / name) for name in ("sign-in.trail.yaml", "cart.trail.yaml",
                                                    "sign-out.trail.yaml", "search-and-sort.trail.yaml")]
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", *trails, "-n", "2", *args],
                          cwd=ws, capture_output=True, text=True, timeout=600, check=False, env=dict(os.environ))


def test_the_pool_in_trailblaze_yaml_binds_the_workers_and_endpoint_overrides_it(  # type: ignore[no-untyped-def]
        tmp_path: Path, chromium: str, playwright_servers: Callable[[], str]) -> None:
    servers = [playwright_servers(), playwright_servers()]
    launch = json.dumps({"executablePath": chromium, "args": ["--no-sandbox", "--disable-gpu"]})
    # docs/scale-out.md's example, with its two browser servers replaced by the local ones.
    doc = (REPO / "docs" / "scale-out.md").read_text(encoding="utf-8")
    example = doc[doc.index("## Device endpoints per worker"):].split("```yaml\n", 1)[1].split("```", 1)[0]
    assert "ws://browsers-1:3000/" in example and "http://appium-2:4723" in example
    ws = _shop_with(tmp_path, example.replace("ws://browsers-1:3000/", servers[0])
                    .replace("ws://browsers-2:3000/", servers[1]))
    done = _run(ws, "-o", f"connect_launch_options={launch}", "--output-dir", str(tmp_path / "yaml"))
    assert done.returncode == 0, done.stdout + done.stderr
    merged = read_bundle(tmp_path / "yaml")
    assert len(merged.records) == 4 and all(r.outcome == "Succeeded" for r in merged.records)
    assert sorted(endpoints_by_worker(tmp_path / "yaml", servers).values()) == sorted(servers)

    # --endpoint replaces the file's pool: here the file's pool is dead ports, and the run still passes.
    (ws / "trails" / "config" / "trailblaze.yaml").write_text(
        (ws / "trails" / "config" / "trailblaze.yaml").read_text(encoding="utf-8")
        .replace(servers[0], "ws://127.0.0.1:9/").replace(servers[1], "ws://127.0.0.1:9/"), encoding="utf-8")
    done = _run(ws, "--endpoint", servers[1], "--endpoint", servers[0], "-o", f"connect_launch_options={launch}",
                "--output-dir", str(tmp_path / "cli"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(endpoints_by_worker(tmp_path / "cli", servers).values()) == sorted(servers)


def test_a_bad_pool_in_trailblaze_yaml_is_bad_input_at_its_line(tmp_path: Path) -> None:
    ws = _shop_with(tmp_path, "endpoints:\n  web:\n    - ws://127.0.0.1:9/\n")
    done = _run(ws)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert "trailblaze.yaml:12:3" in done.stderr and "2 workers need at least 2 endpoints ('endpoints.web' has 1)" \
        in done.stderr, done.stderr
    config = ws / "trails" / "config" / "trailblaze.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("- ws://127.0.0.1:9/", "- ''"), encoding="utf-8")
    done = _run(ws)
    assert done.returncode == 3 and "trailblaze.yaml:13:7" in done.stderr
    assert "section 'endpoints': setting 'web.0': String should have at least 1 character" in done.stderr, done.stderr
    config.write_text(text.replace("  web:", "  webb:").replace("ws://127.0.0.1:9/\n", "ws://a/\n    - ws://b/\n"),
                      encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", str(ws / "trails" / "sign-in.trail.yaml")],
                          cwd=ws, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 3 and "'endpoints.webb': no installed driver is called 'webb'" in done.stdout + done.stderr
