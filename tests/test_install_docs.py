"""docs/install.md is true: the wheels build with the documented `uv build` command and install into a clean
virtual environment with the documented `--find-links` command, and the git-URL form installs too; the
installed `trailblaze` then runs an example trail with no workspace checkout around it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "install.md"
BUILD = "uv build --all-packages --wheel -o dist"
INSTALL = "pip install --find-links dist trailblaze trailblaze-driver-web trailblaze-yaml-tools"

pytestmark = pytest.mark.wheels


def _uv() -> str:
    uv = shutil.which("uv")
    if uv is None:
        pytest.fail("uv is not on PATH: run scripts/bootstrap.sh")
    return uv


def test_the_documented_commands_are_the_tested_ones() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert BUILD in text and INSTALL in text
    assert "#subdirectory=trailblaze-core" in text and "git+file:///" in text


def test_wheels_built_and_installed_as_documented_run_a_trail(clean_venv, tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    build = subprocess.run([_uv(), *BUILD.split()[1:-1], str(dist)], cwd=REPO, capture_output=True, text=True,
                           timeout=600, check=False)
    assert build.returncode == 0, build.stderr
    names = sorted(p.name.split("-")[0] for p in dist.glob("*.whl"))
    assert {"trailblaze", "trailblaze_driver_web", "trailblaze_yaml_tools", "trailblaze_mcp_subprocess",
            "trailblaze_driver_android", "trailblaze_driver_ios"} <= set(names), names

    # `pip install --find-links dist NAMES` (uv pip: the clean venv has no pip of its own)
    install = subprocess.run([_uv(), "pip", "install", "--quiet", "--python", str(clean_venv.python),
                              "--find-links", str(dist), *INSTALL.split()[4:]],
                             capture_output=True, text=True, timeout=600, check=False)
    assert install.returncode == 0, install.stderr

    work = tmp_path / "elsewhere"
    shutil.copytree(REPO / "examples" / "host-demo", work, ignore=shutil.ignore_patterns("tests", "logs"))
    plugins = clean_venv.run("trailblaze", "plugins", "--json", cwd=work)
    assert plugins.returncode == 0, plugins.stderr
    found = {p["name"]: p["distribution"] for p in json.loads(plugins.stdout) if not p["builtin"]}
    assert found == {"web": "trailblaze-driver-web", "yaml_tools": "trailblaze-yaml-tools"}
    run = clean_venv.run("trailblaze", "run", "trails", cwd=work)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Results: 2 passed, 0 failed, 0 skipped" in run.stdout


def test_git_url_with_subdirectory_installs(clean_venv) -> None:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=False)
    if head.returncode != 0:
        pytest.skip("not a git checkout (a source archive): the git-URL form needs a repository")
    url = f"git+file://{REPO}@{head.stdout.strip()}#subdirectory=trailblaze-core"
    install = subprocess.run([_uv(), "pip", "install", "--quiet", "--python", str(clean_venv.python),
                              f"trailblaze @ {url}"], capture_output=True, text=True, timeout=600, check=False)
    assert install.returncode == 0, install.stderr
    version = clean_venv.run("trailblaze", "--version")
    assert version.returncode == 0 and version.stdout.startswith("trailblaze 0."), version.stdout + version.stderr
