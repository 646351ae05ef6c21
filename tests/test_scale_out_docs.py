"""docs/scale-out.md runs: its shell examples in order, and every shell line of the GitHub Actions and
GitLab recipes against the example trails, with the CI's matrix and artifact hand-over played by the test
(two shard processes, then the merge job)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from junitparser import JUnitXml
from ruamel.yaml import YAML

from trailblaze.report.bundle import load_durations, read_bundle

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "scale-out.md"
INSTALL = "pip install "
"""The one kind of line left to the CI image: installing trailblaze (the test runs in this checkout's venv)."""


def _recipe(heading: str) -> Any:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index(heading):]
    return YAML(typ="safe").load(section.split("```yaml\n", 1)[1].split("```", 1)[0])


def _lines(commands: list[str]) -> list[str]:
    return [line for block in commands for line in block.splitlines() if line.strip()]


def _sh(line: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", **(env or {})}
    return subprocess.run(["bash", "-e", "-c", line], cwd=cwd, env=full, capture_output=True, text=True,
                          timeout=600, check=False)


def _run_all(lines: list[str], cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    ran = []
    for line in lines:
        if line.startswith(INSTALL):
            continue
        done = _sh(line, cwd, env)
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
        ran.append(line)
    return ran


def _bash_blocks() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    blocks = [part.split("```", 1)[0] for part in text.split("```bash\n")[1:]]
    return [line.split("  #", 1)[0].strip() for block in blocks for line in block.splitlines() if line.strip()]


@pytest.mark.browser
def test_the_pages_commands_run_on_the_web_shop(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "web-shop")
    (ws / "examples").mkdir()
    (ws / "examples" / "web-shop").symlink_to(ws)  # the page's paths, from the repository root
    lines = _bash_blocks()
    assert lines[0] == "pip install pytest-xdist" and lines[1] == "trailblaze run examples/web-shop/trails -n 2"
    outputs = {}
    for line in lines[1:]:
        done = _sh(line, ws)
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
        outputs[line] = done.stdout
    # -n 2: one report and one summary listing every trail (the skipped one too).
    trails = len(list((ws / "trails").glob("*.trail.yaml")))
    assert outputs[lines[1]].splitlines()[-1] == f"Results: {trails - 1} passed, 0 failed, 1 skipped"
    summary = json.loads((ws / "logs" / "summary.json").read_text())
    assert len(summary["results"]) == trails and len({r["title"] for r in summary["results"]}) == trails
    assert (ws / "logs" / "report.html").is_file()
    assert sorted({r["worker"] for r in summary["results"]} - {None}) == ["gw0", "gw1"]
    # Two shards then the merge: every trail exactly once, as the -n run had them.
    _check_merged(ws, durations=False)
    merged = json.loads((ws / "merged" / "summary.json").read_text())
    assert {r["title"]: r["outcome"] for r in merged["results"]} == {r["title"]: r["outcome"] for r in summary["results"]}


def _workspace(tmp_path: Path, example: str) -> Path:
    ws = tmp_path / example
    shutil.copytree(REPO / "examples" / example, ws,
                    ignore=shutil.ignore_patterns("tests", "logs", "broken", "notes-out", "__pycache__"))
    return ws


def _check_merged(ws: Path, *, durations: bool = True) -> None:
    trails = sorted(p for p in (ws / "trails").glob("*.trail.yaml"))
    merged = read_bundle(ws / "merged")
    assert sorted(r.key for r in merged.records) == sorted(f"trails/{p.name}" for p in trails)  # each exactly once
    assert sorted({r.shard for r in merged.records}) == ["1/2", "2/2"]
    summary = json.loads((ws / "merged" / "summary.json").read_text())
    assert len(summary["results"]) == len(trails)
    cases = [case for suite in JUnitXml.fromfile(str(ws / "merged" / "junit.xml")) for case in suite]
    assert len(cases) == len(trails)
    assert (ws / "merged" / "report.html").stat().st_size > 0
    if durations:
        known = load_durations(ws / "last-run")  # what the next pipeline's shards are balanced by
        ran = {r.key for r in merged.records if r.outcome != "Skipped"}
        assert ran and ran <= set(known)


@pytest.mark.browser
def test_the_github_actions_recipe_runs_on_the_web_shop_trails(tmp_path: Path) -> None:
    recipe = _recipe("### GitHub Actions")
    shard_lines = _lines([s["run"] for s in recipe["jobs"]["shard"]["steps"] if "run" in s])
    merge_lines = _lines([s["run"] for s in recipe["jobs"]["merge"]["steps"] if "run" in s])
    assert recipe["jobs"]["shard"]["strategy"]["matrix"]["shard"] == [1, 2]
    ws = _workspace(tmp_path, "web-shop")
    ran = []
    for shard in (1, 2):  # the matrix: one job per shard (a fresh runner: no cache yet)
        ran += _run_all([line.replace("${{ matrix.shard }}", str(shard)) for line in shard_lines], ws)
        # upload-artifact trailblaze-bundle-N / download-artifact pattern trailblaze-bundle-* path bundles
        shutil.move(ws / f"bundle-{shard}", ws / "bundles" / f"trailblaze-bundle-{shard}")
    ran += _run_all(merge_lines, ws)
    shell = [line for line in shard_lines if not line.startswith(INSTALL)]
    assert len(ran) == 2 * len(shell) + len([line for line in merge_lines if not line.startswith(INSTALL)])
    _check_merged(ws)


def test_the_gitlab_recipe_runs_on_the_host_demo_trails(tmp_path: Path) -> None:
    recipe = _recipe("### GitLab CI")
    assert recipe["trails"]["parallel"] == 2
    ws = _workspace(tmp_path, "host-demo")
    for index in (1, 2):  # parallel: 2 sets CI_NODE_INDEX / CI_NODE_TOTAL per job
        _run_all(_lines(recipe["trails"]["script"]), ws, {"CI_NODE_INDEX": str(index), "CI_NODE_TOTAL": "2"})
    # GitLab hands the jobs' artifacts (bundles/) to the report job.
    _run_all(_lines(recipe["report"]["script"]), ws)
    _check_merged(ws)
