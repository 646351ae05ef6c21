"""Result bundles: what one run (a process, an xdist worker, a CI shard) leaves for ``merge-reports``.

A bundle is the run's output directory: ``reports/bundle.json`` (the manifest: who ran what, where,
when, with which versions) and ``reports/results.jsonl`` (one line per trail × device × attempt:
outcome, timings, steps, tags, device, endpoint, failure; version 1 wrote one ``results.json`` list,
which readers still accept), beside the JSON summary and HTML report in
``reports/`` and the session log directories the run writes anyway. Every path inside is relative to
the bundle directory (not to ``reports/``), so a bundle downloaded from a CI artifact into any
directory still works. The format is versioned (``version``); readers refuse a newer major version with
a message instead of guessing. docs/scale-out.md describes every field. A run (a plain one, an xdist
worker) appends each finished trail's attempts to its bundle (``BundleAppender``) so a run killed later
still leaves them; a record's identity (``TrailRecord.identity``) is what merges key on.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .._version import __version__
from ..errors import BadInputError, ExitCode
from ..files import write_atomic
from ..results.model import (ActorResult, HealCheck, ResultIdentity, StepResult, call_entries, outcome_exit_code, result_identity,
                             step_status)
from ..results.output_request import BundleContext, current_commit
from ..session import SessionOutcome
from ..untrusted import capped
from .bundle_limits import MAX_MANIFEST_BYTES, MAX_RECORD_BYTES, MAX_TEXT, Timestamp, inside, regular_file
from .json_lines import append_line, first_error, iter_models, line_of, model_line, write_lines

if TYPE_CHECKING:
    from ..results.model import RunResult, TrailResult

FORMAT = "trailblaze-result-bundle"
VERSION = 2
"""Bumped when a reader of the previous version would misread a bundle; adding fields does not bump it.
2: the records are JSON Lines (``results.jsonl``), appended trail by trail; 1: one ``results.json`` list."""
MANIFEST = "reports/bundle.json"
RESULTS = "reports/results.jsonl"
RESULTS_V1 = "reports/results.json"
"""All relative to the bundle directory."""


class StepRecord(BaseModel):
    model_config = ConfigDict(extra="ignore")

    number: int
    kind: str
    text: str | None = None
    mode: str = ""
    success: bool = True
    message: str | None = None
    tool: str | None = None
    duration_ms: int = 0
    index: int | None = None
    """The step's position in the trail (0-based); None in bundles written before it was kept."""
    reason: str | None = None
    """Why the model ran the step (``StepResult.reason``)."""
    llm_call_count: int = 0
    llm_cost_usd: float = 0.0
    llm_tokens: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    """``{"name", "args"}`` per top-level call the step made (``results.model.call_entries``)."""
    actor: str | None = None
    """The actor that ran the step, in a trail with actors (``StepResult.actor``)."""
    block: int | None = None
    """The ``parallel:`` block it ran in (``StepResult.block``)."""
    screenshot: str | None = None
    """The step's last screenshot, relative to its actor's (or the trail's) log folder."""

    @classmethod
    def of(cls, step: StepResult) -> StepRecord:
        return cls(number=step.number, kind=step.kind, text=step.text, mode=step.mode, success=step.success,
                   message=step.message, tool=step.tool, duration_ms=step.duration_ms, index=step.index,
                   reason=step.reason, llm_call_count=step.llm_call_count,
                   llm_cost_usd=round(step.llm_cost_usd, 6), llm_tokens=step.llm_tokens,
                   input_tokens=step.input_tokens, output_tokens=step.output_tokens,
                   cached_tokens=step.cached_tokens, tool_calls=call_entries(step.tool_calls), actor=step.actor,
                   block=step.block, screenshot=step.screenshot)

    def result(self) -> StepResult:
        """The step as the run had it, for the summary, report and JUnit of a merge (``merge-reports``, ``-n``)."""
        step = StepResult(self.number if self.index is None else self.index, self.kind, self.text, self.mode,
                          self.success, self.message, self.tool, self.duration_ms, self.llm_call_count,
                          self.llm_cost_usd, self.llm_tokens, self.screenshot, reason=self.reason,
                          input_tokens=self.input_tokens, output_tokens=self.output_tokens,
                          cached_tokens=self.cached_tokens, tool_calls=list(self.tool_calls), actor=self.actor,
                          block=self.block)
        step.number = self.number
        return step

    @property
    def status(self) -> str:
        """``replayed``, ``agent``, ``healed``, ``skipped`` or ``failed`` (``results.model.step_status``)."""
        return step_status(self.mode, self.success)


