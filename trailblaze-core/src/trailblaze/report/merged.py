"""A merged run and how its failures group: the model ``merge.py`` builds and ``merged_html.py`` renders.

Below both, so the page and the merge do not import each other.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ExitCode
from ..results.model import trail_status
from .bundle import BundleManifest, TrailRecord, exit_code_of

if TYPE_CHECKING:
    from ..results.model import RunResult

PASSED = frozenset({"Succeeded", "SucceededWithSelfHeal"})


@dataclass
class Merged:
    output_dir: Path
    manifest: BundleManifest
    records: list[TrailRecord]
    duplicates: int = 0
    files: dict[str, Path] = field(default_factory=dict)
    trails: list[list[TrailRecord]] = field(default_factory=list)
    """``records`` by trail run: each trail's attempts, first first (its result last); failures first."""
    same_path: int = 0
    """Trail paths found from more than one workspace or run (kept as separate results)."""
    incomplete: list[Path] = field(default_factory=list)
    """Input bundles whose run never finished (killed): their finished trails are merged, exit 2."""
    results_line: str = ""
    """``Results: P passed, F failed, S skipped (N flaky, ...)``, as a single run of these trails prints it."""
    run: RunResult | None = None
    """The merged run as the summary, JUnit and ``Results:`` line were written from (``merge.write_outputs``)."""

    @property
    def exit_code(self) -> ExitCode:
        codes = [exit_code_of(r) for r in self.records if r.last]
        return ExitCode.worst([*codes, *([ExitCode.INFRASTRUCTURE] if self.incomplete else [])])


def status_of(attempts: Sequence[TrailRecord]) -> str:
    """A merged trail's status from its attempts' records, by the rule every run uses
    (``results.model.trail_status``)."""
    if len(attempts) == 1:  # nearly every trail: no comprehension (a function call in Python 3.11)
        return trail_status((attempts[0].session_outcome(),))
    return trail_status([r.session_outcome() for r in attempts])


def rank(record: TrailRecord) -> int:
    """Failures of every kind (0) before passes (1), skips last (2)."""
    return 1 if record.outcome in PASSED else 2 if record.outcome == "Skipped" else 0


_SHAPES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\([^()\n]*?:\d+(?::\d+)?\)"), "(…)"),        # (trails/x.trail.yaml:12:9)
    (re.compile(r"\{[^{}\n]*\}"), "{…}"),                     # tool arguments
    (re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|“[^”\n]*”"), "'…'"),  # quoted text
    (re.compile(r"\b(?:https?|file)://\S+"), "URL"),
    (re.compile(r"\b[0-9a-f]{8,}\b", re.IGNORECASE), "ID"),
    (re.compile(r"\d+(?:\.\d+)?"), "N"),
    (re.compile(r"\s+"), " "),
]


def message_shape(message: str | None) -> str:
    """The message with what varies between runs of the same failure (steps, locations, quoted values,
    numbers, ids) blanked, so the same failure on many trails groups together."""
    text = (message or "").strip().splitlines()[0] if (message or "").strip() else ""
    for pattern, replacement in _SHAPES:
        text = pattern.sub(replacement, text)
    return text.strip()[:200]


def signature(record: TrailRecord) -> str:
    """Same tool + error class + message shape."""
    return " · ".join([record.failed_tool or "-", record.failure_kind or record.outcome, message_shape(record.message)])


def group_failures(records: Sequence[TrailRecord],
                   by: Callable[[TrailRecord], str]) -> list[tuple[str, list[TrailRecord]]]:
    """Failed records grouped by ``by``, biggest group first."""
    groups: dict[str, list[TrailRecord]] = {}
    for record in records:
        if rank(record) == 0:
            groups.setdefault(by(record), []).append(record)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))


__all__ = ["PASSED", "Merged", "group_failures", "message_shape", "rank", "signature", "status_of"]
