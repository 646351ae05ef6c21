"""Allure results for QA dashboards (``trailblaze run --alluredir DIR``), through ``allure-python-commons``.

One Allure test result per attempt of each trail on each device: attempts of one trail share a
``historyId``, so Allure shows the earlier ones as the retries of the last (and a trail that passed on a
retry as flaky). Each step is an Allure step with its tool calls as sub-steps; the step's screenshot is
attached to it; the trail's event log, trace, network and console logs are attached to the test. Trail
tags become ``tag`` labels; the trail id's folder the suite. All text passes through the run's one
redaction point; files that are attached were redacted when they were written.

``allure-python-commons`` is an optional dependency (``pip install 'trailblaze[allure]'``): without it,
``--alluredir`` is a usage error that says so, and nothing else in Trailblaze needs it.
"""

from __future__ import annotations

import hashlib
import mimetypes
import socket
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadInputError
from ..session import SessionOutcome

if TYPE_CHECKING:
    from ..results.model import RunResult, StepResult, TrailResult

MISSING = ("--alluredir needs allure-python-commons, which is not installed",
           "install it with: pip install 'trailblaze[allure]'")
STATUS = {SessionOutcome.SUCCEEDED: "passed", SessionOutcome.SUCCEEDED_WITH_SELF_HEAL: "passed",
          SessionOutcome.SKIPPED: "skipped", SessionOutcome.ERROR: "broken",
          SessionOutcome.CANCELLED: "broken"}
"""Allure's statuses: ``failed`` is the product's fault (every other outcome), ``broken`` infrastructure."""
TOOL_LOGS = ("TrailblazeToolLog", "DelegatingTrailblazeToolLog")
EVIDENCE_SUFFIXES = (".zip", ".ndjson", ".har", ".log", ".webm", ".mp4", ".png", ".txt")


def require_allure() -> None:
    """Fail early (before any trail runs) when ``--alluredir`` cannot be honoured."""
    try:
        import allure_commons.model2  # noqa: F401
    except ImportError:
        raise BadInputError(MISSING[0], hint=MISSING[1]) from None


def write_allure_results(run: RunResult, directory: Path) -> Path:
    """Write ``run`` as Allure results into ``directory`` (created; existing results are kept, so several
    runs or shards can share one directory)."""
    require_allure()
    from allure_commons.logger import AllureFileLogger

    logger = AllureFileLogger(str(directory))  # type: ignore[no-untyped-call]
    for trail in run.trails:
        if trail.session_id is None and trail.outcome is not SessionOutcome.SKIPPED:
            continue  # a workspace check result or a trail that never started: nothing to show as a test
        tries = [*trail.attempts, trail]
        for number, attempt in enumerate(tries, start=1):
            _write_attempt(logger, attempt, trail, number, run.redact)
    return Path(directory)


def _write_attempt(logger: Any, attempt: TrailResult, trail: TrailResult, number: int,
                   clean: Callable[[Any], Any]) -> None:
    from allure_commons.model2 import Label, Parameter, StatusDetails, TestResult

    device = attempt.classifier or attempt.driver or "default"
    key = f"{trail.trail_id or trail.path}::{device}"
    start = int(attempt.started_at * 1000)
    stop = int((attempt.completed_at or attempt.started_at) * 1000)
    status = STATUS.get(attempt.outcome, "failed")
    details = None
    unpassed = not attempt.passed and attempt.outcome is not SessionOutcome.SKIPPED
    if unpassed or (attempt is trail and trail.flaky):
        message = attempt.skip_reason if attempt.outcome is SessionOutcome.SKIPPED else attempt.message
        details = StatusDetails(message=clean(message or attempt.status), flaky=trail.flaky or None,
                                trace=clean(attempt.message) if attempt.message else None)
    suite = (trail.trail_id or "").rsplit("/", 1)[0] if trail.trail_id and "/" in trail.trail_id else None
    labels = [Label(name="framework", value="trailblaze"), Label(name="language", value="python"),
              Label(name="host", value=socket.gethostname()), Label(name="suite", value=suite or "trails")]
    labels += [Label(name="tag", value=clean(tag)) for tag in _tags(attempt)]
    if trail.quarantined:
        labels.append(Label(name="tag", value="quarantined"))
    result = TestResult(
        uuid=str(uuid.uuid4()), historyId=_md5(key), testCaseId=_md5(str(trail.trail_id or trail.path)),
        name=clean(f"{trail.title} [{device}]"), fullName=clean(key), status=status, statusDetails=details,
        stage="finished", start=start, stop=stop, labels=labels,
        parameters=[Parameter(name="device", value=device), Parameter(name="attempt", value=str(number),
                                                                      excluded=True)],
        description=clean(f"Trail {attempt.path}; session {attempt.session_id or '–'}; "
                          f"status {attempt.status}"))
    result.steps = _steps(logger, attempt, start, clean)
    result.attachments = _evidence(logger, attempt)
    logger.report_result(result)


