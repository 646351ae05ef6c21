"""A result bundle is untrusted input: hostile and unlucky bundles, built in tmp dirs and merged by real
``trailblaze merge-reports`` processes (issue 33). The manifest cannot name a file outside its bundle,
symlinks out are refused, strings and records are capped as docs/scale-out.md says, the merged JUnit
stays well-formed, the exit code follows the records' outcomes and odd timestamps are clamped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from trailblaze.report.bundle import (
    MANIFEST,
    RESULTS,
    BundleManifest,
    TrailRecord,
    outermost,
    write_json,
    write_records,
)
from trailblaze.report.bundle_limits import LATEST_TIME, MAX_RECORD_BYTES, MAX_TEXT
from trailblaze.untrusted import MAX_OUTPUT_CHARS

SECRET = "the merging machine's private text"


def _record(key: str, **fields: Any) -> TrailRecord:
    values: dict[str, Any] = {"key": key, "title": key, "trail_source": key, "outcome": "Succeeded", "exit_code": 0,
                              "started_at": 1_790_000_000.0, "completed_at": 1_790_000_001.0, "duration_ms": 1000,
                              "run_id": "r1"}
    return TrailRecord(**{**values, **fields})


def _bundle(root: Path, records: list[TrailRecord], **manifest: Any) -> Path:
    write_records(root / RESULTS, records)
    fields = {"run_id": "r1", "started_at": 1_790_000_000.0, "completed_at": 1_790_000_002.0,
              "files": {"results": RESULTS}, **manifest}
    write_json(root / MANIFEST, BundleManifest(**fields).model_dump(mode="json"))
    return root


def _merge(*args: str | Path, cwd: Path, wrapper: str | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", wrapper] if wrapper else [sys.executable, "-m", "trailblaze.cli"]
    env = {k: v for k, v in os.environ.items() if k != "TRAILBLAZE_RUN_ID"}
    return subprocess.run([*command, "merge-reports", *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300, check=False)


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The error a refused merge prints: exactly one line, no traceback."""
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    return lines[0]


def _outputs(out: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file()) if out.exists() else ""


@pytest.fixture
def stolen(tmp_path: Path) -> Path:
    """A file elsewhere on the merging machine that looks like records: what a hostile manifest points at."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    path = elsewhere / "results.jsonl"
    write_records(path, [_record("stolen.trail.yaml", message=SECRET)])
    return path


@pytest.mark.parametrize("entry", ["absolute", "../../elsewhere/results.jsonl", "reports/../../elsewhere/results.jsonl"])
def test_a_manifest_cannot_name_a_file_outside_its_bundle(tmp_path: Path, stolen: Path, entry: str) -> None:
    name = str(stolen) if entry == "absolute" else entry
    bundle = _bundle(tmp_path / "hostile", [_record("a.trail.yaml")], files={"results": name})
    done = _merge(bundle, "--output-dir", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    line = _one_line(done)
    assert f"bundle {bundle}" in line and "files.results" in line and repr(name) in line, line
    assert SECRET not in _outputs(tmp_path / "out")


def test_a_manifest_naming_its_report_outside_is_refused_too(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path / "hostile", [_record("a.trail.yaml")],
                     files={"results": RESULTS, "report": "/etc/passwd"})
    done = _merge(bundle, "--output-dir", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 3 and "files.report '/etc/passwd'" in _one_line(done)


def test_symlinks_out_of_the_bundle_are_refused(tmp_path: Path, stolen: Path) -> None:
    bundle = _bundle(tmp_path / "linked", [_record("a.trail.yaml")])
    (bundle / RESULTS).unlink()
    (bundle / RESULTS).symlink_to(stolen)
    done = _merge(bundle, "--output-dir", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 3
    line = _one_line(done)
    assert f"bundle {bundle}" in line and "'reports/results.jsonl' is a symlink to" in line and str(stolen) in line
    assert SECRET not in _outputs(tmp_path / "out")

    # The manifest itself (a symlink to another bundle's manifest) and a symlinked reports folder: refused.
    other = _bundle(tmp_path / "other", [_record("b.trail.yaml", message=SECRET)])
    second = _bundle(tmp_path / "linked-manifest", [_record("a.trail.yaml")])
    (second / MANIFEST).unlink()
    (second / MANIFEST).symlink_to(other / MANIFEST)
    done = _merge(second, "--output-dir", tmp_path / "out2", cwd=tmp_path)
    assert done.returncode == 3 and "manifest 'reports/bundle.json' is a symlink to" in _one_line(done)
    third = tmp_path / "linked-folder"
    third.mkdir()
    (third / "reports").symlink_to(other / "reports")
    done = _merge(third, "--output-dir", tmp_path / "out3", cwd=tmp_path)
    assert done.returncode == 3 and "is a symlink to" in _one_line(done)
    assert SECRET not in _outputs(tmp_path / "out2") + _outputs(tmp_path / "out3")


def test_records_that_are_not_a_regular_file_are_refused(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path / "fifo", [_record("a.trail.yaml")])
    (bundle / RESULTS).unlink()
    os.mkfifo(bundle / RESULTS)  # reading it would wait for a writer forever
    done = _merge(bundle, "--output-dir", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 3 and "'reports/results.jsonl' is not a regular file" in _one_line(done)


# Reports the peak memory of the merge it runs (the process's own, whatever ran before it).
_PEAK_RSS = """\
import resource, sys
from pathlib import Path
from trailblaze.cli import main
try:
    sys.argv = ["trailblaze", *sys.argv[1:]]
    main()
