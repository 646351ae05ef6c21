"""At scale nothing is lost: every attempt of a trail survives shards + ``merge-reports``, ``run -n`` and
``pytest --trails -n`` (FLAKY decided as a single run decides it), and a result keeps its identity
(workspace, trail, device, actor, run, attempt) through a merge. Real ``trailblaze`` and pytest processes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from trailblaze.report.bundle import RESULTS, read_bundle

# A host trail that fails while its counter file says it ran fewer than N times, then passes.
FLAKY_SCRIPT = """\
import sys
from pathlib import Path
counter = Path(sys.argv[1])
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
if n <= 1:
    print(f"backend not ready (attempt {n})")
    sys.exit(1)
print(f"ok on attempt {n}")
"""

PASSING = """\
config:
  id: {name}
trail:
  - step: wait a moment
    recording:
      host:
        - wait: {{timeToWaitInSeconds: 0.01}}
"""

EXEC = """\
config:
  id: login
trail:
  - step: check the backend
    recording:
      host:
        - exec: {{argv: {argv}}}
"""


def _suite(root: Path) -> Path:
    """trails/flaky.trail.yaml (fails once, then passes) and three passing trails; returns the counter."""
    trails = root / "trails"
    trails.mkdir(parents=True)
    (root / "flaky.py").write_text(FLAKY_SCRIPT)
    counter = root / "flaky.count"
    argv = json.dumps([sys.executable, str(root / "flaky.py"), str(counter)])
    (trails / "flaky.trail.yaml").write_text(EXEC.format(argv=argv).replace("id: login", "id: flaky"))
    for i in range(3):
        (trails / f"p{i}.trail.yaml").write_text(PASSING.format(name=f"p{i}"))
    return counter


def _trailblaze(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TRAILBLAZE_RUN_ID"}
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300, check=False)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _check_flaky(out: Path, summary: Path, junit: Path, console: str) -> None:
    """What every path must show for the flaky trail: FLAKY with both attempts in the summary, one
    ``flakyFailure`` and no ``failure`` in the JUnit, ``(1 flaky)`` on the Results line, one
    ``results.jsonl`` line per attempt."""
    assert "Results: 4 passed, 0 failed, 0 skipped (1 flaky)" in console, console
    rows = json.loads(summary.read_text())["results"]
    assert len(rows) == 4, rows
    flaky = next(r for r in rows if r["title"] == "flaky")
    assert flaky["outcome"] == "FLAKY" and flaky["attempt"] == 2, flaky
    assert [a["outcome"] for a in flaky["attempts"]] == ["FAILED", "PASSED"]
    assert "backend not ready" in str(flaky["attempts"][0]["failure_reason"])
    assert json.loads(summary.read_text())["metadata"]["statuses"] == {"FLAKY": 1, "PASSED": 3}

    cases = list(ET.parse(junit).getroot().iter("testcase"))
    assert len(cases) == 4 and not any(c.find("failure") is not None for c in cases)
    case = next(c for c in cases if c.get("name", "").startswith("flaky"))
    assert len(case.findall("flakyFailure")) == 1
    assert "backend not ready" in (case.find("flakyFailure").findtext("stackTrace") or "")  # type: ignore[union-attr]
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["trailblaze.status"] == "FLAKY" and props["trailblaze.attempts"] == "2", props

    lines = [line for line in _jsonl(out / RESULTS) if line["title"] == "flaky"]
    assert [(line["attempt"], line["outcome"], line["last"]) for line in lines] == \
        [(1, "Failed", False), (2, "Succeeded", True)], lines
    bundle = read_bundle(out)
    assert bundle.manifest.counts == {"total": 4, "passed": 4, "failed": 0, "skipped": 0}
    assert bundle.manifest.exit_code == 0


class _Data(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.inside = tag == "script" and ("id", "tb-data") in attrs

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.text += data


def _report_rows(path: Path) -> list[dict[str, Any]]:
    parser = _Data()
    parser.feed(path.read_text())
    return json.loads(parser.text)["rows"]  # type: ignore[no-any-return]


def test_shards_merged_keep_the_flaky_trail_flaky_with_both_attempts(tmp_path: Path) -> None:
    counter = _suite(tmp_path)
    for i in (1, 2):
        done = _trailblaze(["run", "trails", "--retries", "1", "--shard", f"{i}/2", "--output-dir", f"s{i}"],
                           tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
    assert counter.read_text() == "2"
    # The shard that ran it keeps both attempts in its bundle, and counts the trail once.
    shard = next(tmp_path / f"s{i}" for i in (1, 2)
                 if any(r.title == "flaky" for r in read_bundle(tmp_path / f"s{i}").records))
    assert [r.attempt for r in read_bundle(shard).records if r.title == "flaky"] == [1, 2]
    assert sum(read_bundle(tmp_path / f"s{i}").manifest.counts["total"] for i in (1, 2)) == 4

    merged = _trailblaze(["merge-reports", "s1", "s2", "--output-dir", "M", "--junit-xml", "M/junit.xml"], tmp_path)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "Merged 2 bundle(s): 4 trail runs, 4 passed, 0 failed, 0 skipped" in merged.stdout
    _check_flaky(tmp_path / "M", tmp_path / "M" / "summary.json", tmp_path / "M" / "junit.xml", merged.stdout)

    rows = _report_rows(tmp_path / "M" / "report.html")
    assert len(rows) == 4 and rows[0]["o"] == "FLAKY"  # failures first, then flaky passes
    assert [a[:2] for a in rows[0]["at"]] == [[1, "FAILED"], [2, "PASSED"]]
    assert all((tmp_path / "M" / a[4]).is_dir() for a in rows[0]["at"])  # each attempt's own logs
    assert "(1 flaky)" in (tmp_path / "M" / "report.html").read_text()

    # The merged bundle merges again to the same result.
    again = _trailblaze(["merge-reports", "M", "--output-dir", "M2", "--junit-xml", "M2/junit.xml"], tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    _check_flaky(tmp_path / "M2", tmp_path / "M2" / "summary.json", tmp_path / "M2" / "junit.xml", again.stdout)


def test_run_n_2_keeps_the_flaky_trail_flaky_with_both_attempts(tmp_path: Path) -> None:
    _suite(tmp_path)
    done = _trailblaze(["run", "trails", "-n", "2", "--retries", "1", "--output-dir", "out",
                        "--junit-xml", "out/junit.xml"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "Results: 4 passed, 0 failed, 0 skipped (1 flaky)"
    _check_flaky(tmp_path / "out", tmp_path / "out" / "summary.json", tmp_path / "out" / "junit.xml", done.stdout)
    worker = next(p for p in (tmp_path / "out").glob("gw*") if any(
        line["title"] == "flaky" for line in _jsonl(p / RESULTS)))
    assert [line["attempt"] for line in _jsonl(worker / RESULTS) if line["title"] == "flaky"] == [1, 2]


def test_pytest_trails_n_2_keeps_the_flaky_trail_flaky_with_both_attempts(tmp_path: Path) -> None:
    _suite(tmp_path)
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--trails", "trails", "-n", "2",
                           "--trailblaze-retries", "1", "--trailblaze-output-dir", "out",
                           "--trailblaze-junit-xml", "out/junit.xml", "--rootdir", str(tmp_path), "-o", "addopts="],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\b4 passed\b", done.stdout), done.stdout
    _check_flaky(tmp_path / "out", tmp_path / "out" / "summary.json", tmp_path / "out" / "junit.xml", done.stdout)


# -- a result's identity ----------------------------------------------------------------------------------
def _project(root: Path, ok: bool) -> None:
    (root / "trails").mkdir(parents=True)
    argv = json.dumps(["true" if ok else "false"])
    (root / "trails" / "login.trail.yaml").write_text(EXEC.format(argv=argv))


def test_the_same_path_from_two_workspaces_stays_two_results(tmp_path: Path) -> None:
    _project(tmp_path / "a", ok=False)
    _project(tmp_path / "b", ok=True)
    assert _trailblaze(["run", "trails", "--output-dir", "../out-a"], tmp_path / "a").returncode == 1
    assert _trailblaze(["run", "trails", "--output-dir", "../out-b"], tmp_path / "b").returncode == 0
    merged = _trailblaze(["merge-reports", "out-a", "out-b", "--output-dir", "M", "--junit-xml", "M/junit.xml"],
                         tmp_path)
    assert merged.returncode == 1, merged.stdout + merged.stderr  # project A's failure is not replaced
    assert "Results: 1 passed, 1 failed, 0 skipped" in merged.stdout
    assert "1 trail path(s) ran in more than one workspace or run: kept each as its own result" in merged.stderr
    rows = json.loads((tmp_path / "M" / "summary.json").read_text())["results"]
    assert sorted((Path(r["workspace"]).name, r["outcome"]) for r in rows) == [("a", "FAILED"), ("b", "PASSED")]
    cases = list(ET.parse(tmp_path / "M" / "junit.xml").getroot().iter("testcase"))
    assert len(cases) == 2 and sum(1 for c in cases if c.find("failure") is not None) == 1


def test_one_trail_run_against_two_environments_stays_two_results(tmp_path: Path) -> None:
    (tmp_path / "trails").mkdir()
    (tmp_path / "trails" / "env.trail.yaml").write_text("""\