class ActorRecord(BaseModel):
    """One actor of a trail with several devices (``ActorResult``): what it ran on, where it logged."""

    model_config = ConfigDict(extra="ignore")

    name: str
    platform: str
    driver: str
    device: str | None = None
    endpoint: str | None = None
    session_id: str | None = None
    log_dir: str | None = None
    """Relative to the bundle, like ``TrailRecord.log_dir``."""

    @classmethod
    def of(cls, actor: ActorResult, root: Path) -> ActorRecord:
        return cls(name=actor.name, platform=actor.platform, driver=actor.driver, device=actor.device,
                   endpoint=actor.endpoint, session_id=actor.session_id, log_dir=relative(actor.log_dir, root))

    def result(self, full: Callable[[str | None], Path | None]) -> ActorResult:
        """The actor as the run had it; ``full`` turns a bundle-relative path into the merge's."""
        return ActorResult(self.name, self.platform, self.driver, device=self.device, endpoint=self.endpoint,
                           session_id=self.session_id, log_dir=full(self.log_dir))


class HealCheckRecord(BaseModel):
    """A trail's ``heal_check`` (``results.model.HealCheck``) in a bundle: the proving replay's log
    directory relative to the bundle like ``TrailRecord.log_dir``, the proposal as the run named it."""

    model_config = ConfigDict(extra="ignore")

    status: str
    message: str | None = None
    step: int | None = None
    tool: str | None = None
    proposal: str | None = None
    written: bool = False
    log_dir: str | None = None

    @classmethod
    def of(cls, check: HealCheck, root: Path) -> HealCheckRecord:
        return cls(status=check.status, message=check.message, step=check.step, tool=check.tool,
                   proposal=str(check.proposal) if check.proposal else None, written=check.written,
                   log_dir=relative(check.log_dir, root))

    def result(self, full: Callable[[str | None], Path | None]) -> HealCheck:
        """The ``HealCheck`` again (``full``: a bundle-relative path made whole)."""
        return HealCheck(self.status, self.message, self.step, self.tool,
                         Path(self.proposal) if self.proposal else None, self.written, full(self.log_dir))


class TrailRecord(BaseModel):
    """One trail on one device, one attempt: everything the merged summary, report and JUnit show."""

    model_config = ConfigDict(extra="ignore")

    key: str
    """The trail's path relative to the directory the run started in (what ``--shard`` partitions)."""
    title: str
    trail_source: str
    trail_id: str | None = None
    device: str | None = None
    """The ``-d`` device spec, or None for the trail's own driver."""
    endpoint: str | None = None
    """The remote endpoint (Playwright server, Appium server) the trail ran against, when one was used."""
    driver: str | None = None
    platform: str | None = None
    classifier: str | None = None
    target: str | None = None
    tags: list[str] = Field(default_factory=list)
    attempt: int = 1
    outcome: str
    """A ``SessionOutcome`` value (``Succeeded``, ``Failed``, ``Error``, ...)."""
    exit_code: int
    message: str | None = None
    failure_kind: str | None = None
    failed_tool: str | None = None
    skip_reason: str | None = None
    execution_mode: str = "UNKNOWN"
    session_id: str | None = None
    started_at: Timestamp
    completed_at: Timestamp
    duration_ms: int
    llm_call_count: int = 0
    llm_cost_usd: float = 0.0
    llm_tokens: int = 0
    quarantined: bool = False
    """Listed in ``quarantine:``: reported, but its failure does not fail the run (exit code 0)."""
    has_recorded_steps: bool = False
    log_dir: str | None = None
    """Relative to the bundle (absolute only when the logs were written outside it)."""
    artifacts: dict[str, str] = Field(default_factory=dict)
    """``screenshot``, ``trace``, ...: relative to the bundle like ``log_dir``."""
    steps: list[StepRecord] = Field(default_factory=list)
    shard: str | None = None
    worker: str | None = None
    bundle: str | None = None
    """Set by ``merge-reports``: the bundle (relative to its output) the record came from."""
    last: bool = True
    """The trail's last attempt on this device (its result); its earlier attempts are records too, with
    ``last`` false. Counts, exit codes and durations read the last attempts only."""
    workspace: str | None = None
    """The absolute root of the workspace the trail ran in (part of the result's identity)."""
    workspace_path: str | None = None
    """The trail file's path within its workspace (posix)."""
    run_id: str | None = None
    """The run the record belongs to (the manifest's ``run_id`` when an older bundle left it out)."""
    actor: str | None = None
    """Part of the result's identity, kept None: a trail with actors is one record, its actors in ``actors``."""
    actors: list[ActorRecord] = Field(default_factory=list)
    """A trail with several devices (``config.actors``) is one record; these are its actors, in
    declaration order, and each of its ``steps`` names its ``actor``."""
    heal_check: HealCheckRecord | None = None
    """What became of the recordings the agent made (None: it made none to save)."""

    def session_outcome(self) -> SessionOutcome:
        """``outcome`` as a ``SessionOutcome``; a value this version does not know is an ``ERROR``."""
        return _OUTCOMES.get(self.outcome, SessionOutcome.ERROR)

    def identity(self) -> ResultIdentity:
        """The record's identity (``results.model.result_identity``): what ``merge-reports`` keys on."""
        return result_identity(workspace=self.workspace, trail=self.workspace_path or self.key, device=self.device,
                               actor=self.actor, run_id=self.run_id, attempt=self.attempt)


