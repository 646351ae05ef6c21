"""The run history: every attempt of every trail on every device, in one SQLite file.

Default place ``<workspace>/.trailblaze/results.db`` (``--results-db PATH`` elsewhere, ``--no-history``
off); one file a CI job can restore from its cache and save again. Standard-library ``sqlite3`` in WAL
mode with a busy timeout, and one transaction per trail result (all its attempts at once), so
concurrent writers — devices of one run, pytest-xdist workers, parallel ``trailblaze run`` processes
on one machine — lose nothing and never see half a result.

The API other parts build on (``trailblaze results``, the HTML report's history strip, and the
scale-out work: ``merge-reports`` importing result bundles, the shard balancer reading durations)::

    store = ResultsStore(path)                     # creates or opens the file (schema versioned)
    store.record_trail(trail_result, context)      # a finished TrailResult and all its attempts
    store.record_attempts([AttemptRecord(...)])    # raw rows, one transaction (bundle import)
    store.history(["shop/cart"], last=20)          # list[TrailHistory]: per trail id × device
    store.durations(["shop/cart"])                 # {trail id: median seconds of recent passing runs}
    store.path_durations()                         # the same per trail file path (what --shard weighs)
    store.recent_statuses(keys, last=20)           # {(trail id, device): [status, ...] oldest first}
    store.close()

A trail is keyed by its workspace × ``config: id`` (else its path) × device (the device classifier,
else the driver): the same trail id or path in two workspaces that share a store (two projects in one
run, one ``--results-db`` for several checkouts) is two histories. The workspace is its root as a path
relative to the store's folder (``..`` for the default ``<workspace>/.trailblaze/results.db``), so a
store cached by CI and restored into the same layout elsewhere keeps its histories. Schema 1 stores
had no workspace: opening one migrates it, giving its rows the workspace the store sits in (``..``
when it is at the default place, else ``""``, the unknown workspace). A run of a trail is its final attempt (``final = 1``); its ``status`` is what people act on
(PASSED, FLAKY, HEALED, FAILED, ERROR, SKIPPED, CANCELLED). The flake rate is the share of a trail's
recent runs that were FLAKY (failed, then passed on a retry).
"""

from __future__ import annotations

import os
import sqlite3
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from .model import step_counts

if TYPE_CHECKING:
    from .model import TrailResult

SCHEMA_VERSION = 3
"""3: ``steps_replayed``/``steps_agent``/``steps_healed`` (how each attempt's steps ran) and
``failure_prompt`` (``results.failure_prompt``, for ``trailblaze results TRAIL --prompt``); 2: ``workspace``
column (part of a trail's identity); 1: the first."""
DEFAULT_RELATIVE = Path(".trailblaze") / "results.db"
BUSY_TIMEOUT_S = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    trail_id TEXT NOT NULL,
    device TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    final INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    status TEXT NOT NULL,
    started_at REAL NOT NULL,
    duration_ms INTEGER NOT NULL,
    failure_signature TEXT,
    failure_kind TEXT,
    commit_sha TEXT,
    shard TEXT,
    endpoint TEXT,
    llm_calls INTEGER NOT NULL DEFAULT 0,
    llm_tokens INTEGER NOT NULL DEFAULT 0,
    llm_cost_usd REAL NOT NULL DEFAULT 0,
    session_id TEXT,
    trail_path TEXT,
    quarantined INTEGER NOT NULL DEFAULT 0,
    workspace TEXT NOT NULL DEFAULT '',
    steps_replayed INTEGER NOT NULL DEFAULT 0,
    steps_agent INTEGER NOT NULL DEFAULT 0,
    steps_healed INTEGER NOT NULL DEFAULT 0,
    failure_prompt TEXT
);
CREATE INDEX IF NOT EXISTS attempts_by_trail ON attempts (trail_id, device, final, started_at);
"""



@dataclass(frozen=True)
class AttemptRecord:
    """One row: one attempt of one trail on one device."""

    run_id: str
    trail_id: str
    device: str
    attempt: int
    final: bool
    """The trail's last attempt (its result); earlier attempts of a retried trail are ``False``."""
    outcome: str
    """This attempt's own outcome (PASSED, FAILED, ERROR, ...)."""
    status: str
    """The trail's status on the final row (FLAKY, HEALED, ...); the outcome on earlier rows."""
    started_at: float
    duration_ms: int
    failure_signature: str | None = None
    failure_kind: str | None = None
    commit_sha: str | None = None
    shard: str | None = None
    endpoint: str | None = None
    llm_calls: int = 0
    llm_tokens: int = 0
    llm_cost_usd: float = 0.0
    session_id: str | None = None
    trail_path: str | None = None
    quarantined: bool = False
    workspace: str = ""
    """The workspace the trail ran in, relative to the store's folder (``ResultsStore.workspace_key``);
    ``""`` when not known."""
    steps_replayed: int = 0
    steps_agent: int = 0
    steps_healed: int = 0
    """How many of the attempt's steps replayed, went to the model unrecorded, were healed by it."""
    failure_prompt: str | None = None
    """The prompt for the attempt's failed step (``results.failure_prompt``), redacted; None if none failed."""