config:
  id: env
trail:
  - step: only staging is up
    recording:
      host:
        - exec: {argv: ["test", "{{env}}", "=", "staging"]}
""")
    staging = _trailblaze(["run", "trails", "--memory", "env=staging", "--output-dir", "staging"], tmp_path)
    prod = _trailblaze(["run", "trails", "--memory", "env=prod", "--output-dir", "prod"], tmp_path)
    assert (staging.returncode, prod.returncode) == (0, 1), staging.stdout + prod.stdout
    assert read_bundle(tmp_path / "staging").manifest.run_id != read_bundle(tmp_path / "prod").manifest.run_id
    merged = _trailblaze(["merge-reports", "staging", "prod", "--output-dir", "M"], tmp_path)
    assert merged.returncode == 1, merged.stdout + merged.stderr
    assert "Results: 1 passed, 1 failed, 0 skipped" in merged.stdout
    assert len(_jsonl(tmp_path / "M" / RESULTS)) == 2
    # The same bundle given twice is still the same results: kept once.
    twice = _trailblaze(["merge-reports", "prod", "prod", "staging", "--output-dir", "M2"], tmp_path)
    assert "1 trail run(s) found in more than one bundle" in twice.stderr and len(_jsonl(tmp_path / "M2" / RESULTS)) == 2


def test_a_run_killed_in_a_reused_output_dir_leaves_its_own_finished_trails_only(tmp_path: Path) -> None:
    trails = tmp_path / "trails"
    trails.mkdir()
    for name in ("a", "b", "c"):
        (trails / f"{name}.trail.yaml").write_text(PASSING.format(name=name))
    assert _trailblaze(["run", "trails", "--output-dir", "out"], tmp_path).returncode == 0
    earlier = read_bundle(tmp_path / "out").manifest.run_id

    # The next run in the same directory: `a` fails, then `b` SIGKILLs the process; `c` never starts.
    (trails / "a.trail.yaml").write_text(EXEC.format(argv='["false"]').replace("id: login", "id: a"))
    (trails / "b.trail.yaml").write_text(EXEC.format(argv='["sh", "-c", "kill -9 $PPID"]'))
    killed = _trailblaze(["run", "trails", "--output-dir", "out"], tmp_path)
    assert killed.returncode == -9, killed.stdout + killed.stderr
    bundle = read_bundle(tmp_path / "out")
    assert bundle.manifest.run_id != earlier and not bundle.manifest.complete
    assert [(r.title, r.outcome) for r in bundle.records] == [("a", "Failed")]  # appended as it ended

    merged = _trailblaze(["merge-reports", "out", "--output-dir", "M"], tmp_path)
    assert merged.returncode == 2, merged.stdout + merged.stderr  # not the earlier run's "3 passed", exit 0
    assert "Results: 0 passed, 1 failed, 0 skipped" in merged.stdout
    assert "out: its run did not finish (killed?): merged the trails it finished; exit 2" in merged.stderr

    # Killed before its first trail ended: the earlier run's bundle is gone all the same.
    for name in ("a", "c"):
        (trails / f"{name}.trail.yaml").unlink()
    assert _trailblaze(["run", "trails", "--output-dir", "out"], tmp_path).returncode == -9
    nothing = _trailblaze(["merge-reports", "out", "--output-dir", "M2"], tmp_path)
    assert nothing.returncode == 3 and "out holds no result bundle" in nothing.stderr, nothing.stderr
