"""Scale-out: result bundles, ``--shard I/N`` balanced by durations, and ``merge-reports`` into one run."""

from __future__ import annotations

import json
import random
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from junitparser import JUnitXml
from trailblaze.report.bundle import FORMAT, VERSION, load_durations, read_bundle
from trailblaze.report.merged import message_shape
from trailblaze.runner.shards import pair_key, partition
from trailblaze.testing import run_cli

WAIT_TRAIL = """\
config:
  id: {name}
  tags: [{tag}]
trail:
  - step: wait a little
    recording:
      host:
        - wait: {{timeToWaitInSeconds: {seconds}}}
"""

FAILING_TRAIL = """\
config:
  id: {name}
trail:
  - step: run false
    recording:
      host:
        - exec: {{argv: ["false"]}}
"""


def _suite(root: Path, waits: list[float], failing: int = 0) -> Path:
    trails = root / "trails"
    trails.mkdir(parents=True)
    for i, seconds in enumerate(waits):
        tag = "slow" if seconds >= 0.1 else "fast"
        (trails / f"w{i:02d}.trail.yaml").write_text(WAIT_TRAIL.format(name=f"w{i:02d}", tag=tag, seconds=seconds))
    for i in range(failing):
        (trails / f"fail{i}.trail.yaml").write_text(FAILING_TRAIL.format(name=f"fail{i}"))
    return trails


def _spread(shards: list[list[str]], durations: dict[str, float]) -> float:
    loads = [sum(durations[k] for k in shard) for shard in shards]
    return (max(loads) - min(loads)) / max(loads)


