"""A trail's steps and evidence inside the test ``allure-pytest`` writes (``pytest --trails … --alluredir``).

allure-pytest owns the test result (its name, status, retries through pytest-rerunfailures); this adds
what only Trailblaze knows, through allure's public hooks: one Allure step per trail step (failed ones
with their message), the step's tool calls as sub-steps, the step's screenshot, and the attempt's event
log, trace and evidence files as attachments; trail tags as ``tag`` labels. Steps are added after the
trail ran, so they carry their outcome but not their own timing (``trailblaze run --alluredir`` keeps
both). Nothing here may fail a test: allure-pytest is someone else's plugin.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from ..results.model import TrailResult


def active(config: pytest.Config) -> bool:
    """allure-pytest is installed and writing results in this run."""
    return bool(config.pluginmanager.hasplugin("allure_pytest")
                and getattr(config.option, "allure_report_dir", None))


def add_trail(result: TrailResult, clean: Callable[[Any], Any], *, attempt: str | None = None) -> None:
    """Add ``result``'s steps and evidence to the current allure-pytest test; with ``attempt`` (a retried
    trail), inside one step of that name."""
    try:
        from allure_commons import plugin_manager

        hook = plugin_manager.hook
        wrapper = str(uuid.uuid4())
        if attempt is not None:
            from ..results.model import OUTCOME_TO_SUMMARY

            hook.start_step(uuid=wrapper, title=f"{attempt}: {OUTCOME_TO_SUMMARY[result.outcome]}", params={})
        try:
            _add(result, clean, hook)
        finally:
            if attempt is not None:
                error = None if result.passed else AssertionError(clean(result.message or result.status))
                _stop(hook, wrapper, error)
    except Exception:  # noqa: BLE001, S110 - a dashboard detail never fails the test
        pass


def _add(result: TrailResult, clean: Callable[[Any], Any], hook: Any) -> None:
    import allure

    from .allure import TOOL_LOGS, _short, _tags, is_evidence

    tags = _tags(result)
    if tags:
        allure.dynamic.tag(*[clean(t) for t in tags])  # type: ignore[no-untyped-call]
    tools: dict[Any, list[dict[str, Any]]] = {}
    for entry in result.log_entries:
        if str(entry.get("class", "")).rsplit(".", 1)[-1] in TOOL_LOGS and entry.get("depth", 0) == 0:
            tools.setdefault(entry.get("stepIndex"), []).append(entry)
    for step in result.steps:
        if step.mode == "skipped":
            continue  # not run: an earlier step ended the trail
        label = {"trailhead": "trailhead", "verify": "verify"}.get(step.kind, f"step {step.number}")
        step_id = str(uuid.uuid4())
        hook.start_step(uuid=step_id, title=clean(f"{label}: {step.text or ''}".strip()),
                        params={"mode": step.mode})
        for entry in tools.get(step.index, []):
            call_id = str(uuid.uuid4())
            raw = entry.get("trailblazeTool", {}).get("raw")
            hook.start_step(uuid=call_id, title=clean(f"{entry.get('toolName')} {_short(raw)}"), params={})
            ok = entry.get("successful", True)
            _stop(hook, call_id, None if ok else AssertionError(clean(str(entry.get("error") or ""))))
        folder = result.log_dir_of(step.actor)  # an actor's screenshots are in its own folder
        if step.screenshot and folder is not None and (folder / step.screenshot).is_file():
            allure.attach.file(str(folder / step.screenshot), name=f"screenshot, {label}",  # type: ignore[no-untyped-call]
                               extension=(folder / step.screenshot).suffix.lstrip("."))
        error = None if step.success else AssertionError(clean(step.message or "failed"))
        _stop(hook, step_id, error)
    # A trail with actors: each actor's own folder, its files named after the actor.
    folders: list[tuple[str, Path | None]] = [(f"{a.name}/", a.log_dir) for a in result.actors] or \
        [("", result.log_dir)]
    for prefix, folder in folders:
        if folder is None or not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if is_evidence(path):
                allure.attach.file(str(path), name=prefix + path.name,  # type: ignore[no-untyped-call]
                                   extension=path.suffix.lstrip("."))


def _stop(hook: Any, step_id: str, error: BaseException | None) -> None:
    """End a step: passed, or failed with ``error``'s message."""
    hook.stop_step(uuid=step_id, exc_type=type(error) if error else None, exc_val=error, exc_tb=None)