_COLUMNS = [f.name for f in fields(AttemptRecord)]
_ROW = attrgetter(*_COLUMNS)
_INSERT = f"INSERT INTO attempts ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)})"


@dataclass(frozen=True)
class RunContext:
    """What a run knows about itself, stored beside each attempt."""

    run_id: str
    commit_sha: str | None = None
    shard: str | None = None
    endpoint: str | None = None


class TrailHistory(BaseModel):
    """``trailblaze results`` for one trail id × device in one workspace."""

    workspace: str = ""
    """The workspace's root relative to the store's folder (``..``: the one the store sits in)."""
    trail_id: str
    device: str
    runs: int
    last_statuses: list[str]
    """Most recent first."""
    flake_rate: float
    fail_rate: float
    last_pass: str | None
    """ISO time of the last run that passed (PASSED, FLAKY or HEALED), or None."""
    median_duration_s: float | None
    p90_duration_s: float | None
    quarantined: bool
    last_failure: str | None
    agent_step_rate: float | None = None
    """The share of the steps of its recent runs that the model solved (agent or healed) rather than
    replayed; None when none of those runs left step counts (a store from before schema 3)."""


PASSING = ("PASSED", "FLAKY", "HEALED")
FAILING = ("FAILED", "ERROR", "TIMEOUT", "MAX_CALLS_REACHED")