_OUTCOMES = {outcome.value: outcome for outcome in SessionOutcome}
"""``SessionOutcome`` by value: read for every record of a merge, several times (an enum lookup is slower)."""


class BundleManifest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    format: str = FORMAT
    version: int = VERSION
    run_id: str
    shard: str | None = None
    worker: str | None = None
    devices: list[str] = Field(default_factory=list)
    endpoints: list[str] = Field(default_factory=list)
    started_at: Timestamp
    completed_at: Timestamp
    trailblaze_version: str = __version__
    plugins: dict[str, str | None] = Field(default_factory=dict)
    python: str = Field(default_factory=platform.python_version)
    host: str = Field(default_factory=socket.gethostname)
    git_commit: str | None = None
    exit_code: int = 0
    counts: dict[str, int] = Field(default_factory=dict)
    files: dict[str, str] = Field(default_factory=dict)
    """``results``, ``summary``, ``report``, ``junit``: paths (relative to the bundle) of what the run wrote."""
    merged_from: list[dict[str, Any]] = Field(default_factory=list)
    """Set by ``merge-reports``: each input bundle's manifest (shard, worker, host, wall time)."""
    interrupted_by: str | None = None
    """The signal that stopped the run (``SIGINT``, ``SIGTERM``, ``SIGHUP``), when one did."""
    complete: bool = True
    """False while the run is still going (its trails are appended as they end): a bundle left that way
    is a run that was killed; it holds the trails that run finished, and ``merge-reports`` says so."""


_RECORDS = TypeAdapter(list[TrailRecord])


def relative(path: Path | str | None, root: Path) -> str | None:
    """``path`` relative to the bundle root (posix), or as given when it lies outside it."""
    if path is None:
        return None
    full = Path(path)
    try:
        return full.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(full)


def records_of(trail: TrailResult, root: Path, context: BundleContext) -> list[TrailRecord]:
    """One record per attempt of ``trail`` (first first; the last is ``trail`` itself, ``last`` true)."""
    tries = (*trail.attempts, trail)
    return [record_of(attempt, root, shard=context.shard, worker=context.worker, run_id=context.run_id,
                      of=trail, number=number) for number, attempt in enumerate(tries, start=1)]


