"""`trailblaze plugin new` generates a plugin that works as generated: built with `uv build`, installed
with the trailblaze wheels into a clean venv without pytest-xdist, its own tests pass there; and its CI
recipe's shell lines, run as written, pass too."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML


REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.wheels

UV = shutil.which("uv") or "uv"


def generate(tmp_path: Path, *args: str) -> Path:
    target = tmp_path / "plugin"
    proc = subprocess.run([sys.executable, "-m", "trailblaze.cli", "plugin", "new", "acme-shop", "-o", str(target),
                           *args], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "Created trailblaze-acme-shop" in proc.stdout
    return target


@pytest.mark.parametrize(("args", "passed"), [(("--driver",), 4), (("--kind", "output"), 2),
                                              (("--kind", "hooks"), 1)], ids=["tools", "output", "hooks"])
def test_a_generated_plugin_passes_its_own_tests_in_a_clean_venv(wheelhouse: Callable[[str], Path],
                                                                clean_venv: Any, tmp_path: Path,
                                                                args: tuple[str, ...], passed: int) -> None:
    plugin = generate(tmp_path, *args)
    dist = tmp_path / "dist"
    subprocess.run([UV, "build", "--wheel", "--quiet", "-o", str(dist), str(plugin)], check=True,
                   capture_output=True, text=True, timeout=300)
    (wheel,) = dist.glob("trailblaze_acme_shop-*.whl")
    clean_venv.install(wheelhouse("trailblaze-core"), wheelhouse("trailblaze-yaml-tools"), wheel)
    subprocess.run([UV, "pip", "install", "--quiet", "--python", str(clean_venv.python), "pytest>=8"],
                   check=True, capture_output=True, text=True, timeout=600)
    assert clean_venv.run("python", "-c", "import xdist").returncode != 0  # the point: no pytest-xdist

    tests = clean_venv.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", cwd=plugin)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert f"{passed} passed" in tests.stdout

    plugins = clean_venv.run("trailblaze", "plugins", cwd=tmp_path)
    assert "acme_shop (trailblaze-acme-shop 0.1.0): ok" in plugins.stdout, plugins.stdout + plugins.stderr
    (trail,) = (plugin / "trails").glob("*.trail.yaml")
    person = ("--arg", "person=Ada") if trail.name == "greet.trail.yaml" else ()  # the tools kind's trail
    run = clean_venv.run("trailblaze", "run", f"trails/{trail.name}", *person, "--no-report", cwd=plugin)
    assert run.returncode == 0, run.stdout + run.stderr


def _doc_commands() -> list[str]:
    text = (REPO / "docs" / "writing-a-plugin.md").read_text(encoding="utf-8")
    block = text[text.index("The quickest start is the template"):].split("```bash\n", 1)[1].split("```", 1)[0]
    return block.strip().splitlines()


def test_the_documented_commands_and_the_generated_ci_recipe_run_as_written(wheelhouse: Callable[[str], Path],
                                                                            tmp_path: Path) -> None:
    commands = _doc_commands()
    assert commands[0] == "trailblaze plugin new acme-shop --driver" and commands[1] == "cd trailblaze-acme-shop"
    # Until trailblaze is on PyPI, pip finds its wheels through PIP_FIND_LINKS (what the docs say).
    links = {wheelhouse("trailblaze-core").parent, wheelhouse("trailblaze-yaml-tools").parent}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH", "UV_"))}
    env["PIP_FIND_LINKS"] = " ".join(map(str, links))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # `trailblaze`, a 3.11 `python`
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(commands)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "4 passed" in proc.stdout
    plugin = tmp_path / "trailblaze-acme-shop"
    assert subprocess.run([str(plugin / ".venv/bin/python"), "-c", "import xdist"], capture_output=True,
                          check=False).returncode != 0

    recipe = YAML(typ="safe").load((plugin / ".github/workflows/test.yml").read_text())
    (step,) = [s for s in recipe["jobs"]["test"]["steps"] if "run" in s]
    assert step["run"].strip().splitlines() == commands[2:]  # CI runs exactly what was just run