class ResultsStore:
    def __init__(self, path: Path, *, timeout_s: float = BUSY_TIMEOUT_S) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE ... COMMIT), one per result.
        self._db = sqlite3.connect(self.path, timeout=timeout_s, isolation_level=None,
                                   check_same_thread=False)
        self._db.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = NORMAL")
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RuntimeError(f"{self.path} was written by a newer trailblaze (schema {version}); "
                               "upgrade trailblaze")
        if version < SCHEMA_VERSION:
            self._migrate()

    def _migrate(self) -> None:
        """Create the schema, or bring a schema 1 or 2 store up to date (once, whichever process gets
        there first: the version is read again inside the write transaction). Rows from before schema 3
        have no step counts (0 each): the agent-step rate leaves them out."""
        with self._transaction():
            self._db.execute("BEGIN IMMEDIATE")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version == 1:
                home = ".." if self.path.parent.name == ".trailblaze" else ""
                self._db.execute("ALTER TABLE attempts ADD COLUMN workspace TEXT NOT NULL DEFAULT ''")
                self._db.execute("UPDATE attempts SET workspace = ?", (home,))
            if version in (1, 2):
                for column in ("steps_replayed", "steps_agent", "steps_healed"):
                    self._db.execute(f"ALTER TABLE attempts ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
                self._db.execute("ALTER TABLE attempts ADD COLUMN failure_prompt TEXT")
            elif version == 0:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
            if version < SCHEMA_VERSION:
                self._db.execute("CREATE INDEX IF NOT EXISTS attempts_by_workspace ON attempts "
                                 "(workspace, trail_id, device, final, started_at)")
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def workspace_key(self, root: Path | None) -> str:
        """A workspace's part of a trail's identity in this store: its root relative to the store's
        folder (stable when the checkout and the store move together); ``""`` when not known."""
        if root is None:
            return ""
        return os.path.relpath(Path(root).resolve(), self.path.parent.resolve()).replace(os.sep, "/")

    # -- writing ------------------------------------------------------------------------------
    def record_trail(self, trail: TrailResult, context: RunContext,
                     redact: Callable[[str], str] = lambda text: text) -> None:
        """Every attempt of a finished trail, in one transaction; text passes through ``redact`` (the
        run's one redaction point) first."""
        self.record_attempts(attempt_records(trail, context, redact, workspace=self.workspace_key(trail.root)))

    def record_attempt(self, record: AttemptRecord) -> None:
        self.record_attempts([record])

    def record_attempts(self, records: Iterable[AttemptRecord]) -> None:
        rows = [_ROW(r) for r in records]
        if not rows:
            return
        with self._transaction():
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(_INSERT, rows)

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    # -- reading ------------------------------------------------------------------------------
    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0])

    def keys(self, trail_ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """Every (trail id, device) stored, or those of ``trail_ids`` (any workspace)."""
        return sorted({(trail_id, device) for _, trail_id, device in self.trails(trail_ids)})

    def trails(self, trail_ids: Sequence[str] | None = None) -> list[tuple[str, str, str]]:
        """Every (workspace, trail id, device) stored, or those of ``trail_ids``: one history each."""
        sql, args = "SELECT DISTINCT workspace, trail_id, device FROM attempts", list(trail_ids or [])
        if trail_ids:
            sql += f" WHERE trail_id IN ({', '.join('?' for _ in args)})"
        return sorted((str(w), str(a), str(b)) for w, a, b in
                      self._db.execute(sql + " ORDER BY trail_id, device, workspace", args))

    def _runs(self, trail_id: str, device: str, last: int,
              workspace: str | None = None) -> list[tuple[str, float, int, str | None, int, int, int]]:
        where, args = ("", (trail_id, device, last)) if workspace is None else \
            (" AND workspace = ?", (trail_id, device, workspace, last))
        return list(self._db.execute(
            "SELECT status, started_at, duration_ms, failure_signature, quarantined, steps_replayed, "
            "steps_agent + steps_healed FROM attempts "
            f"WHERE trail_id = ? AND device = ?{where} AND final = 1 ORDER BY started_at DESC, id DESC LIMIT ?",
            args))

    def recent_statuses(self, keys: Iterable[tuple[str, str]], *, last: int = 20,
                        workspace: str | None = None) -> dict[tuple[str, str], list[str]]:
        """Statuses of the last runs per (trail id, device), oldest first (the report's history strip);
        of one workspace (``workspace_key``) when given, else of any."""
        return {key: [row[0] for row in reversed(self._runs(*key, last, workspace))] for key in keys}

    def history(self, trail_ids: Sequence[str] | None = None, *, last: int = 20) -> list[TrailHistory]:
        """One entry per workspace × trail id × device (all stored, or those of ``trail_ids``)."""
        out = []
        for workspace, trail_id, device in self.trails(trail_ids):
            runs = self._runs(trail_id, device, last, workspace)
            counted = [r for r in runs if r[0] not in ("SKIPPED", "CANCELLED")]
            durations = sorted(r[2] / 1000 for r in counted)
            last_pass = next((r[1] for r in runs if r[0] in PASSING), None)
            out.append(TrailHistory(
                workspace=workspace, trail_id=trail_id, device=device, runs=len(runs), last_statuses=[r[0] for r in runs],
                flake_rate=_share(counted, ("FLAKY",)), fail_rate=_share(counted, FAILING),
                last_pass=_iso(last_pass) if last_pass is not None else None,
                median_duration_s=round(statistics.median(durations), 3) if durations else None,
                p90_duration_s=round(_percentile(durations, 0.9), 3) if durations else None,
                quarantined=bool(runs and runs[0][4]),
                last_failure=next((r[3] for r in runs if r[0] in FAILING and r[3]), None),
                agent_step_rate=_agent_rate(runs)))
        return out

    def last_pass(self, trail_id: str, device: str, workspace: str | None = None) -> str | None:
        """The trail's last passing run on ``device``, as the failure prompt names it: its time, commit and
        session (None when it never passed here)."""
        where, args = ("", (trail_id, device)) if workspace is None else \
            (" AND workspace = ?", (trail_id, device, workspace))
        row = self._db.execute(
            "SELECT started_at, commit_sha, session_id FROM attempts WHERE trail_id = ? AND device = ?"
            f"{where} AND final = 1 AND status IN (?, ?, ?) ORDER BY started_at DESC, id DESC LIMIT 1",
            (*args, *PASSING)).fetchone()
        if row is None:
            return None
        details = [f"commit {str(row[1])[:12]}" if row[1] else None, f"session {row[2]}" if row[2] else None]
        shown = ", ".join(d for d in details if d)
        return _iso(float(row[0])) + (f" ({shown})" if shown else "")

    def failure_prompts(self, trail_ids: Sequence[str] | None = None) -> list[tuple[str, str, str]]:
        """(trail id, device, prompt) of the latest failed run of each of ``trail_ids`` (None: every trail)
        on each device that left a prompt, newest first."""
        where = f" AND trail_id IN ({', '.join('?' for _ in trail_ids)})" if trail_ids is not None else ""
        rows = self._db.execute(
            "SELECT trail_id, device, failure_prompt, MAX(started_at) FROM attempts WHERE final = 1 AND "
            f"failure_prompt IS NOT NULL{where} GROUP BY workspace, trail_id, device ORDER BY MAX(started_at) DESC",
            list(trail_ids or ())).fetchall()
        return [(str(r[0]), str(r[1]), str(r[2])) for r in rows]

    def durations(self, trail_ids: Sequence[str], *, last: int = 20) -> dict[str, float]:
        """Median seconds of each trail's recent passing runs (any device): what a shard balancer weighs."""
        out: dict[str, float] = {}
        for trail_id in trail_ids:
            rows = self._db.execute(
                "SELECT duration_ms FROM attempts WHERE trail_id = ? AND final = 1 AND status IN (?, ?, ?) "
                "ORDER BY started_at DESC LIMIT ?", (trail_id, *PASSING, last)).fetchall()
            if rows:
                out[trail_id] = statistics.median(r[0] for r in rows) / 1000
        return out

    def path_durations(self, *, last: int = 20) -> dict[str, float]:
        """``durations`` keyed by the trail file's path as its runs named it: ``--shard`` names trails by
        path (a trail id is only known once the file is parsed), so this is what the balancer reads."""
        samples: dict[str, list[int]] = {}
        for path, ms in self._db.execute(
                "SELECT trail_path, duration_ms FROM attempts WHERE final = 1 AND trail_path IS NOT NULL "
                "AND status IN (?, ?, ?) ORDER BY started_at DESC, id DESC", PASSING):
            got = samples.setdefault(str(path), [])
            if len(got) < last:
                got.append(int(ms))
        return {path: statistics.median(values) / 1000 for path, values in samples.items()}

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Transaction:
    """Commit on success, roll back on error (the connection runs in autocommit mode otherwise)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: object, *_: object) -> None:
        if not self.db.in_transaction:
            return
        if exc_type is None:
            self.db.execute("COMMIT")
        else:
            self.db.execute("ROLLBACK")


def trail_key(trail: TrailResult) -> tuple[str, str]:
    """(trail id, device) of a result: ``config: id`` else the path; the device classifier else the driver."""
    return trail.trail_id or str(trail.path), trail.classifier or trail.driver or "default"


def attempt_records(trail: TrailResult, context: RunContext,
                    redact: Callable[[str], str] = lambda text: text, *, workspace: str = "") -> list[AttemptRecord]:
    trail_id, device = trail_key(trail)
    out = []
    tries = [*trail.attempts, trail]
    for number, attempt in enumerate(tries, start=1):
        final = attempt is trail
        done = attempt.completed_at or attempt.started_at
        summary_outcome = attempt.attempt_summary()["outcome"]
        modes = step_counts(attempt.steps)
        out.append(AttemptRecord(
            run_id=context.run_id, trail_id=trail_id, device=device, attempt=number, final=final,
            outcome=summary_outcome, status=trail.status if final else summary_outcome,
            started_at=attempt.started_at, duration_ms=int(max(0.0, done - attempt.started_at) * 1000),
            failure_signature=_maybe(redact, failure_signature(attempt)), failure_kind=attempt.failure_kind,
            commit_sha=context.commit_sha, shard=context.shard, endpoint=context.endpoint,
            llm_calls=attempt.llm_call_count, llm_tokens=getattr(attempt, "llm_tokens", 0),
            llm_cost_usd=attempt.llm_cost_usd, session_id=_maybe(redact, attempt.session_id),
            trail_path=redact(str(attempt.path)),
            quarantined=trail.quarantined, workspace=workspace, steps_replayed=modes["replayed"],
            steps_agent=modes["agent"], steps_healed=modes["healed"], failure_prompt=_prompt(attempt, redact)))
    return out


def failure_signature(trail: TrailResult) -> str | None:
    """The first line of the failure without what changes between runs (paths, numbers), so the same
    failure groups together: ``ToolFailure: step N "Pay": tool 'web_tap' (…) failed: …``."""
    if trail.passed or not trail.message:
        return None
    import re

    line = trail.message.strip().splitlines()[0]
    line = re.sub(r"(/[^\s:'\"()]+)+", "…", line)
    line = re.sub(r"\d+", "N", line)
    return f"{trail.failure_kind or 'Failure'}: {line[:300]}"


def _maybe(redact: Callable[[str], str], text: str | None) -> str | None:
    return None if text is None else redact(text)


def _prompt(trail: TrailResult, redact: Callable[[str], str]) -> str | None:
    from .failure_prompt import failed_step, failure_prompt

    step = failed_step(trail)
    return None if step is None else redact(failure_prompt(trail, step))


def _agent_rate(rows: Sequence[tuple[str, float, int, str | None, int, int, int]]) -> float | None:
    """Model-solved steps over replayed plus model-solved ones, across the runs that counted steps."""
    replayed, by_model = sum(r[5] for r in rows), sum(r[6] for r in rows)
    return round(by_model / (replayed + by_model), 4) if replayed + by_model else None


def _share(rows: Sequence[tuple[str, float, int, str | None, int, int, int]], statuses: tuple[str, ...]) -> float:
    return round(sum(1 for r in rows if r[0] in statuses) / len(rows), 4) if rows else 0.0


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    import math

    index = max(0, min(len(sorted_values) - 1, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[index]


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))