def record_of(trail: TrailResult, root: Path, *, shard: str | None, worker: str | None, run_id: str | None = None,
              of: TrailResult | None = None, number: int | None = None) -> TrailRecord:
    """``trail`` as a record; ``of`` is the trail's last attempt when ``trail`` is an earlier one (the
    runner sets the device, workspace, endpoint, tags and quarantine on the last attempt only)."""
    from ..results.model import trail_key
    from .junit import artifact_paths

    final = of or trail
    done = trail.completed_at or trail.started_at
    artifacts = {k: v for k, v in artifact_paths(trail).items() if k != "log_dir"}
    failed_step = next((s for s in trail.steps if not s.success), None)
    workspace, within = within_workspace(final.path, final.root)
    return TrailRecord(
        key=trail_key(trail.path), title=trail.title, trail_source=str(trail.path), trail_id=trail.trail_id,
        device=final.device_label, endpoint=final.endpoint, driver=trail.driver, platform=trail.platform,
        classifier=trail.classifier, target=trail.target, tags=list(final.tags),
        attempt=number or len(trail.attempts) + 1,
        outcome=trail.outcome.value, exit_code=int(trail.exit_code), message=trail.message,
        failure_kind=trail.failure_kind, failed_tool=failed_step.tool if failed_step else None,
        skip_reason=trail.skip_reason, execution_mode=trail.execution_mode, session_id=trail.session_id,
        started_at=trail.started_at, completed_at=done, duration_ms=int((done - trail.started_at) * 1000),
        llm_call_count=trail.llm_call_count, llm_cost_usd=round(trail.llm_cost_usd, 6),
        llm_tokens=trail.llm_tokens, quarantined=final.quarantined, has_recorded_steps=trail.has_recorded_steps,
        log_dir=relative(trail.log_dir, root),
        artifacts={k: relative(v, root) or v for k, v in artifacts.items()},
        steps=[StepRecord.of(s) for s in trail.steps], actors=[ActorRecord.of(a, root) for a in trail.actors],
        shard=shard, worker=worker, last=trail is final, run_id=run_id,
        workspace=workspace, workspace_path=within,
        heal_check=HealCheckRecord.of(trail.heal_check, root) if trail.heal_check is not None else None)


def within_workspace(path: Path | str, root: Path | None) -> tuple[str | None, str | None]:
    """A trail's workspace root (absolute) and its path within it (``TrailRecord.workspace`` and
    ``workspace_path``); (None, None) when the root is not known."""
    if root is None:
        return None, None
    base = root.resolve()
    try:
        return base.as_posix(), Path(path).resolve().relative_to(base).as_posix()
    except ValueError:  # a trail outside its workspace's folder: its absolute path names it
        return base.as_posix(), Path(path).resolve().as_posix()


def exit_code_of(record: TrailRecord) -> ExitCode:
    """What the record adds to the run's exit code, decided by its outcome as a single run decides it
    (``results.model.outcome_exit_code``), never by the ``exit_code`` a bundle says beside it: a record
    that failed fails the merge even when it claims 0. A quarantined trail is reported, never failing."""
    return ExitCode.SUCCESS if record.quarantined else outcome_exit_code(record.session_outcome(), record.exit_code)


def counts(records: list[TrailRecord]) -> dict[str, int]:
    tally = Tally()
    for record in records:
        tally.add(record)
    return tally.counts


@dataclass
class Tally:
    """What a manifest says about its records, kept up to date one record at a time (so a worker's
    manifest costs the same after its thousandth trail as after its first)."""

    counts: dict[str, int] = field(default_factory=lambda: {"total": 0, "passed": 0, "failed": 0, "skipped": 0})
    endpoints: set[str] = field(default_factory=set)
    started_at: float | None = None
    completed_at: float | None = None
    exit_code: ExitCode = ExitCode.SUCCESS

    def add(self, record: TrailRecord) -> None:
        if not record.last:
            return  # an earlier attempt: the trail counts once, by its result
        kind = ("passed" if record.outcome in ("Succeeded", "SucceededWithSelfHeal")
                else "skipped" if record.outcome == "Skipped" else "failed")
        self.counts["total"] += 1
        self.counts[kind] += 1
        if record.endpoint:
            self.endpoints.add(record.endpoint)
        self.started_at = min(record.started_at, self.started_at or record.started_at)
        self.completed_at = max(record.completed_at, self.completed_at or record.completed_at)
        code = exit_code_of(record)
        if code:
            self.exit_code = ExitCode.worst([self.exit_code, code])

    def manifest(self, context: BundleContext, files: Mapping[str, str], exit_code: int | None = None, *,
                 complete: bool = True) -> BundleManifest:
        now = time.time()
        started = min([t for t in (self.started_at, context.started_at) if t is not None], default=now)
        return BundleManifest(
            run_id=context.run_id, shard=context.shard, worker=context.worker, devices=list(context.devices),
            endpoints=sorted(self.endpoints), started_at=started, completed_at=self.completed_at or now,
            plugins=dict(context.plugins or {}), git_commit=current_commit(),
            exit_code=int(self.exit_code if exit_code is None else exit_code), counts=dict(self.counts),
            files={"results": RESULTS, **files}, complete=complete)


