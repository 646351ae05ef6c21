"""The pytest plugin in a real pytest process (issue 22, MEDIUM 12 and the JUnit naming LOW item).

- ``trailblaze_trails = ["trails"]`` in the ini file adds the trails to what a bare ``pytest`` collects:
  the project's regular tests still run.
- ``pytest --junitxml`` and ``trailblaze run --junit-xml`` name a trail's test case the same way, and two
  trails with the same file name in different folders are two different test cases.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from junitparser import JUnitXml

TRAIL = """\
config:
  title: Log in
trail:
  - step: wait a moment
    recording:
      host:
        - wait: {timeToWaitInSeconds: 0}
"""


def project(tmp_path: Path, extra_ini: str = "") -> Path:
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text(f'[tool.pytest.ini_options]\ntrailblaze_trails = ["trails"]\n{extra_ini}')
    (root / "tests" / "test_regular.py").write_text("def test_regular():\n    assert 1 + 1 == 2\n")
    for folder in ("admin", "shopper"):
        (root / "trails" / folder).mkdir(parents=True)
        (root / "trails" / folder / "login.trail.yaml").write_text(TRAIL)
    return root


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=300, check=False)


def cases(path: Path) -> set[tuple[str, str]]:
    return {(case.classname, case.name) for suite in JUnitXml.fromfile(str(path)) for case in suite}


def test_a_bare_pytest_collects_the_regular_tests_and_the_ini_trails(tmp_path: Path) -> None:
    root = project(tmp_path)
    bare = run(["-m", "pytest", "-p", "no:cacheprovider", "-q", "--junitxml", "pytest.xml"], root)
    assert bare.returncode == 0, bare.stdout + bare.stderr
    assert "3 passed" in bare.stdout, bare.stdout  # the regular test and both trails, each once
    from_pytest = cases(root / "pytest.xml")
    assert ("tests.test_regular", "test_regular") in from_pytest

    cli = run(["-m", "trailblaze.cli", "run", "trails", "--junit-xml", "run.xml", "--output-dir", "logs"], root)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    from_run = cases(root / "run.xml")
    assert from_run == {("trails.admin.login.trail.yaml", "Log in [host]"),
                        ("trails.shopper.login.trail.yaml", "Log in [host]")}
    assert from_run <= from_pytest  # one naming rule: switching runners keeps the CI history


def test_testpaths_keep_working_with_the_ini_trails(tmp_path: Path) -> None:
    root = project(tmp_path, 'testpaths = ["tests"]\n')
    bare = run(["-m", "pytest", "-p", "no:cacheprovider", "-q"], root)
    assert bare.returncode == 0, bare.stdout + bare.stderr
    assert "3 passed" in bare.stdout, bare.stdout


def test_trails_on_the_command_line_still_run_only_the_trails(tmp_path: Path) -> None:
    root = project(tmp_path)
    only = run(["-m", "pytest", "-p", "no:cacheprovider", "-q", "--trails", "trails/admin"], root)
    assert only.returncode == 0, only.stdout + only.stderr
    assert "1 passed" in only.stdout, only.stdout
