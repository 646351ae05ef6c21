"""Result bundles kept append-only: a worker's ``results.jsonl`` grows by one durable line per trail
(nothing before it is rewritten), a cut-short last line is left out, and version-1 bundles
(``results.json``) still merge beside version-2 ones."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from trailblaze.errors import BadInputError, ExitCode
from trailblaze.memory import Redactor
from trailblaze.results.output_request import BundleContext
from trailblaze.report.bundle import (
    MANIFEST,
    RESULTS,
    RESULTS_V1,
    VERSION,
    BundleAppender,
    StepRecord,
    TrailRecord,
    read_bundle,
    read_manifest,
    write_bundle,
)
from trailblaze.report.merge import merge_bundles
from trailblaze.runner.results import RunResult, StepResult, TrailResult
from trailblaze.session import SessionOutcome


def _trail(i: int, *, failed: bool = False, secret: str = "") -> TrailResult:
    now = time.time()
    return TrailResult(path=Path(f"trails/t{i}.trail.yaml"), title=f"t{i} {secret}".strip(),
                       outcome=SessionOutcome.FAILED if failed else SessionOutcome.SUCCEEDED,
                       exit_code=ExitCode.TRAIL_FAILED if failed else ExitCode.SUCCESS,
                       message=f"failed with {secret}" if failed else None, started_at=now, completed_at=now + 0.5,
                       endpoint=f"ws://127.0.0.1:90{i % 2}/")


def test_each_trail_is_one_appended_line_and_nothing_before_it_is_rewritten(tmp_path: Path) -> None:
    root = tmp_path / "gw0"
    root.mkdir()
    (root / "reports").mkdir()
    (root / RESULTS).write_text("left by an earlier run\n")
    appender = BundleAppender(root, BundleContext(run_id="r1", worker="gw0"), Redactor(["hunter2"]))
    appender.append(_trail(0))
    first = (root / RESULTS).read_bytes()
    inode = (root / RESULTS).stat().st_ino
    assert b"earlier run" not in first and first.count(b"\n") == 1
    for i in range(1, 5):
        appender.append(_trail(i, failed=i == 3, secret="hunter2"))
        data = (root / RESULTS).read_bytes()
        assert data.startswith(first) and data.count(b"\n") == i + 1  # appended, never rewritten
        assert (root / RESULTS).stat().st_ino == inode
        first = data
    assert b"hunter2" not in first  # the one redaction point covers every line
    bundle = read_bundle(root)
    assert bundle.manifest.version == VERSION and bundle.manifest.worker == "gw0"
    assert bundle.manifest.counts == {"total": 5, "passed": 4, "failed": 1, "skipped": 0}
    assert bundle.manifest.exit_code == 1 and bundle.manifest.endpoints == ["ws://127.0.0.1:900/", "ws://127.0.0.1:901/"]
    assert [r.title for r in bundle.records] == ["t0", "t1 ***", "t2 ***", "t3 ***", "t4 ***"]

    # A worker killed in the middle of an append leaves a line without its end: it is left out.
    with (root / RESULTS).open("ab") as fh:
        fh.write(b'{"key":"trails/t5.trail.yaml","ti')
    assert len(read_bundle(root).records) == 5


def test_the_end_of_run_bundle_replaces_the_appended_one_whole(tmp_path: Path) -> None:
    root = tmp_path / "gw1"
    context = BundleContext(run_id="r2", worker="gw1")
    appender = BundleAppender(root, context, Redactor())
    trails = [_trail(i) for i in range(3)]
    for trail in trails[:2]:
        appender.append(trail)
    write_bundle(RunResult(redactor=Redactor(), trails=trails), root, context, {})
    bundle = read_bundle(root)
    assert [r.title for r in bundle.records] == ["t0", "t1", "t2"] and bundle.manifest.counts["total"] == 3
    assert bundle.manifest.files["results"] == RESULTS and not (root / RESULTS_V1).exists()


def test_a_version_1_bundle_still_merges_with_a_version_2_one(tmp_path: Path) -> None:
    new = tmp_path / "new"
    write_bundle(RunResult(redactor=Redactor(), trails=[_trail(0), _trail(1, failed=True)]), new,
                 BundleContext(run_id="r", shard="1/2"), {})
    old = tmp_path / "old"
    (old / "reports").mkdir(parents=True)
    record = json.loads((new / RESULTS).read_text().splitlines()[0])
    (old / RESULTS_V1).write_text(json.dumps([{**record, "key": "trails/t9.trail.yaml", "title": "t9", "shard": None}]))
    manifest = json.loads((new / MANIFEST).read_text())
    (old / MANIFEST).write_text(json.dumps({**manifest, "version": 1, "shard": "2/2",
                                            "files": {"results": RESULTS_V1}}))
    merged = merge_bundles([new, old], tmp_path / "merged")
    assert sorted(r.title for r in merged.records) == ["t0", "t1", "t9"]
    assert merged.exit_code == ExitCode.TRAIL_FAILED
    again = read_bundle(tmp_path / "merged")  # the merged bundle is written in the current version
    assert again.manifest.version == VERSION and (tmp_path / "merged" / RESULTS).is_file()
    assert {r.shard for r in again.records} == {"1/2", "2/2"}


def test_records_read_back_share_one_set_of_field_names_and_behave_as_their_own(tmp_path: Path) -> None:
    """A read record that set every field refers to one shared field-name set (2 KiB less per record
    and step); what pydantic tells of it, changes and copies stay as with a set of its own."""
    root = tmp_path / "b"
    trail = _trail(0)
    trail.steps = [StepResult(0, "step", "open the shop", "replay", True)]
    write_bundle(RunResult(redactor=Redactor(), trails=[trail, _trail(1)]), root, BundleContext(run_id="r"), {})
    lines = (root / RESULTS).read_text().splitlines()
    older = {k: v for k, v in json.loads(lines[1]).items() if k != "endpoint"}  # a writer that left one out
    (root / RESULTS).write_text(f"{lines[0]}\n{json.dumps(older)}\n")
    first, second = read_bundle(root).records
    again = read_bundle(root).records[0]
    assert first.model_fields_set is again.model_fields_set and first.steps[0].model_fields_set is again.steps[0].model_fields_set
    assert first.model_fields_set == set(TrailRecord.model_fields)
    assert first.steps[0].model_fields_set == set(StepRecord.model_fields)
    assert second.model_fields_set == set(TrailRecord.model_fields) - {"endpoint"}  # its own, as read
    assert "endpoint" not in second.model_dump(exclude_unset=True)
    first.title = "renamed"  # pydantic adds the name to the set it holds: nothing changes for the others
    copy = first.model_copy(update={"title": "copied"})
    copy.__pydantic_fields_set__.discard("title")
    assert copy.title == "copied" and first.title == "renamed"
    assert first.model_fields_set == set(TrailRecord.model_fields) == again.model_fields_set
    assert first.model_dump(exclude_unset=True).keys() == set(TrailRecord.model_fields)


def test_a_manifest_reads_without_the_records_and_is_checked_as_the_bundle_is(tmp_path: Path) -> None:
    """What the ``-n`` controller reads to pick this run's worker bundles: the manifest alone."""
    root = tmp_path / "gw0"
    write_bundle(RunResult(redactor=Redactor(), trails=[_trail(0)]), root, BundleContext(run_id="r7"), {})
    (root / RESULTS).write_text("not a record\n")
    assert read_manifest(root).run_id == "r7" and read_manifest(root / MANIFEST).run_id == "r7"
    with pytest.raises(BadInputError, match=r"results\.jsonl:1: not a JSON record"):
        read_bundle(root)
    manifest = json.loads((root / MANIFEST).read_text())
    (root / MANIFEST).write_text(json.dumps({**manifest, "files": {"results": "../../etc/passwd"}}))
    with pytest.raises(BadInputError, match="files.results"):
        read_manifest(root)