def write_bundle(run: RunResult, root: Path, context: BundleContext, files: Mapping[str, Path | None]) -> Path:
    """Write ``bundle.json`` and ``results.jsonl`` for ``run`` into ``root`` (the run's output directory)."""
    root.mkdir(parents=True, exist_ok=True)
    tally = Tally()
    lines = []
    for trail in run.trails:
        for record in records_of(trail, root, context):
            tally.add(record)
            lines.append(line_of(capped(run.redact(record.model_dump(mode="json")), MAX_TEXT)))
    write_lines(root / RESULTS, lines)
    manifest = tally.manifest(context, within_bundle(files, root), int(run.exit_code))
    manifest.interrupted_by = run.interrupted
    path = root / MANIFEST
    write_json(path, run.redact(manifest.model_dump(mode="json")))
    return path


class BundleAppender:
    """A running run's bundle (a plain run's, an xdist worker's), kept current trail by trail: each
    finished trail's attempts are lines appended (and ``fsync``ed) to ``results.jsonl`` and the small
    manifest (``complete`` false) is rewritten, so the work per trail does not grow with the trails
    before it, and a run killed later leaves every trail it finished. The first append replaces what an
    earlier run left in the same directory. ``write_bundle`` at the end of the run writes the whole
    bundle once more, with the run's files and exit code, complete."""

    def __init__(self, root: Path, context: BundleContext, redact: Callable[[Any], Any]) -> None:
        self.root = root
        self.context = context
        self.redact = redact
        self._tally = Tally()
        self._started = False

    def append(self, trail: TrailResult) -> None:
        records = records_of(trail, self.root, self.context)
        lines = b"".join(line_of(capped(self.redact(record.model_dump(mode="json")), MAX_TEXT)) for record in records)
        if not self._started:
            write_lines(self.root / RESULTS, [lines])
            self._started = True
        else:
            append_line(self.root / RESULTS, lines)
        for record in records:
            self._tally.add(record)
        manifest = self._tally.manifest(self.context, {}, complete=False)
        write_json(self.root / MANIFEST, self.redact(manifest.model_dump(mode="json")))


def within_bundle(files: Mapping[str, Path | None], root: Path) -> dict[str, str]:
    """The manifest's ``files``: those of ``files`` inside the bundle at ``root``, relative to it. A file
    written elsewhere (``--junit-xml`` outside ``--output-dir``) is not part of the bundle, and a reader
    refuses a manifest that names a path outside its bundle (``bundle_limits.inside``)."""
    base = root.resolve()
    out = {}
    for name, path in files.items():
        if path is None:
            continue
        try:
            out[name] = Path(path).resolve().relative_to(base).as_posix()
        except ValueError:
            continue
    return out


def retire_bundle(root: Path) -> None:
    """Remove the bundle an earlier run left at ``root`` (its manifest first, then its records), as a
    run starts there: a bundle is its latest run's, whole, or not there at all."""
    for name in (MANIFEST, RESULTS, RESULTS_V1):
        try:
            (root / name).unlink(missing_ok=True)
        except IsADirectoryError:
            continue
        except OSError as exc:
            raise BadInputError(f"--output-dir {root}: cannot remove the earlier run's {name} ({exc})") from None


def write_json(path: Path, value: Any) -> None:
    # ASCII: a lone surrogate some outside text carried stays a valid \\uXXXX escape.
    write_atomic(path, json.dumps(value, ensure_ascii=True, separators=(",", ":")))


