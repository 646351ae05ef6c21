"""Every CI recipe in docs/ runs: each shell line of each recipe is executed, in order, here (issue 22, MEDIUM 14).

A recipe is a ```yaml block of a docs page whose first line names a CI file (``# .github/workflows/…`` or
``# .gitlab-ci.yml``). Its shell lines — GitHub ``run:`` steps, GitLab ``before_script``/``script`` items —
run with ``bash -e`` in a fresh project that has one passing and one failing web trail, with a Python
virtual environment (with pip) first on PATH, as ``actions/setup-python`` or a ``python`` image gives
a job. CI expressions get the values a first shard would see. The only stand-ins, because this machine
reaches nothing but loopback and the package index:

- ``TRAILBLAZE_GIT_URL`` is this checkout (``file://``), so the clone-and-build line builds these wheels;
- ``python -m playwright install --with-deps chromium`` runs as ``--dry-run`` without ``--with-deps``
  (it would download a browser and apt-install system libraries into this shared machine; the browser
  here is the machine's Chromium, ``TRAILBLAZE_CHROMIUM``).

``uses:`` steps are not shell lines; what they would upload (the artifact paths, the JUnit file) is
checked to exist.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from junitparser import JUnitXml
from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
HEAD = re.compile(r"^# (\.github/workflows/\S+|\.gitlab-ci\.yml)")
EXPRESSIONS = {"${{ matrix.shard }}": "1", "${{ secrets.SHOP_PASSWORD }}": "secret123",
               "${CI_NODE_INDEX}": "1", "${CI_NODE_TOTAL}": "3"}
STAND_INS = {"python -m playwright install --with-deps chromium":
             "python -m playwright install --dry-run chromium"}

pytestmark = [pytest.mark.wheels, pytest.mark.browser]

HELLO = """\
config:
  title: {title}
  devices:
    web: PLAYWRIGHT_NATIVE
trail:
  - step: Open the page
    recording:
      web:
        - web_navigate: {{url: "data:text/html,<h1>Hello CI</h1>"}}
  - verify: The greeting is shown
    recording:
      web:
        - web_verifyTextVisible: {{text: {text}}}
"""


@dataclass
class Recipe:
    doc: str
    kind: str
    lines: list[str]
    env: dict[str, str] = field(default_factory=dict)
    artifacts: list[str] = field(default_factory=list)
    step_env: dict[int, dict[str, str]] = field(default_factory=dict)
    """A GitHub step's own ``env:``, by the index of its line."""

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.kind}"


def recipes() -> list[Recipe]:
    found: list[Recipe] = []
    for doc in sorted(DOCS.glob("*.md")):
        for block in re.findall(r"```yaml\n(.*?)```", doc.read_text(encoding="utf-8"), re.DOTALL):
            head = HEAD.match(block)
            if head:
                found.append(_parse(doc.name, head.group(1), YAML(typ="safe").load(block)))
    return found


def _parse(doc: str, kind: str, data: Any) -> Recipe:
    recipe = Recipe(doc, kind, [])
    if kind.startswith(".github"):
        steps = data if isinstance(data, list) else [s for job in data["jobs"].values() for s in job["steps"]]
        if isinstance(data, dict):
            recipe.env.update({k: str(v) for k, v in (data.get("env") or {}).items()})
        for step in steps:
            if "run" in step:
                if step.get("env"):
                    recipe.step_env[len(recipe.lines)] = {k: str(v) for k, v in step["env"].items()}
                recipe.lines.append(" ".join(step["run"].split()))
            path = (step.get("with") or {}).get("path")
            if path:
                recipe.artifacts.extend(p for p in str(path).split() if p)
    else:
        for job in data.values():
            if isinstance(job, dict) and "script" in job:
                recipe.env.update({k: str(v) for k, v in (job.get("variables") or {}).items()})
                recipe.lines.extend([*job.get("before_script", []), *job["script"]])
                recipe.artifacts.extend((job.get("artifacts") or {}).get("paths") or [])
    return recipe


def _local(line: str) -> str:
    for expression, value in EXPRESSIONS.items():
        line = line.replace(expression, value)
    assert "${{" not in line, f"a CI expression this test does not know: {line}"
    for documented, stand_in in STAND_INS.items():
        line = line.replace(documented, stand_in)
    return line


