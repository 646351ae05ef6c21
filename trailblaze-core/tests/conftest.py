from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["trailblaze.testing", "pytester"]  # pytester: the pytest plugin run in process


def make_dist(site: Path, dist: str, module: str, body: str, ep_name: str, version: str = "0.1.0") -> None:
    """Write a minimal installed distribution (a .dist-info with a ``trailblaze`` entry point)."""
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[trailblaze]\n{ep_name} = {module}\n")
    (site / f"{module}.py").write_text(body)


@pytest.fixture
def fake_site(tmp_path: Path):
    site = tmp_path / "site"
    site.mkdir()

    def add(dist: str, module: str, body: str, ep_name: str, version: str = "0.1.0") -> None:
        make_dist(site, dist, module, body, ep_name, version)

    add.path = site  # type: ignore[attr-defined]
    return add


def run_trailblaze(args: list[str], *, pythonpath: Path | None = None, env: dict[str, str] | None = None,
                   cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real ``trailblaze`` console entry in a subprocess (fresh plugin discovery)."""
    full_env = {**os.environ, **(env or {})}
    if pythonpath is not None:
        full_env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), full_env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", *args], capture_output=True, text=True,
                          env=full_env, cwd=cwd, timeout=120)


@pytest.fixture
def trailblaze_cmd():
    return run_trailblaze