def write_records(path: Path, records: list[TrailRecord]) -> None:
    """``results.jsonl`` of records that are already redacted (a merge's)."""
    write_lines(path, (model_line(r) for r in records))


def is_bundle(path: Path) -> bool:
    return (Path(path) / MANIFEST).is_file()


def bundle_root(path: Path) -> Path:
    """The bundle directory for a path to it or to its manifest."""
    if path.name == Path(MANIFEST).name and path.is_file():
        return path.parent.parent
    return path


def find_bundles(paths: list[Path], *, exclude: Path | None = None) -> list[Path]:
    """Each path that is a bundle, else every bundle below it (a CI job downloads all its shards' artifacts
    into one folder); a path with no bundle at all is bad input."""
    skip = exclude.resolve() if exclude is not None else None
    found: list[Path] = []
    for path in paths:
        path = bundle_root(path)
        if is_bundle(path):
            found.append(path)
            continue
        if not path.exists():
            raise BadInputError(f"bundle not found: {path}")
        below = sorted(p.parent.parent for p in path.rglob(Path(MANIFEST).name)
                       if is_bundle(p.parent.parent) and p.parent.parent.resolve() != skip)
        outer = outermost(below)
        if not outer:
            raise BadInputError(f"{path} holds no result bundle (no {MANIFEST} in it or below it)")
        found.extend(outer)
    return found


def outermost(roots: list[Path]) -> list[Path]:
    """The bundles of ``roots`` (sorted) that no other one holds: a merged bundle below holds the
    bundles below it. Sorted, a folder comes before everything in it, so each root is checked against
    the outer ones kept so far by its own parents — linear in the bundles (comparing every pair made a
    folder of 2,000 bundles take half a minute)."""
    kept: set[Path] = set()
    outer: list[Path] = []
    for root in roots:
        if not any(parent in kept for parent in root.parents):
            kept.add(root)
            outer.append(root)
    return outer


@dataclass
class Bundle:
    root: Path
    manifest: BundleManifest
    records: list[TrailRecord]


def read_bundle(root: Path) -> Bundle:
    """A bundle from its directory (or its ``bundle.json``); bad input names the file and the key.

    A bundle is untrusted (``bundle_limits``): the files its manifest names must lie inside it, symlinks
    included, and its records are read one line at a time with every string capped."""
    root = bundle_root(Path(root))
    manifest = read_manifest(root)
    results_path = root / manifest.files.get("results", RESULTS if manifest.version >= 2 else RESULTS_V1)
    regular_file(root, results_path, "records")
    if results_path.suffix == ".jsonl":
        lines = iter_models(results_path, TrailRecord, max_line=MAX_RECORD_BYTES, max_text=MAX_TEXT, cap=capped)
        return Bundle(root, manifest, [_lean(record) for record in lines])
    regular_file(root, results_path, "records", max_bytes=MAX_MANIFEST_BYTES)
    try:
        records = _RECORDS.validate_python(capped(_load_json(results_path), MAX_TEXT))
    except ValidationError as exc:
        raise BadInputError(f"{results_path}: {first_error(exc)}") from None
    return Bundle(root, manifest, [_lean(record) for record in records])


def read_manifest(root: Path) -> BundleManifest:
    """The manifest of the bundle at ``root`` (its directory or its ``bundle.json``), checked as
    ``read_bundle`` checks it, without reading its records: which run wrote it, whether it finished."""
    root = bundle_root(Path(root))
    manifest_path = root / MANIFEST
    if not manifest_path.is_file():
        raise BadInputError(f"{root} is not a result bundle: no {MANIFEST}",
                            hint="pass the --output-dir of a trailblaze run (or of merge-reports)")
    regular_file(root, manifest_path, "manifest", max_bytes=MAX_MANIFEST_BYTES)
    raw = _load_json(manifest_path)
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise BadInputError(f"{manifest_path}: not a trailblaze result bundle manifest (format != {FORMAT})")
    if not isinstance(raw.get("version"), int) or raw["version"] > VERSION:
        raise BadInputError(f"{manifest_path}: bundle format version {raw.get('version')!r} is newer than this "
                            f"trailblaze reads ({VERSION})", hint="upgrade trailblaze where you merge")
    try:
        manifest = BundleManifest.model_validate(capped(raw, MAX_TEXT))
    except ValidationError as exc:
        raise BadInputError(f"{manifest_path}: {first_error(exc)}") from None
    for name, entry in manifest.files.items():
        inside(root, entry, f"manifest entry files.{name}")
    return manifest