finally:
    Path("peak_rss_kb").write_text(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
"""


def test_a_huge_bundle_is_capped_and_streamed(tmp_path: Path) -> None:
    """40 records with 1 MB messages (a 40 MB bundle): the merged summary, records and JUnit keep 64 KiB
    of each, and the merge holds the capped records, not the bundle's bytes."""
    huge = "x" * 1_000_000
    records = [_record(f"t{i}.trail.yaml", outcome="Failed", exit_code=1, message=huge, failure_kind=huge[:200_000])
               for i in range(40)]
    bundle = _bundle(tmp_path / "big", records)
    assert (bundle / RESULTS).stat().st_size > 40_000_000
    done = _merge(bundle, "--output-dir", tmp_path / "out", "--junit-xml", tmp_path / "out" / "junit.xml",
                  cwd=tmp_path, wrapper=_PEAK_RSS)
    assert done.returncode == 1, done.stdout + done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    reason = summary["results"][0]["failure_reason"]
    assert reason.startswith("x" * MAX_TEXT) and reason.endswith(f"[truncated: {1_000_000 - MAX_TEXT} more characters]")
    assert len(reason) <= MAX_OUTPUT_CHARS
    for name in ("summary.json", "reports/results.jsonl", "junit.xml", "report.html"):
        assert (tmp_path / "out" / name).stat().st_size < 40 * 2 * (MAX_TEXT + 1000) * 2, name
    peak_mb = int((tmp_path / "peak_rss_kb").read_text()) / 1024
    assert peak_mb < 400, f"the merge of a 40 MB bundle peaked at {peak_mb:.0f} MB"


def test_a_record_over_the_cap_is_refused_naming_its_line(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path / "long-line", [_record("a.trail.yaml")])
    with (bundle / RESULTS).open("ab") as fh:
        fh.write(b'{"key": "' + b"y" * (MAX_RECORD_BYTES + 10) + b'"}\n')
    done = _merge(bundle, "--output-dir", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 3 and "results.jsonl:2: a record longer than 32 MiB" in _one_line(done)


def test_merged_junit_is_well_formed_whatever_the_records_hold(tmp_path: Path) -> None:
    nasty = "bad\x01\x08\x0b\x1b[31m\x7f\ufffe\ud800 <&>\"' ]]>"
    records = [
        _record("a.trail.yaml", title=f"title {nasty}", outcome="Failed", exit_code=1, message=f"boom {nasty}",
                failure_kind=f"Kind{nasty}", device=f"web{nasty}", tags=[nasty], session_id=nasty),
        _record("b.trail.yaml", attempt=1, last=False, outcome="Error", exit_code=2, failure_kind=f"\x02{nasty}",
                message=nasty),
        _record("b.trail.yaml", attempt=2, outcome="Succeeded"),
    ]
    bundle = _bundle(tmp_path / "nasty", records)
    junit = tmp_path / "out" / "junit.xml"
    done = _merge(bundle, "--output-dir", tmp_path / "out", "--junit-xml", junit, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    tree = ET.parse(junit)  # raises on a character XML forbids
    failure = tree.find(".//failure")
    assert failure is not None and failure.get("type", "").startswith("Kind") and "\\x01" in failure.get("type", "")
    flaky = tree.find(".//flakyError")
    assert flaky is not None and flaky.get("type", "").startswith("\\x02")
    summary = (tmp_path / "out" / "summary.json").read_text()
    assert "\\\\x01" in summary and "\\u0001" not in summary  # escaped as every run's summary escapes


@pytest.mark.parametrize(("outcome", "claimed", "expected"), [
    ("Failed", 0, 1),          # a failure claiming success fails the merge
    ("Error", 0, 2),
    ("Cancelled", 0, 2),
    ("Succeeded", 1, 0),       # a pass claiming failure does not
    ("Skipped", 2, 0),
    ("Error", 3, 3),           # the recorded code says how a failing outcome failed
    ("NoSuchOutcome", 0, 2),   # an outcome this version does not know is an error
])
def test_the_merge_exit_code_follows_the_outcomes_not_the_claimed_codes(tmp_path: Path, outcome: str, claimed: int,
                                                                        expected: int) -> None:
    bundle = _bundle(tmp_path / "b", [_record("a.trail.yaml", outcome=outcome, exit_code=claimed),
                                      _record("p.trail.yaml")], exit_code=0)
    done = _merge(bundle, "--output-dir", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == expected, done.stdout + done.stderr
    assert json.loads((tmp_path / "out" / MANIFEST).read_text())["exit_code"] == expected


def test_huge_and_invalid_timestamps_are_clamped(tmp_path: Path) -> None:
    bundle = tmp_path / "times"
    _bundle(bundle, [_record("a.trail.yaml")])
    rows = [{**json.loads((bundle / RESULTS).read_text()), "key": k, "trail_source": k, "started_at": s,
             "completed_at": c} for k, s, c in (("a.trail.yaml", 1e300, 1e308), ("b.trail.yaml", -5, -1),
                                                ("c.trail.yaml", 1_790_000_000, 1e20))]
    (bundle / RESULTS).write_text("".join(json.dumps(r) + "\n" for r in rows))
    manifest = json.loads((bundle / MANIFEST).read_text())
    (bundle / MANIFEST).write_text(json.dumps({**manifest, "started_at": -1e300, "completed_at": 1e300}))
    done = _merge(bundle, "--output-dir", tmp_path / "out", "--junit-xml", tmp_path / "out" / "j.xml", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    by_key = {row["trail_source"]: row for row in summary["results"]}
    assert by_key["a.trail.yaml"]["started_at"] == "9999-12-31T23:59:59Z"
    assert by_key["b.trail.yaml"]["started_at"] == "1970-01-01T00:00:00Z"
    assert by_key["c.trail.yaml"]["completed_at_epoch_ms"] == int(LATEST_TIME * 1000)
    ET.parse(tmp_path / "out" / "j.xml")


def test_the_outermost_bundles_of_a_folder_are_kept(tmp_path: Path) -> None:
    roots = sorted([tmp_path / "a", tmp_path / "a" / "in" / "s1", tmp_path / "b", tmp_path / "b2",
                    tmp_path / "c" / "s1", tmp_path / "c" / "s2"])
    assert outermost(roots) == [tmp_path / "a", tmp_path / "b", tmp_path / "b2", tmp_path / "c" / "s1",
                                tmp_path / "c" / "s2"]


def test_a_run_lists_only_the_files_inside_its_bundle_and_merges_again(tmp_path: Path) -> None:
    """``--junit-xml`` outside ``--output-dir`` is not part of the bundle: the manifest leaves it out, so
    the strict reader still takes the bundle, and a merge's output (its JUnit outside too) merges again."""
    trails = tmp_path / "trails"
    trails.mkdir()
    (trails / "w.trail.yaml").write_text("config:\n  id: w\ntrail:\n  - step: wait\n    recording:\n      host:\n"
                                         "        - wait: {timeToWaitInSeconds: 0.01}\n")
    env = {k: v for k, v in os.environ.items() if k != "TRAILBLAZE_RUN_ID"}
    run = subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", "trails", "--output-dir", "out",
                          "--junit-xml", "junit.xml"], capture_output=True, text=True, cwd=tmp_path, env=env,
                         timeout=300, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    files = json.loads((tmp_path / "out" / MANIFEST).read_text())["files"]
    assert "junit" not in files and files["results"] == RESULTS
    done = _merge("out", "--output-dir", "merged", "--junit-xml", "merged-junit.xml", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    again = _merge("merged", "--output-dir", "merged-again", cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
