"""The example trails under pytest (docs/pytest.md): collection, markers, skips, xdist workers, JUnit.

pytest runs in a subprocess with its own ini file, as a user's CI would: the plugin comes from the
``pytest11`` entry point ``trailblaze`` installs. Every process that run starts inherits a marker in
its environment, so afterwards we can prove none of them (browser, Playwright driver, shop server,
worker) is still alive.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from junitparser import Failure, JUnitXml, Properties, Skipped
from trailblaze.testing import run_cli

EXAMPLE = Path(__file__).resolve().parents[1]
TRAILS = EXAMPLE / "trails"
BROKEN = EXAMPLE / "broken"
TITLES = {
    "cart": "Web shop: cart totals and removing an item",
    "checkout": "Web shop: checkout with validation errors, then a confirmed order",
    "mobile-menu": "Web shop: header menu on phones",
    "product-reviews": "Web shop: product page, late reviews and quantity validation",
    "search-and-sort": "Web shop: search and sort the products",
    "sign-in": "Web shop: sign in",
    "sign-out": "Web shop: the sign-out dialog",
    "account-approvals": "Web shop: approve an expense in an iframe, review in a cross-origin iframe",
    "account-dialogs": "Web shop: confirm and prompt dialogs on the expense list",
    "account-downloads": "Web shop: download the expenses as CSV",
    "account-profile": "Web shop: profile form with a labelled select and a shadow-DOM rating",
    "account-tabs": "Web shop: help links that open a tab and a popup",
}
MARK = "TRAILBLAZE_PYTEST_TEST_RUN"


def _pytest(tmp_path: Path, *args: str, ini: str = "", tag: str = "") -> subprocess.CompletedProcess[str]:
    config = tmp_path / "pytest.ini"
    config.write_text(f"[pytest]\n{ini}\n")
    env = {**os.environ, MARK: tag or "-"}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c", str(config),
                           "--rootdir", str(tmp_path), *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)


def _ids(out: str) -> list[str]:
    return sorted(line for line in out.splitlines() if "::" in line)


def _properties(case: Any) -> dict[str, str]:
    """A testcase's ``<properties>`` (pytest's ``record_property`` form), which junitparser reads per suite only."""
    found = case.child(Properties)
    return {p.name: p.value for p in found} if found is not None else {}


def _processes_marked(tag: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if f"{MARK}={tag}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace"))
        except OSError:
            continue
    return found


def test_trails_are_collected_only_when_asked(tmp_path: Path) -> None:
    # Trail files in a collected directory are not tests by themselves (this repo's own suite has them).
    plain = _pytest(tmp_path, str(TRAILS), "--collect-only", "-q")
    assert plain.returncode == 5, plain.stdout  # "no tests collected"
    asked = _pytest(tmp_path, "--trails", str(TRAILS), "--collect-only", "-q")
    assert asked.returncode == 0, asked.stdout + asked.stderr
    ids = _ids(asked.stdout)
    assert len(ids) == len(list(TRAILS.glob("*.trail.yaml"))), ids
    for stem, title in TITLES.items():
        assert f"{stem}.trail.yaml::{title} [web]" in asked.stdout
    assert "config" not in " ".join(ids)  # trails/config holds tools, not trails
    # The ini form collects the same items.
    ini = _pytest(tmp_path, "--collect-only", "-q", ini=f"trailblaze_trails = {TRAILS}")
    assert _ids(ini.stdout) == ids
    # Trail tags are markers.
    smoke = _pytest(tmp_path, "--trails", str(TRAILS), "-m", "smoke and not checkout", "--collect-only", "-q",
                    "--strict-markers")
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert [i.split("::")[0].rsplit("/", 1)[-1] for i in _ids(smoke.stdout)] == ["cart.trail.yaml", "sign-in.trail.yaml"]
    # One item per device with --trailblaze-device.
    two = _pytest(tmp_path, "--trails", str(TRAILS / "sign-in.trail.yaml"), "--trailblaze-device", "web",
                  "--trailblaze-device", "web/second", "--collect-only", "-q")
    assert [i.split("::")[1] for i in _ids(two.stdout)] == ["Web shop: sign in [web/second]", "Web shop: sign in [web]"]


def test_shards_split_the_trails_so_every_trail_runs_exactly_once(tmp_path: Path) -> None:
    everything = _ids(_pytest(tmp_path, "--trails", str(TRAILS), "--collect-only", "-q").stdout)
    shards = [_ids(_pytest(tmp_path, "--trails", str(TRAILS), "--trailblaze-shard", f"{i}/3", "--collect-only",
                           "-q").stdout) for i in (1, 2, 3)]
    assert sorted(i for shard in shards for i in shard) == everything
    assert sorted(len(shard) for shard in shards) == [4, 4, 4]  # 12 trails
    bad = _pytest(tmp_path, "--trails", str(TRAILS), "--trailblaze-shard", "4/3", "--collect-only")
    assert bad.returncode == 4 and "--trailblaze-shard expects I/N" in bad.stderr


def test_help_lists_the_trailblaze_options(tmp_path: Path) -> None:
    out = _pytest(tmp_path, "--help").stdout
    section = out[out.index("trailblaze:"):]
    for option in ("--trails=PATH", "--trailblaze-driver", "--trailblaze-device", "--trailblaze-option",
                   "--trailblaze-memory", "--trailblaze-secret", "--trailblaze-arg", "--trailblaze-llm",
                   "--trailblaze-self-heal", "--trailblaze-headed", "--trailblaze-output-dir", "--trailblaze-shard"):
        assert option in section, option
    assert "trailblaze_trails" in out


@pytest.mark.browser
def test_two_workers_pass_every_trail_with_a_browser_each_and_leave_nothing_running(tmp_path: Path,
                                                                                    port_open: Any) -> None:
    tag = uuid.uuid4().hex
    run = _pytest(tmp_path, "--trails", str(TRAILS), "-n", "2", "--junitxml", str(tmp_path / "junit.xml"), tag=tag)
    out = run.stdout
    assert run.returncode == 0, out + run.stderr
    runs = len(list(TRAILS.glob("*.trail.yaml"))) - 1  # mobile-menu is skipped
    assert re.search(rf"\b{runs} passed, 1 skipped\b", out), out
    # One browser launch per worker, whatever number of trails it ran.
    launches = re.findall(r"^(gw\d): shared resources opened: .*\bplaywright-browser ×(\d+)\b", out, re.MULTILINE)
    assert sorted(w for w, _ in launches) == ["gw0", "gw1"] and all(n == "1" for _, n in launches), out
    # Separate output directories and reports per worker.
    for worker in ("gw0", "gw1"):
        assert list((tmp_path / "logs" / worker / "reports").glob("trailblaze_report_*.html"))
    # --junitxml lists every trail, with its properties.
    suite = next(iter(JUnitXml.fromfile(str(tmp_path / "junit.xml"))))
    cases = {case.name: case for case in suite}
    assert set(cases) == {f"{t} [web]" for t in TITLES.values()}
    skipped = cases[f"{TITLES['mobile-menu']} [web]"]
    assert isinstance(skipped.result[0], Skipped) and "no collapsible header menu" in skipped.result[0].message
    props = _properties(cases[f"{TITLES['cart']} [web]"])
    assert props["trail_id"] == "web-shop/cart" and props["outcome"] == "Succeeded" and props["worker"] in ("gw0", "gw1")
    assert Path(props["log_dir"]).is_dir() and "screenshot" not in props  # by default only a failed step has one
    # Nothing the run started is alive: no browser, Playwright driver, shop server or worker process...
    assert _processes_marked(tag) == []
    # ...and none of the shop servers (one per session, on its own port) still listens.
    urls = re.findall(r'"url":\s*"(http://127\.0\.0\.1:\d+/?)"', "".join(
        p.read_text() for p in (tmp_path / "logs").glob("gw*/*/session.ndjson")))
    assert len(set(urls)) >= 6 and not any(port_open(u) for u in set(urls))


@pytest.mark.browser
def test_a_broken_trail_fails_like_the_cli_says_with_artifacts_and_no_secret(tmp_path: Path) -> None:
    run = _pytest(tmp_path, "--trails", str(BROKEN), "-n", "0", "--trailblaze-option", "timeout_ms=2000",
                  "--trailblaze-option", "trace=retain-on-failure", "--trailblaze-secret", "shopToken=Sign out", "--junitxml", str(tmp_path / "junit.xml"))
    assert run.returncode == 1, run.stdout + run.stderr
    failure = run.stdout[run.stdout.index("___ trail: Web shop (broken)"):run.stdout.index("Captured stdout call")]
    assert 'step 2 "Add the compass to the basket"' in failure
    assert "tool 'web_click' (" in failure and "renamed-button.trail.yaml:23:11)" in failure
    assert 'no element matches nodeSelector {"web": {"ariaRole": "button", "ariaNameRegex": "Add to basket"}}' in failure
    assert re.search(r'the page \(http://127\.0\.0\.1:\d+/product\.html\?id=compass\) has button elements: '
                     r'button "Add to cart" \[\w+\], button "\*\*\*"', failure)  # the secret value is redacted
    assert "Sign out" not in failure
    shot = re.search(r"^screenshot: (\S+step_002_failed\.png)$", failure, re.MULTILINE)
    trace = re.search(r"^trace: (\S+trace\.zip)$", failure, re.MULTILINE)
    assert shot and Path(shot.group(1)).is_file() and trace and Path(trace.group(1)).is_file()
    case = next(iter(next(iter(JUnitXml.fromfile(str(tmp_path / "junit.xml"))))))
    assert isinstance(case.result[0], Failure) and "Sign out" not in (case.result[0].text or "")
    assert _properties(case)["trace"] == trace.group(1)


@pytest.mark.browser
def test_trailblaze_run_writes_junit_xml_that_a_junit_parser_reads(tmp_path: Path) -> None:
    out = tmp_path / "out.xml"
    result = run_cli(["run", str(TRAILS), "--junit-xml", str(out), "--output-dir", str(tmp_path / "logs"), "--no-report"])
    assert result.exit_code == 0, result.output
    xml = JUnitXml.fromfile(str(out))
    suite = next(iter(xml))
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (len(TITLES), 0, 0, 1)
    cases = {case.name: case for case in suite}
    assert set(cases) == {f"{t} [web]" for t in TITLES.values()}
    for stem, title in TITLES.items():
        case = cases[f"{title} [web]"]
        assert case.classname == f"trails.{stem}.trail.yaml"  # the path below the workspace root
        if stem != "mobile-menu":
            assert case.is_passed and "log_dir: " in (case.system_out or "")