_EVERY_RECORD_FIELD = set(TrailRecord.model_fields)
_EVERY_STEP_FIELD = set(StepRecord.model_fields)


def _lean(record: TrailRecord) -> TrailRecord:
    """``record`` holding one shared set of its field names where it set every field.

    pydantic keeps, per model, the set of fields its input set (``model_fields_set``). The writers set
    every field, so a record of 41 fields and each of its steps (20) carried a 2 KiB set of the same
    names: two thirds of a read bundle's memory, and a third of a 10,000-trail merge's peak. A record
    that set every field now refers to one set per model class that says the same, so nothing that
    reads ``model_fields_set`` sees a difference; pydantic's ``__setattr__`` only adds a field's name,
    which that set already holds, and a copy (``model_copy``) copies it. A record that left a field
    out (an older writer) keeps its own."""
    if len(record.__pydantic_fields_set__) == len(_EVERY_RECORD_FIELD):
        object.__setattr__(record, "__pydantic_fields_set__", _EVERY_RECORD_FIELD)  # as pydantic sets it
    every = len(_EVERY_STEP_FIELD)
    for step in record.steps:
        if len(step.__pydantic_fields_set__) == every:
            object.__setattr__(step, "__pydantic_fields_set__", _EVERY_STEP_FIELD)
    return record


def read_records(root: Path) -> list[TrailRecord]:
    return read_bundle(root).records


def load_durations(path: Path, *, missing_ok: bool = False) -> dict[str, float]:
    """Seconds per pair key (``runner.shards.pair_key``), and per trail key for pairs run on another
    device, from an earlier run: a result bundle or ``merge-reports`` output (its directory or
    ``bundle.json``), or a JSON summary (a trail run several times counts with its mean duration), or a
    results store (the SQLite run history: each trail's median over its recent passing runs, any device).
    ``missing_ok``: a path that does not exist yet (a CI's first run, an empty cache) gives no durations."""
    from ..results.model import trail_key

    path = Path(path)
    if not path.exists():
        if missing_ok:
            return {}
        raise BadInputError(f"--durations: file not found: {path}")
    if is_results_store(path):
        return store_durations(path)
    samples: dict[str, list[float]] = {}

    def add(trail: str, device: str | None, seconds: float) -> None:
        for key in {f"{trail}@{device}" if device else trail, trail}:
            samples.setdefault(key, []).append(max(0.0, seconds))

    if path.is_dir() or path.name == Path(MANIFEST).name:
        for record in read_records(path):
            if record.last and record.outcome != "Skipped":
                add(record.key, record.device, record.duration_ms / 1000)
    else:
        data = _load_json(path)
        rows = data.get("results") if isinstance(data, dict) else None
        if not isinstance(rows, list):
            raise BadInputError(f"--durations: {path} is neither a result bundle nor a JSON summary (no 'results')")
        for row in rows:
            if isinstance(row, dict) and row.get("trail_source") and row.get("outcome") != "SKIPPED":
                add(trail_key(str(row["trail_source"])), row.get("device") or None,
                    float(row.get("duration_ms") or 0) / 1000)
    return {key: sum(values) / len(values) for key, values in samples.items()}


def is_results_store(path: Path) -> bool:
    """A SQLite file (the results store), told by its header whatever it is named."""
    try:
        with Path(path).open("rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def store_durations(path: Path) -> dict[str, float]:
    """Seconds per trail key from a results store (``results_store.ResultsStore.path_durations``)."""
    import sqlite3

    from ..results.model import trail_key
    from ..results.store import ResultsStore

    try:
        with ResultsStore(path) as store:
            by_path = store.path_durations()
    except (sqlite3.Error, OSError, RuntimeError) as exc:
        raise BadInputError(f"--durations: {path}: not a readable results store ({exc})") from None
    return {trail_key(trail): seconds for trail, seconds in by_path.items()}


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInputError(f"file not found: {path}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BadInputError(f"{path}: not readable JSON ({exc})") from None
