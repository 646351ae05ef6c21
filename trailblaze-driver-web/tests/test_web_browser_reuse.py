"""Several trails in one run share one Chromium and get a fresh browser context each.

Launching Chromium is the expensive part of a web trail; a context is cheap and isolates cookies and
storage exactly like a new browser would. The trails here run on the example shop through the real
``trailblaze run`` code path (``Runner``), with the real web and example-shop plugins.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from trailblaze.reuse import ReuseScope, reuse_scope
from trailblaze.runner import RunOptions
from trailblaze.runner.progress import QuietProgress
from trailblaze.runner.run import Runner

from .conftest import SHOP, descendants

pytestmark = pytest.mark.browser

SETS_COOKIE = """config:
  title: sets a cookie
  target: shop
  devices: {web: PLAYWRIGHT_NATIVE}
trail:
  - step: Open the shop and leave a cookie and a storage entry behind
    recording:
      web:
        - web_navigate: {url: /}
        - web_applyCookies: {cookiesJson: '[{"name": "left_by", "value": "first-trail", "url": "{{shopUrl}}"}]'}
        - web_evaluate: {script: "localStorage.setItem('left_by', 'first-trail') || 'ok'"}
"""

READS_STATE = """config:
  title: reads the state it starts with ({n})
  target: shop
  devices: {{web: PLAYWRIGHT_NATIVE}}
trail:
  - step: Open the shop and read the context's cookies and storage
    recording:
      web:
        - web_navigate: {{url: /}}
        - web_getStorageState: {{}}
"""


def _workspace(tmp_path: Path, trails: int) -> list[Path]:
    root = tmp_path / "shop"
    shutil.copytree(SHOP / "app", root / "app")
    shutil.copy(SHOP / "server.py", root / "server.py")
    shutil.copytree(SHOP / "trails" / "config", root / "trails" / "config")
    paths = [root / "trails" / "a-sets-cookie.trail.yaml"]
    paths[0].write_text(SETS_COOKIE)
    for n in range(1, trails):
        path = root / "trails" / f"b-reads-state-{n}.trail.yaml"
        path.write_text(READS_STATE.format(n=n))
        paths.append(path)
    return paths


def _browsers() -> list[int]:
    """This process's Chromium browser processes (not their renderer/GPU/utility children)."""
    return [pid for pid, cmd in descendants() if "chrom" in cmd.lower() and "--type=" not in cmd
            and cmd.split()[0] not in ("/bin/sh", "sh") and "playwright" not in cmd.split()[0].lower()]


def _launches(scope: ReuseScope) -> int:
    """How many browsers the scope launched (besides them it keeps the thread's Playwright)."""
    return sum(n for key, n in scope.opened.items() if isinstance(key, tuple) and key[0] == "playwright-browser")


def test_n_trails_launch_one_browser_and_each_starts_with_a_clean_context(tmp_path: Path) -> None:
    trails = _workspace(tmp_path, 4)
    assert _browsers() == []
    with reuse_scope() as scope:
        result = Runner(RunOptions(output_dir=tmp_path / "logs", report=False), progress=QuietProgress()).run(
            [str(p) for p in trails])
        assert [t.passed for t in result.trails] == [True] * 4, [t.message for t in result.trails]
        # One launch for four trails (with one Playwright start), and one browser process alive while the
        # scope is open.
        assert _launches(scope) == 1 and scope.opened[("playwright",)] == 1
        assert len(_browsers()) == 1
    assert _browsers() == []  # closing the scope closed the browser
    # The first trail's cookie and storage entry are absent in every later trail's fresh context.
    first = result.trails[0]
    assert any(e.get("toolName") == "web_applyCookies" and e["successful"] for e in first.log_entries)
    for later in result.trails[1:]:
        state = next(e["resultData"] for e in later.log_entries if e.get("toolName") == "web_getStorageState")
        assert state["cookies"] == [], json.dumps(state)
        assert all(not origin["localStorage"] for origin in state.get("origins", [])), json.dumps(state)


def test_trailblaze_run_alone_closes_its_shared_browser(tmp_path: Path) -> None:
    trails = _workspace(tmp_path, 2)
    result = Runner(RunOptions(output_dir=tmp_path / "logs", report=False), progress=QuietProgress()).run(
        [str(p) for p in trails])
    assert [t.passed for t in result.trails] == [True, True]
    assert _browsers() == []


def test_a_crashed_shared_browser_is_relaunched_for_the_next_trail(tmp_path: Path) -> None:
    trails = _workspace(tmp_path, 3)
    runner = Runner(RunOptions(output_dir=tmp_path / "logs", report=False), progress=QuietProgress())
    with reuse_scope() as scope:
        assert runner.run_trail(trails[1]).passed  # type: ignore[union-attr]
        import os
        import signal

        for pid in _browsers():
            os.kill(pid, signal.SIGKILL)
        result = runner.run_trail(trails[2])
        assert result is not None and result.passed, result and result.message
        assert _launches(scope) == 2 and scope.opened[("playwright",)] == 1  # the browser died, not Playwright
    assert _browsers() == []