def test_the_docs_hold_the_recipes_this_test_runs() -> None:
    kinds = {(r.doc, r.kind) for r in recipes()}
    assert {("pytest.md", ".github/workflows/trails.yml"), ("pytest.md", ".gitlab-ci.yml"),
            ("mcp-server.md", ".github/workflows/trails.yml")} <= kinds, kinds
    for recipe in recipes():
        text = " ".join(recipe.lines)
        assert "pip install" in text and "password=secret" not in text, recipe.id  # secrets come from the CI's store
        if "pytest --trails" in text and "-n " in text:  # workers need xdist; uploaded traces must be recorded
            assert "pytest-xdist" in text and "trace=retain-on-failure" in text, recipe.id


@pytest.mark.parametrize("recipe", recipes(), ids=lambda r: r.id)
def test_every_shell_line_of_the_recipe_runs(recipe: Recipe, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "trails").mkdir(parents=True)
    (project / "trails" / "hello.trail.yaml").write_text(HELLO.format(title="Hello", text="Hello CI"))
    uses_pytest = any(_runs_pytest(line) for line in recipe.lines)
    if uses_pytest:  # the failing trail shows the trace and screenshot the recipe uploads
        (project / "trails" / "broken.trail.yaml").write_text(HELLO.format(title="Broken", text="Goodbye"))
    venv = tmp_path / "venv"
    subprocess.run(["uv", "venv", "--quiet", "--seed", str(venv)], check=True, capture_output=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH", "UV_", "PYTEST_"))}
    env.update(recipe.env)
    env.update({"PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}", "TRAILBLAZE_GIT_URL": f"file://{REPO}",
                "TRAILBLAZE_HOME": str(tmp_path / "home")})
    if not any("uv build" in line for line in recipe.lines):  # a steps excerpt: the wheels come from the job
        _build_wheels(project / "wheels")
    for n, line in enumerate(map(_local, recipe.lines)):
        line_env = {**env, **{k: _local(v) for k, v in recipe.step_env.get(n, {}).items()}}
        done = subprocess.run(["bash", "-e", "-c", line], cwd=project, env=line_env, capture_output=True, text=True,
                              timeout=900, check=False)
        expected = 1 if _runs_pytest(line) else 0  # pytest fails the job on the broken trail, as CI would
        assert done.returncode == expected, f"{recipe.id}: `{line}` exited {done.returncode}\n{done.stdout[-3000:]}" \
                                            f"\n{done.stderr[-3000:]}"
    for pattern in recipe.artifacts:
        if uses_pytest or "trace" not in pattern and "_failed" not in pattern:
            assert glob.glob(pattern, root_dir=project, recursive=True), f"{recipe.id}: nothing matches {pattern}"
    if uses_pytest:
        [junit] = [p for p in project.glob("junit*.xml")]
        suite = next(iter(JUnitXml.fromfile(str(junit))))
        assert suite.failures == 1, junit.read_text()
        # The recipe's line for a job without pytest, in the same job environment.
        shutil.rmtree(project / "logs")
        junit.unlink()
        done = subprocess.run(["bash", "-e", "-c", without_pytest()], cwd=project, env=env, capture_output=True,
                              text=True, timeout=900, check=False)
        assert done.returncode == 1, done.stdout + done.stderr  # the broken trail fails the job
        assert glob.glob("logs/reports/trailblaze_report_*.html", root_dir=project)
        assert glob.glob("logs/**/trace.zip", root_dir=project, recursive=True)
        assert next(iter(JUnitXml.fromfile(str(project / "junit.xml")))).failures == 1


def without_pytest() -> str:
    """docs/pytest.md's line for a CI job without pytest (``replace the `pytest` line with `…```)."""
    text = " ".join((DOCS / "pytest.md").read_text(encoding="utf-8").split())
    found = re.search(r"replace the `pytest` line with `(trailblaze run [^`]+)`", text)
    assert found, "docs/pytest.md no longer says how to run without pytest"
    return found.group(1)


def _runs_pytest(line: str) -> bool:
    return line.lstrip().startswith("pytest ")


def _build_wheels(out: Path) -> None:
    subprocess.run(["uv", "build", "--all-packages", "--wheel", "--quiet", "-o", str(out)], cwd=REPO, check=True,
                   capture_output=True, timeout=600)
