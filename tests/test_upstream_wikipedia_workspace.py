"""Upstream's wikipedia workspace, from upstream's own layout (issue 37, "What it must show").

``tests/fixtures/upstream-wikipedia`` holds upstream's files unchanged (a022ca69): the workspace config at
``examples/wikipedia/trails/config`` with its 11 typed ``.ts`` tools (9 listed by the target, 2 reference
demos, plus a helper module), and the 30 trails at ``trails/wikipedia`` — checked as upstream's README says,
``trailblaze check --workspace examples/wikipedia/trails/config`` from the repository root. ``check`` starts
every typed tool's server (the modules are imported through the real MCP subprocess), so a tool that could
not load would show as a ``[ToolLoad]`` finding. The trails drive the live site; nothing here runs them, and
no process may touch the network (the registry sentinel counts connections)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from trailblaze.testing.offline import RegistrySentinel

pytestmark = pytest.mark.node

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "upstream-wikipedia"
CONFIG = Path("examples/wikipedia/trails/config")
TOOLS = CONFIG / "trailmaps" / "wikipedia" / "tools"
TYPED_TOOLS = sorted(p.stem for p in (FIXTURE / TOOLS).glob("wikipedia_*.ts") if p.stem != "wikipedia_shared")


@pytest.fixture
def sentinel() -> Iterator[RegistrySentinel]:
    with RegistrySentinel() as s:
        yield s
    assert s.connections == 0, "a process tried the network (package registry or proxy)"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    from trailblaze_yaml_tools.ts_tools import package_versions

    if package_versions() is None:
        pytest.fail("typescript and ts-json-schema-generator are not on NODE_PATH: run scripts/bootstrap.sh "
                    "and source .tools/env.sh")
    copy = tmp_path / "upstream"
    shutil.copytree(FIXTURE, copy)
    return copy


def trailblaze(root: Path, sentinel: RegistrySentinel, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", *args], cwd=root, capture_output=True,
                          text=True, timeout=300, check=False, env={**os.environ, **sentinel.env()})


def test_check_of_upstreams_wikipedia_workspace_exits_0_and_every_typed_tool_loads(
        root: Path, sentinel: RegistrySentinel) -> None:
    assert len(TYPED_TOOLS) == 11
    listed = trailblaze(root, sentinel, "tools", "--workspace", str(CONFIG), "--all", "--search", "wikipedia_")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    shown = {line.split()[0] for line in listed.stdout.splitlines() if line.startswith("wikipedia_")}
    assert shown == set(TYPED_TOOLS), listed.stdout
    checked = trailblaze(root, sentinel, "check", "--workspace", str(CONFIG), "trails/wikipedia")
    out = checked.stdout + checked.stderr
    assert checked.returncode == 0, out
    assert "Checked 30 trail(s)" in out and " 0 error(s)" in out, out
    assert "ToolLoad" not in out and "unavailable" not in out, out


def test_one_typed_tool_importing_an_unknown_export_fails_only_the_trails_that_call_it(
        root: Path, sentinel: RegistrySentinel) -> None:
    broken = root / TOOLS / "wikipedia_web_openRandomArticle.ts"
    source = broken.read_text()
    assert source.startswith('import { trailblaze } from "@trailblaze/scripting";')
    source = source.replace("import { trailblaze }", "import { notAnExport, trailblaze }", 1)
    broken.write_text(source.replace("    await ctx.tools.web_click({", "    await notAnExport(ctx);\n"
                                     "    await ctx.tools.web_click({", 1))
    # No upstream trail records a call of a wikipedia_* tool (they ask the agent in words), so one trail
    # gets the recording an agent would have saved for its step.
    caller = root / "trails" / "wikipedia" / "test-custom-random-article" / "trail.yaml"
    caller.write_text(caller.read_text() + "    recording:\n      web:\n"
                      "        - wikipedia_web_openRandomArticle: {ensureOnWikipedia: false}\n")
    checked = trailblaze(root, sentinel, "check", "--workspace", str(CONFIG), "trails/wikipedia")
    out = checked.stdout + checked.stderr
    assert checked.returncode == 3, out
    assert "Checked 30 trail(s)" in out and " 1 error(s)" in out, out
    [error] = [line for line in out.splitlines() if ": error:" in line]
    assert "wikipedia_web_openRandomArticle.ts:24: error: [ToolLoad] tool 'wikipedia_web_openRandomArticle' is " \
           "unavailable" in error, error
    assert "it imports 'notAnExport' from '@trailblaze/scripting', which has no such export" in error, error
    assert error.endswith("(called by trails/wikipedia/test-custom-random-article/trail.yaml)"), error