def _steps(logger: Any, trail: TrailResult, start: int, clean: Callable[[Any], Any]) -> list[Any]:
    from allure_commons.model2 import StatusDetails, TestStepResult

    tools: dict[int | None, list[dict[str, Any]]] = {}
    for entry in trail.log_entries:
        if str(entry.get("class", "")).rsplit(".", 1)[-1] in TOOL_LOGS and entry.get("depth", 0) == 0:
            tools.setdefault(entry.get("stepIndex"), []).append(entry)
    out = []
    at = start
    for step in trail.steps:
        label = {"trailhead": "trailhead", "verify": "verify"}.get(step.kind, f"step {step.number}")
        node = TestStepResult(name=clean(f"{label}: {step.text or ''}".strip()),
                              status="passed" if step.success else "failed", stage="finished",
                              start=at, stop=at + step.duration_ms)
        at += step.duration_ms
        if not step.success and step.message:
            node.statusDetails = StatusDetails(message=clean(step.message))
        node.parameters = _step_parameters(step)
        for entry in tools.get(step.index, []):
            node.steps.append(TestStepResult(
                name=clean(f"{entry.get('toolName')} {_short(entry.get('trailblazeTool', {}).get('raw'))}"),
                status="passed" if entry.get("successful", True) else "failed", stage="finished",
                start=node.start, stop=node.start + int(entry.get("durationMs") or 0)))
        folder = trail.log_dir_of(step.actor)
        if step.screenshot and folder is not None:
            attached = _attach(logger, folder / step.screenshot, f"screenshot, step {step.number}")
            if attached is not None:
                node.attachments.append(attached)
        out.append(node)
    return out


def _step_parameters(step: StepResult) -> list[Any]:
    from allure_commons.model2 import Parameter

    params = [Parameter(name="mode", value=step.mode)]
    if step.llm_call_count:
        params += [Parameter(name="llm calls", value=str(step.llm_call_count)),
                   Parameter(name="llm cost usd", value=f"{step.llm_cost_usd:.6f}")]
    return params


def _evidence(logger: Any, trail: TrailResult) -> list[Any]:
    """The attempt's log folder files worth opening: event log, trace, network/console logs, video."""
    # A trail with actors: each actor's own folder, its files named after the actor (both have a network.ndjson).
    folders: list[tuple[str, Path | None]] = [(f"{a.name}/", a.log_dir) for a in trail.actors] or [("", trail.log_dir)]
    out = []
    for prefix, path in sorted((prefix, p) for prefix, folder in folders if folder is not None and folder.is_dir()
                               for p in folder.iterdir()):
        if is_evidence(path):
            attached = _attach(logger, path, prefix + path.name)
            if attached is not None:
                out.append(attached)
    return out


def is_evidence(path: Path) -> bool:
    """A log-folder file worth attaching (step screenshots and model screenshots go with their step)."""
    return path.is_file() and path.suffix in EVIDENCE_SUFFIXES and not path.name.startswith(("step_", "llm_"))


def _attach(logger: Any, source: Path, name: str) -> Any:
    from allure_commons.model2 import Attachment

    if not source.is_file():
        return None
    mime = mimetypes.guess_type(source.name)[0] or ("application/x-ndjson" if source.suffix == ".ndjson"
                                                    else "application/octet-stream")
    file_name = f"{uuid.uuid4()}-attachment{source.suffix}"
    logger.report_attached_file(str(source), file_name)
    return Attachment(name=name, source=file_name, type=mime)


def _tags(trail: TrailResult) -> list[str]:
    for entry in trail.log_entries:
        status = entry.get("sessionStatus")
        if isinstance(status, dict) and isinstance(status.get("trailConfig"), dict):
            return [str(t) for t in status["trailConfig"].get("tags") or []]
    return []


def _short(args: Any, limit: int = 120) -> str:
    import json

    text = json.dumps(args or {}, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()
