"""Installing `trailblaze` must not break pytest in an environment without pytest-xdist or the `mcp` extra.

The plugin is loaded through the `pytest11` entry point in *every* pytest run there, so an xdist-only hook
declared as required would abort even suites that never touch Trailblaze.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.wheels


def test_pytest_runs_without_xdist_and_mcp(wheelhouse, clean_venv, tmp_path: Path) -> None:
    clean_venv.install(wheelhouse("trailblaze-core"), wheelhouse("trailblaze-yaml-tools"),
                       wheelhouse("examples/trailblaze-acme"))
    subprocess.run([shutil.which("uv") or "uv", "pip", "install", "--quiet", "--python",
                    str(clean_venv.python), "pytest"], check=True, capture_output=True, text=True,
                   timeout=600)
    present = clean_venv.run("python", "-c",
                             "import importlib.util as u; print(u.find_spec('xdist'), u.find_spec('mcp'))")
    assert present.stdout.split() == ["None", "None"], present.stdout + present.stderr
    work = tmp_path / "project"
    work.mkdir()

    # (a) an unrelated test file: the plugin loads (pytest11) and stays out of the way.
    (work / "test_unrelated.py").write_text("def test_sum():\n    assert 1 + 1 == 2\n")
    unrelated = clean_venv.run("pytest", "-p", "no:cacheprovider", "-q", "test_unrelated.py", cwd=work)
    assert unrelated.returncode == 0, unrelated.stdout + unrelated.stderr
    assert "1 passed" in unrelated.stdout
    assert "INTERNALERROR" not in unrelated.stdout + unrelated.stderr

    # (b) the documented plugin test kit (docs/writing-a-plugin.md §5); its MCP test needs the `mcp` extra.
    shutil.copy(REPO / "examples/trailblaze-acme/tests/test_authoring_kit.py", work / "test_authoring_kit.py")
    kit = clean_venv.run("pytest", "-p", "no:cacheprovider", "-q", "-W", "error", "test_authoring_kit.py",
                         "--deselect", "test_authoring_kit.py::test_mcp_tool", cwd=work)
    assert kit.returncode == 0, kit.stdout + kit.stderr
    assert "3 passed, 1 deselected" in kit.stdout

    # (c) trails as tests.
    shutil.copy(REPO / "examples/trailblaze-acme/trails/greet.trail.yaml", work / "greet.trail.yaml")
    trails = clean_venv.run("pytest", "-p", "no:cacheprovider", "-q", "--trails", "greet.trail.yaml",
                            "--trailblaze-arg", "person=Lin", cwd=work)
    assert trails.returncode == 0, trails.stdout + trails.stderr
    assert "1 passed" in trails.stdout
