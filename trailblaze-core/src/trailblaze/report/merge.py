"""``trailblaze merge-reports``: many result bundles (shards, xdist workers, devices) into one run.

The output directory is itself a bundle (``bundle.json`` + ``results.jsonl``, the inputs listed under
``merged_from``), so merged runs merge again and feed ``--durations``; beside it ``summary.json`` (the
``CiSummaryReport`` shape every run writes), ``report.html`` (one self-contained page built for suites of
thousands of trails) and, when asked, one JUnit XML. Paths inside point back into the input bundles,
relative to the output, so keep the bundles where they were merged from (or next to the output).

A result is one trail's attempt on one device in one run of one workspace (``results.model.result_identity``):
a record found in two bundles (a bundle given twice) is kept once, the later one; the same path from two
workspaces, or the same trail of two runs (staging and prod, a re-run shard), stays two results. A trail's
attempts make one trail in the summary, JUnit and report, its outcome decided as a single run decides it
(``results.model.trail_status``: a pass after a failed attempt is FLAKY). Failures come first.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import posixpath
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from os.path import join, normpath
from pathlib import Path
from typing import Any

from ..errors import BadInputError
from ..memory import Redactor
from ..results.model import ResultIdentity, RunResult, TrailResult, outcome_exit_code
from ..files import write_atomic
from ..untrusted import output_json
from .bundle import (
    MANIFEST,
    RESULTS,
    Bundle,
    BundleManifest,
    Tally,
    TrailRecord,
    read_bundle,
    within_bundle,
    write_json,
    write_records,
)
from .merged import Merged, rank

SUMMARY = "summary.json"
REPORT = "report.html"


def merge_bundles(paths: Sequence[Path], output_dir: Path, *, junit_xml: Path | None = None,
                  report: bool = True, extra: Sequence[TrailRecord] = (),
                  interrupted: str | None = None) -> Merged:
    """Merge the bundles under ``paths`` into ``output_dir``; ``extra`` adds records no bundle holds (a
    crashed xdist worker's trail); ``interrupted`` is the signal that stopped the run (an ``-n``
    controller's), else the first an input bundle names."""
    with _collector_paused():
        return _merge(paths, output_dir, junit_xml=junit_xml, report=report, extra=extra,
                      interrupted=interrupted)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """A merge builds hundreds of thousands of long-lived, acyclic objects (records, rows, elements);
    the cyclic collector rescanned all of them again and again, which was half of a 10,000-trail
    merge. Nothing here makes a cycle worth collecting, so it waits until the merge is done."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # What the merge left alive joins the oldest generation unscanned (freeze, then unfreeze): else
        # the first collection after ``enable`` walks every object made here as young, a tenth of the
        # merge, to find nothing.
        gc.freeze()
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def _merge(paths: Sequence[Path], output_dir: Path, *, junit_xml: Path | None, report: bool,
           extra: Sequence[TrailRecord], interrupted: str | None) -> Merged:
    if not paths and not extra:
        raise BadInputError("no bundles given", hint="usage: trailblaze merge-reports BUNDLE... --output-dir OUT")
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    bundles = [read_bundle(Path(p)) for p in paths]
    target = out.resolve()
    if any(b.root.resolve() == target for b in bundles):
        raise BadInputError(f"--output-dir {out} is one of the bundles being merged",
                            hint="merge into a new directory")
    chosen: dict[ResultIdentity, TrailRecord] = {}
    seen = 0
    for bundle in bundles:
        prefix = os.path.relpath(bundle.root, out).replace(os.sep, "/")
        for record in bundle.records:
            seen += 1
            moved = _rebased(record, bundle, prefix)
            key = moved.identity()
            if key not in chosen or chosen[key].completed_at <= moved.completed_at:
                chosen[key] = moved
    for record in extra:
        seen += 1
        chosen.setdefault(record.identity(), record)
    trails = sorted(_grouped(chosen.items()), key=_failures_first)
    records = [record for attempts in trails for record in attempts]
    manifest = _manifest(bundles, records, out)
    if not manifest.merged_from and extra:  # nothing finished yet: the records name the run
        manifest.run_id = next((r.run_id for r in extra if r.run_id), manifest.run_id)
    manifest.interrupted_by = interrupted or next((b.manifest.interrupted_by for b in bundles
                                                   if b.manifest.interrupted_by), None)
    merged = Merged(out, manifest, records, duplicates=seen - len(records), trails=trails,
                    same_path=_same_path(trails), incomplete=[b.root for b in bundles if not b.manifest.complete])
    if merged.incomplete:  # what the inputs left out stays known when this output is merged again
        manifest.exit_code, manifest.complete = int(merged.exit_code), False
    write_outputs(merged, junit_xml=junit_xml, report=report)
    return merged


def attempts_by_trail(records: Iterable[TrailRecord]) -> list[list[TrailRecord]]:
    """Records grouped by trail run (``ResultIdentity.trail_run``: workspace, trail, device, actor, run),
    each group its attempts first first; only the last of a group is ``last`` (a group whose last
    attempt's record is missing ends with the latest one there is). Groups keep the order of their first
    record."""
    return _grouped((record.identity(), record) for record in records)


def _grouped(identified: Iterable[tuple[ResultIdentity, TrailRecord]]) -> list[list[TrailRecord]]:
    """``attempts_by_trail`` of records whose identities are known already (the merge keyed them)."""
    groups: dict[tuple[str, str, str, str, str], list[TrailRecord]] = {}
    for identity, record in identified:
        groups.setdefault(identity.trail_run, []).append(record)
    out = []
    for attempts in groups.values():
        if len(attempts) > 1:
            attempts.sort(key=lambda r: r.attempt)
            for record in attempts[:-1]:
                if record.last:  # set only when it changes: a pydantic model's ``__setattr__`` is a Python call
                    record.last = False
        if not attempts[-1].last:
            attempts[-1].last = True
        out.append(attempts)
    return out


def _failures_first(attempts: list[TrailRecord]) -> tuple[int, int, str, str, str, str]:
    """Failures, then flaky passes, then passes, then skips; by trail and device within each."""
    final = attempts[-1]
    return (rank(final), 0 if len(attempts) > 1 else 1, final.key, final.device or "", final.workspace or "",
            final.run_id or "")


def _same_path(trails: list[list[TrailRecord]]) -> int:
    """How many trail paths (with their device) appear from more than one workspace or run: kept apart."""
    origins: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for attempts in trails:
        final = attempts[-1]
        origins.setdefault((final.key, final.device or ""), set()).add((final.workspace or "", final.run_id or ""))
    return sum(1 for found in origins.values() if len(found) > 1)


def write_outputs(merged: Merged, *, junit_xml: Path | None, report: bool) -> None:
    out = merged.output_dir
    # Built once from the trails as the merge grouped them; the plugins' writers get it too (``merged_run``).
    run = merged.run = trails_run(merged.trails or attempts_by_trail(merged.records), out)
    run.interrupted = merged.manifest.interrupted_by
    merged.results_line = run.results_line()
    merged.files["summary"] = _write_summary(merged, run, out / SUMMARY)
    if junit_xml is not None:
        from .junit import write_junit_xml

        merged.files["junit"] = write_junit_xml(run, junit_xml)
    if report:
        from .merged_html import write_merged_report

        merged.files["report"] = write_merged_report(merged, out / REPORT)
    merged.manifest.files.update(within_bundle(merged.files, out))
    write_records(out / RESULTS, merged.records)
    write_json(out / MANIFEST, merged.manifest.model_dump(mode="json"))


def _write_summary(merged: Merged, run: RunResult, path: Path) -> Path:
    """The merged ``summary.json``: the run's rows, each with where its record came from. Its own
    function so the rows (a third of a 10,000-trail merge's memory) are freed before the JUnit and the
    report are built."""
    rows = run.summary()
    for row, attempts in zip(rows["results"], merged.trails, strict=True):
        record = attempts[-1]
        row.update(shard=record.shard, worker=record.worker, endpoint=record.endpoint, attempt=record.attempt,
                   tags=record.tags, bundle=record.bundle, run_id=record.run_id, workspace=record.workspace)
    rows["metadata"]["run_id"] = merged.manifest.run_id
    # Through the rules every run's summary follows (control characters escaped; strings were cut at
    # 64 KiB as the bundles were read).
    text = output_json(rows)
    del rows
    return write_atomic(path, text)


def _rebased(record: TrailRecord, bundle: Bundle, prefix: str) -> TrailRecord:
    """``record`` with its paths relative to the output (``prefix``: the bundle, relative to the output)
    and its shard/worker/bundle filled in. Changed in place: the record was read for this merge alone,
    and a copy of each of 10,000 records cost more than the rest of the step."""
    def move(path: str | None) -> str | None:
        if path is None or path.startswith("/"):
            return path
        return posixpath.normpath(f"{prefix}/{path}")

    manifest = bundle.manifest
    # Only what changes is set: a pydantic model's ``__setattr__`` is a Python call, six per record.
    record.bundle = move(record.bundle) if record.bundle else prefix
    if record.log_dir is not None:
        record.log_dir = move(record.log_dir)
    if record.artifacts:
        record.artifacts = {k: move(v) or v for k, v in record.artifacts.items()}
    for actor in record.actors:
        actor.log_dir = move(actor.log_dir)
    if not record.shard and record.shard != manifest.shard:
        record.shard = manifest.shard
    if not record.worker and record.worker != manifest.worker:
        record.worker = manifest.worker
    if not record.run_id and record.run_id != manifest.run_id:
        record.run_id = manifest.run_id
    return record


def _manifest(bundles: list[Bundle], records: list[TrailRecord], out: Path) -> BundleManifest:
    inputs: list[dict[str, Any]] = []
    for bundle in bundles:
        parts = bundle.manifest.merged_from or [bundle.manifest.model_dump(mode="json", include=_INPUT_KEYS)]
        for part in parts:
            where = os.path.relpath(bundle.root / str(part.get("bundle") or "."), out).replace(os.sep, "/")
            inputs.append({**part, "bundle": where})
    run_ids = sorted({str(part.get("run_id")) for part in inputs if part.get("run_id")})
    now = time.time()
    tally = Tally()
    for record in records:
        tally.add(record)
    return BundleManifest(
        run_id=run_ids[0] if len(run_ids) == 1 else "+".join(run_ids[:8]) or "merged",
        devices=sorted({d for b in bundles for d in b.manifest.devices}),
        endpoints=sorted({r.endpoint for r in records if r.endpoint}),
        started_at=min((float(p["started_at"]) for p in inputs), default=now),
        completed_at=max((float(p["completed_at"]) for p in inputs), default=now),
        plugins={k: v for b in bundles for k, v in b.manifest.plugins.items()},
        git_commit=next((b.manifest.git_commit for b in bundles if b.manifest.git_commit), None),
        exit_code=int(tally.exit_code), counts=tally.counts,
        files={"results": RESULTS}, merged_from=inputs)


_INPUT_KEYS = {"run_id", "complete", "interrupted_by",
               "shard", "worker", "host", "devices", "endpoints", "started_at", "completed_at",
               "trailblaze_version", "git_commit", "exit_code", "counts", "files"}


def run_result(records: Sequence[TrailRecord], out: Path) -> RunResult:
    """The records as a ``RunResult`` (one ``TrailResult`` per trail run, its earlier attempts in
    ``attempts``, as the runner makes it), so the summary, JUnit writer and ``Results:`` line of a single
    run serve the merge and ``run -n``, steps included (their modes, tokens and calls)."""
    return trails_run(attempts_by_trail(records), out)


def trails_run(trails: Iterable[Sequence[TrailRecord]], out: Path) -> RunResult:
    """``run_result`` of records already grouped by trail run (``attempts_by_trail``), each group's
    attempts first first."""
    paths = _Paths(str(out))
    results = []
    for attempts in trails:
        final = trail_result(attempts[-1], paths)
        source = attempts[-1].trail_source
        final.attempts = [trail_result(r, paths, path=final.path if r.trail_source == source else None)
                          for r in attempts[:-1]]
        results.append(final)
    # The bundles were redacted by the runs that wrote them; a merge knows no secret of its own.
    return RunResult(redactor=Redactor(), trails=results, output_dir=out)


def merged_run(merged: Merged) -> RunResult:
    """The merged run as a ``RunResult`` for the plugins' writers (``trailblaze_write_run_outputs``):
    every trail with its attempts, the merged summary and report as its ``summary_path``/``report_path``
    (the one ``write_outputs`` built, in a run of its own so a writer's settings stay its own)."""
    if merged.run is not None:
        run = dataclasses.replace(merged.run, trails=list(merged.run.trails), interrupted=None)
    else:
        run = run_result(merged.records, merged.output_dir)
    run.summary_path = merged.files.get("summary")
    run.report_path = merged.files.get("report")
    return run


def trail_result(record: TrailRecord, paths: _Paths, *, path: Path | None = None) -> TrailResult:
    """``record`` as the ``TrailResult`` its run had (``path``: the trail's, when an attempt already
    made it), its bundle-relative paths joined to the merge's output (``paths``). Once per record of a
    merge: kept lean."""
    outcome = record.session_outcome()
    log_dir = record.log_dir
    full = paths.full
    return TrailResult(
        path=paths.plain(record.trail_source) if path is None else path, title=record.title, outcome=outcome,
        exit_code=outcome_exit_code(outcome, record.exit_code), session_id=record.session_id,
        log_dir=None if log_dir is None else full(log_dir), message=record.message,
        failure_kind=record.failure_kind, classifier=record.classifier, platform=record.platform,
        driver=record.driver, target=record.target, execution_mode=record.execution_mode,
        started_at=record.started_at, completed_at=record.completed_at, llm_call_count=record.llm_call_count,
        llm_cost_usd=record.llm_cost_usd, llm_tokens=record.llm_tokens, quarantined=record.quarantined,
        has_recorded_steps=record.has_recorded_steps,
        skip_reason=record.skip_reason, trail_id=record.trail_id, device_label=record.device,
        endpoint=record.endpoint, tags=list(record.tags),
        artifacts={k: paths.joined(v) for k, v in record.artifacts.items()} if record.artifacts else {},
        steps=[s.result() for s in record.steps], actors=[a.result(full) for a in record.actors] if record.actors else [],
        heal_check=record.heal_check.result(full) if record.heal_check is not None else None)


class _Paths:
    """The ``Path`` objects of a merge's records, each folder parsed once: pathlib parses every part of
    a path it is given, and a 10,000-trail merge makes two paths a record, most of them in a few
    hundred folders (a bundle's log folder, a workspace's trail folders)."""

    def __init__(self, out: str) -> None:
        self.out = out
        self._folders: dict[str, Path] = {}
        self._joined: dict[str, Path] = {}

    def plain(self, path: str) -> Path:
        """``Path(path)``."""
        folder, _, name = path.rpartition("/")
        if not folder or name in _NOT_A_NAME:
            return Path(path)
        parent = self._folders.get(folder)
        if parent is None:
            parent = self._folders[folder] = Path(folder)
        return parent / name

    def joined(self, path: str) -> str:
        """A bundle-relative ``path`` joined to the output, normalised (``os.path.normpath``)."""
        return normpath(join(self.out, path))

    def full(self, path: str | None) -> Path | None:
        """``Path(joined(path))``."""
        if path is None:
            return None
        folder, _, name = path.rpartition("/")
        if name in _NOT_A_NAME:
            return Path(normpath(join(self.out, path)))
        parent = self._joined.get(folder)
        if parent is None:
            parent = self._joined[folder] = Path(normpath(join(self.out, folder)))
        return parent / name


_NOT_A_NAME = frozenset(("", ".", ".."))
"""Last parts that ``normpath`` changes what comes before (or that pathlib drops): such a path is
parsed whole."""


# -- triage ---------------------------------------------------------------------------------------------