class _ReportData(HTMLParser):
    """The rows the merged report embeds (its one data script), read with a real HTML parser."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._attrs: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._attrs = dict(attrs)
            self.scripts.append((self._attrs, ""))

    def handle_data(self, data: str) -> None:
        if self._attrs is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._attrs = None


def _report_rows(path: Path) -> list[dict[str, object]]:
    parser = _ReportData()
    parser.feed(path.read_text(encoding="utf-8"))
    data = [text for attrs, text in parser.scripts if attrs.get("id") == "tb-data"]
    assert len(data) == 1 and len(parser.scripts) == 2
    return json.loads(data[0])["rows"]  # type: ignore[no-any-return]


# -- the partition ------------------------------------------------------------------------------------
def test_every_pair_lands_in_exactly_one_shard_for_any_n() -> None:
    keys = [pair_key(f"trails/t{i}.trail.yaml", device) for i in range(23) for device in (None, "android/emu-1")]
    rng = random.Random(7)
    durations = {k: rng.uniform(0.1, 3) for k in keys[::3]}  # some known, the rest count as the median
    for n in range(1, 9):
        for known in ({}, durations):
            shards = partition(keys, n, known)
            assert sorted(k for shard in shards for k in shard) == sorted(keys)
            assert shards == partition(list(reversed(keys)), n, dict(known))  # order-independent


def test_duration_weighted_shards_beat_count_based_on_a_skewed_suite(capsys: pytest.CaptureFixture[str]) -> None:
    # 40 host trails, waits from 0.1 s to 3 s, skewed: a few slow trails dominate.
    rng = random.Random(23)
    keys = [f"trails/t{i:02d}.trail.yaml" for i in range(40)]
    durations = {k: round(0.1 + 2.9 * rng.random() ** 3, 2) for k in keys}
    by_count = partition(keys, 4)
    by_time = partition(keys, 4, durations)
    count_spread, time_spread = _spread(by_count, durations), _spread(by_time, durations)
    with capsys.disabled():
        print(f"\n40 trails, 4 shards: count-based spread {count_spread:.1%}, duration-weighted {time_spread:.1%}")
    assert time_spread <= 0.15
    assert time_spread < count_spread
    assert [len(s) for s in by_count] == [10, 10, 10, 10]


def test_message_shapes_group_the_same_failure() -> None:
    a = message_shape("step 3 \"log in\": tool 'web_click' (trails/a.trail.yaml:12:9) {\"ref\": \"e12\"} failed: "
                      "no element matches 'Sign in' after 5.0 s")
    b = message_shape("step 1 \"open cart\": tool 'web_click' (trails/b.trail.yaml:4:11) {\"ref\": \"e3\"} failed: "
                      "no element matches 'Checkout' after 10 s")
    assert a == b


# -- bundles, shards and merge-reports, for real --------------------------------------------------------
def test_a_recorded_run_balances_the_shards_and_two_shards_merge_into_one_run(tmp_path: Path, plugin_host,  # type: ignore[no-untyped-def]
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _suite(tmp_path, [0.4, 0.02, 0.02, 0.02, 0.02, 0.3, 0.02, 0.02], failing=1)

    # One real run records the durations (and is the single-process reference).
    whole = run_cli(["run", "trails", "--output-dir", "whole", "--junit-xml", "whole/junit.xml"], host=plugin_host)
    assert whole.exit_code == 1, whole.output
    bundle = read_bundle(tmp_path / "whole")
    assert bundle.manifest.format == FORMAT and bundle.manifest.version == VERSION
    assert bundle.manifest.counts == {"total": 9, "passed": 8, "failed": 1, "skipped": 0}
    assert bundle.manifest.files["summary"].startswith("reports/") and bundle.manifest.files["junit"] == "junit.xml"
    assert all(not Path(r.log_dir or "/").is_absolute() and (tmp_path / "whole" / str(r.log_dir)).is_dir()
               for r in bundle.records)
    assert {r.key for r in bundle.records} == {f"trails/{p.name}" for p in (tmp_path / "trails").iterdir()}
    durations = load_durations(tmp_path / "whole")
    assert durations["trails/w00.trail.yaml"] >= 0.4

    # Shards balanced by that run: the two slow trails go to different shards.
    outs = []
    for i in (1, 2):
        shard = run_cli(["run", "trails", "--shard", f"{i}/2", "--durations", "whole", "--output-dir", f"s{i}"],
                        host=plugin_host)
        assert f"shard {i}/2:" in shard.output and "(by the durations of whole)" in shard.output
        outs.append(read_bundle(tmp_path / f"s{i}"))
    slow = [{r.key for r in b.records} & {"trails/w00.trail.yaml", "trails/w05.trail.yaml"} for b in outs]
    assert all(len(s) == 1 for s in slow), slow
    assert [b.manifest.shard for b in outs] == ["1/2", "2/2"]

    merged = run_cli(["merge-reports", "s1", "s2", "--output-dir", "M", "--junit-xml", "M/junit.xml"],
                     host=plugin_host)
    assert merged.exit_code == whole.exit_code == 1, merged.output
    assert "Merged 2 bundle(s): 9 trail runs, 8 passed, 1 failed, 0 skipped" in merged.output

    summary = json.loads((tmp_path / "M" / "summary.json").read_text())
    titles = [r["title"] for r in summary["results"]]
    assert sorted(titles) == sorted(r.title for r in bundle.records) and len(set(titles)) == 9
    assert titles[0] == "fail0"  # failures first
    assert {r["shard"] for r in summary["results"]} == {"1/2", "2/2"}
    reference = {r["title"]: r["outcome"] for r in
                 json.loads((tmp_path / "whole" / bundle.manifest.files["summary"]).read_text())["results"]}
    assert {r["title"]: r["outcome"] for r in summary["results"]} == reference

    suites = JUnitXml.fromfile(str(tmp_path / "M" / "junit.xml"))
    cases = [case for suite in suites for case in suite]
    assert sorted(c.name for c in cases) == sorted(c.name for suite in JUnitXml.fromfile(
        str(tmp_path / "whole" / "junit.xml")) for c in suite)
    assert len(cases) == 9 and sum(1 for c in cases if not c.is_passed) == 1

    rows = _report_rows(tmp_path / "M" / "report.html")
    assert sorted(str(r["t"]) for r in rows) == sorted(titles)
    assert rows[0]["o"] == "FAILED" and rows[0]["sig"] == 0
    log = tmp_path / "M" / str(rows[0]["l"])
    assert log.is_dir()  # relative links into the shard bundles

    # The merged output is a bundle: it merges again, and feeds --durations.
    again = run_cli(["merge-reports", "M", "--output-dir", "M2"], host=plugin_host)
    assert again.exit_code == 1 and "9 trail runs" in again.output
    assert (tmp_path / "M2" / str(_report_rows(tmp_path / "M2" / "report.html")[0]["l"])).is_dir()
    assert set(load_durations(tmp_path / "M")) == set(durations)


def test_shards_balanced_by_the_durations_a_recorded_run_left_in_the_results_store(  # type: ignore[no-untyped-def]
        tmp_path: Path, plugin_host, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _suite(tmp_path, [0.5, 0.02, 0.02, 0.02, 0.4, 0.02, 0.02, 0.3, 0.02])
    store = tmp_path / "cache" / "results.db"  # as a CI cache restores it: any name
    recorded = run_cli(["run", "trails", "--results-db", str(store), "--output-dir", "first"], host=plugin_host)
    assert recorded.exit_code == 0, recorded.output
    assert store.read_bytes()[:16] == b"SQLite format 3\x00"
    known = load_durations(store)
    assert set(known) == {f"trails/w{i:02d}.trail.yaml" for i in range(9)}
    assert known["trails/w00.trail.yaml"] >= 0.5 > known["trails/w01.trail.yaml"]

    # Every shard reads the same store (a shard run that also appended to it would change what the next
    # shard reads: --no-history here, a restored cache per CI job there).
    shards = []
    for i in (1, 2, 3):
        run = run_cli(["run", "trails", "--shard", f"{i}/3", "--durations", str(store), "--no-history",
                       "--output-dir", f"s{i}"], host=plugin_host)
        assert run.exit_code == 0 and f"(by the durations of {store})" in run.output, run.output
        shards.append({r.key for r in read_bundle(tmp_path / f"s{i}").records})
    assert sorted(k for shard in shards for k in shard) == sorted(known)  # every trail exactly once
    slow = {"trails/w00.trail.yaml", "trails/w04.trail.yaml", "trails/w07.trail.yaml"}
    assert all(len(shard & slow) == 1 for shard in shards), shards  # the three slow trails spread out
    by_count = partition(sorted(known), 3)
    assert _spread([list(s) for s in shards], known) < _spread(by_count, known)

    (tmp_path / "broken.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    bad = run_cli(["run", "trails", "--shard", "1/2", "--durations", "broken.db"], host=plugin_host)
    assert bad.exit_code == 3 and "--durations: broken.db: not a readable results store" in bad.output, bad.output
    assert "Traceback" not in bad.output


def test_bundles_copied_elsewhere_still_merge(tmp_path: Path, plugin_host,  # type: ignore[no-untyped-def]
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _suite(tmp_path, [0.01, 0.01, 0.01])
    for i in (1, 2):
        assert run_cli(["run", "trails", "--shard", f"{i}/2", "--output-dir", f"ci/job-{i}"], host=plugin_host).exit_code == 0
    import shutil

    shutil.copytree(tmp_path / "ci", tmp_path / "download" / "artifacts")  # a CI job downloading every shard
    shutil.rmtree(tmp_path / "ci")
    merged = run_cli(["merge-reports", "download", "download/artifacts/job-1", "--output-dir", "out"],
                     host=plugin_host)
    assert merged.exit_code == 0, merged.output
    assert "2 trail run(s) found in more than one bundle" in merged.output  # job-1 given twice: kept once
    rows = _report_rows(tmp_path / "out" / "report.html")
    assert len(rows) == 3 and all((tmp_path / "out" / str(r["l"])).is_dir() for r in rows)


def test_bad_bundles_are_bad_input_naming_the_file(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "empty").mkdir()
    result = run_cli(["merge-reports", str(tmp_path / "empty"), "--output-dir", str(tmp_path / "o")], host=plugin_host)
    assert result.exit_code == 3 and "holds no result bundle" in result.output
    future = tmp_path / "future"
    (future / "reports").mkdir(parents=True)
    (future / "reports" / "bundle.json").write_text(json.dumps({"format": FORMAT, "version": VERSION + 1}))
    result = run_cli(["merge-reports", str(future), "--output-dir", str(tmp_path / "o")], host=plugin_host)
    assert result.exit_code == 3 and f"{future / 'reports' / 'bundle.json'}: bundle format version {VERSION + 1}" in result.output
    (future / "reports" / "bundle.json").write_text(json.dumps({"format": FORMAT, "version": 1, "run_id": "r",
                                                               "started_at": 1, "completed_at": 2}))
    (future / "reports" / "results.json").write_text(json.dumps([{"key": "a", "title": "a"}]))
    result = run_cli(["merge-reports", str(future), "--output-dir", str(tmp_path / "o")], host=plugin_host)
    assert result.exit_code == 3 and "results.json: key '0.trail_source': Field required" in result.output
    (future / "reports" / "bundle.json").write_text(json.dumps({"format": FORMAT, "version": VERSION, "run_id": "r",
                                                               "started_at": 1, "completed_at": 2}))
    good = {"key": "a", "title": "a", "trail_source": "a", "outcome": "Succeeded", "exit_code": 0,
            "started_at": 1, "completed_at": 2, "duration_ms": 1000}
    (future / "reports" / "results.jsonl").write_text(json.dumps(good) + "\n\n" + json.dumps({**good, "key": 7}) + "\n")
    result = run_cli(["merge-reports", str(future), "--output-dir", str(tmp_path / "o")], host=plugin_host)
    assert result.exit_code == 3 and "results.jsonl:3: key 'key': Input should be a valid string" in result.output
    (future / "reports" / "results.jsonl").write_text(json.dumps(good) + "\n{oops\n")
    result = run_cli(["merge-reports", str(future), "--output-dir", str(tmp_path / "o")], host=plugin_host)
    assert result.exit_code == 3 and "results.jsonl:2: not a JSON record" in result.output
    assert "Traceback" not in result.output
    result = run_cli(["run", str(future), "--shard", "3/2"], host=plugin_host)
    assert result.exit_code == 3 and "--shard expects I/N with 1 <= I <= N, got '3/2'" in result.output


def test_outside_text_cannot_break_out_of_the_merged_report(tmp_path: Path, plugin_host,  # type: ignore[no-untyped-def]
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    trails = tmp_path / "trails"
    trails.mkdir()
    (trails / "x.trail.yaml").write_text(FAILING_TRAIL.format(name="x").replace(
        "run false", "</script><script>alert(1)</script><!--"))
    assert run_cli(["run", "trails", "--output-dir", "a"], host=plugin_host).exit_code == 1
    assert run_cli(["merge-reports", "a", "--output-dir", "m"], host=plugin_host).exit_code == 1
    page = (tmp_path / "m" / "report.html").read_text()
    assert len(re.findall(r"<script", page)) == 2 and "alert(1)</script>" not in page
    assert "</script><script>alert(1)" in str(_report_rows(tmp_path / "m" / "report.html")[0]["msg"])


def test_pytest_shards_use_the_same_partition(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    _suite(pytester.path, [0.01] * 5)
    monkeypatch.chdir(pytester.path)
    seen: list[set[str]] = []
    for i in (1, 2):
        result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--trails", "trails",
                                              "--trailblaze-shard", f"{i}/2", "--trailblaze-output-dir", f"o{i}")
        result.assert_outcomes(passed=3 if i == 1 else 2, deselected=2 if i == 1 else 3)
        seen.append({r.key for r in read_bundle(pytester.path / f"o{i}").records})
    keys = [pair_key(p) for p in sorted((pytester.path / "trails").iterdir())]
    assert seen == [set(s) for s in partition(keys, 2)]
