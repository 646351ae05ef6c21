"""A run's connection to the results store: each finished trail is written as it finishes (so a
killed run keeps what it ran), and the report reads each trail's recent runs back."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import WorkspaceConfig
    from ..results.store import ResultsStore, RunContext
    from ..results.model import RunResult, TrailResult


class RunHistory:
    """Opened on the first result; a store that cannot be opened or written is one warning, never a
    failed run (the history is evidence, not the verdict)."""

    def __init__(self, path: Path | None, *, fallback_dir: Path, redact: Callable[[str], str],
                 run_id: Callable[[], str], shard: str | None = None, endpoint: str | None = None,
                 warn: Callable[[str], None]) -> None:
        self._path = path
        # The run's own id (``RunOutputs.run_id``), so the rows carry the id its bundle and merged report
        # show: the history made one of its own, which ``TRAILBLAZE_RUN_ID`` did not set.
        self._run_id = run_id
        self._redact = redact
        self._fallback_dir = fallback_dir
        self._shard = shard
        self._endpoint = endpoint
        self._warn = warn
        self._store: ResultsStore | None = None
        self._context: RunContext | None = None
        self._broken = False
        self._lock = threading.Lock()

    @property
    def path(self) -> Path | None:
        """``--results-db``, else decided by the first trail recorded (see ``record``)."""
        return self._path

    def _open(self, workspace: WorkspaceConfig | None = None) -> ResultsStore | None:
        if self._path is None and workspace is not None:
            from ..results.store import DEFAULT_RELATIVE

            # In a workspace: <workspace>/.trailblaze/results.db. A trail outside any workspace keeps its
            # history beside its logs (never in whatever directory the run happened to start in).
            self._path = workspace.root / DEFAULT_RELATIVE if workspace.file is not None else \
                self._fallback_dir / "reports" / "results.db"
        if self._store is None and not self._broken and self._path is not None:
            from ..results.output_request import current_commit
            from ..results.store import ResultsStore, RunContext

            try:
                self._store = ResultsStore(self._path)
            except Exception as exc:  # noqa: BLE001 - sqlite3.Error, OSError, a newer schema
                self._broken = True
                self._warn(f"run history off: could not open {self.path}: {exc}")
                return None
            self._context = RunContext(self._run_id(), current_commit(), self._shard, self._endpoint)
        return self._store

    def record(self, trail: TrailResult, workspace: WorkspaceConfig | None, *,
               endpoint: str | None = None) -> None:
        with self._lock:
            store = self._open(workspace)
            if store is None or self._context is None:
                return
            context = self._context if endpoint is None else replace(self._context, endpoint=endpoint)
            try:
                from ..results.store import trail_key

                last_pass = store.last_pass(*trail_key(trail), store.workspace_key(trail.root))
                for attempt in (*trail.attempts, trail):
                    attempt.last_pass = last_pass
                store.record_trail(trail, context, redact=self._redact)
            except Exception as exc:  # noqa: BLE001
                self._warn(f"run history: could not record {trail.title}: {exc}")

    def attach(self, run: RunResult, *, last: int = 20) -> None:
        """Give the run each trail's recent statuses (oldest first) for the report's history strip."""
        from ..results.store import trail_key

        with self._lock:
            store = self._open()
            if store is None:
                return
            try:
                history: dict[tuple[str, str], list[str]] = {}
                for trail in run.trails:  # each trail's own workspace's history (a store may hold several)
                    if trail.session_id:
                        history.update(store.recent_statuses([trail_key(trail)], last=last,
                                                             workspace=store.workspace_key(trail.root)))
                run.history = history
            except Exception as exc:  # noqa: BLE001
                self._warn(f"run history: could not read {self.path}: {exc}")

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
