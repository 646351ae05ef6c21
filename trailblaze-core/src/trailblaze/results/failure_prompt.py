"""The prompt for a failed step: everything the person or coding agent who will fix it needs, in one
text they can paste — the trail file and line, the step, its recording, the error, the screen at the
failure, the last run that passed, and what to do.

One function builds it, so the HTML report's "Copy prompt" button and ``trailblaze results TRAIL
--prompt`` (which reads it back from the run history) show the same text; like every output it passes
the run's redactor before it is written anywhere.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import StepResult, TrailResult

MAX_SCREEN_CHARS = 20_000
"""The screen is cut here: a prompt is pasted, and a page's full snapshot can be far longer."""

WHAT_TO_DO = (
    "What to do: decide whether the test or the app is wrong. If the app changed on purpose, fix the "
    "recording of this step at the file and line above (or delete it and run `trailblaze run --self-heal`, "
    "so the agent solves the step again and records it). If the app should still do what the recording "
    "expects, report an app bug with the error and the screen above.")


def failed_step(trail: TrailResult) -> StepResult | None:
    """The step a failure prompt is about: the trail's first failed step (None when none failed)."""
    return next((s for s in trail.steps if s.status == "failed"), None)


def failure_prompt(trail: TrailResult, step: StepResult) -> str:
    """The prompt for ``step`` of ``trail`` (unredacted: its writer passes it through the run's redactor)."""
    label = {"verify": "verify", "trailhead": "trailhead", "tools": "tools"}.get(step.kind, "step")
    name = label if step.kind == "trailhead" else f"{label} {step.number}"
    device = trail.classifier or trail.driver or "this device"
    lines = [f"A Trailblaze trail failed: {trail.title}",
             f"Trail file: {step.location or trail.path} ({name})",
             f"Device: {device}" + (f" (driver {trail.driver})" if trail.driver else ""),
             "", f"The {label}:", _indented(step.text or "(no text)"), ""]
    if step.recorded:
        lines.append(f"Its recording for {device}:")
        lines += [f"  - {c.name}: {json.dumps(c.args, ensure_ascii=False, default=str)}" for c in step.recorded]
    elif step.reason:
        lines.append(f"It had no recording to replay: the model ran it ({step.reason}).")
    else:
        lines.append("It has no recording.")
    lines += ["", "The error:", _indented(step.message or trail.message or "(no message)"), "",
              "The screen at the failure:", _indented(_clipped(step.screen) if step.screen else "(not captured)"),
              "", f"The last run that passed: {trail.last_pass or 'none in the run history'}", "", WHAT_TO_DO]
    return "\n".join(lines) + "\n"


def _indented(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines() or [""])


def _clipped(text: str) -> str:
    if len(text) <= MAX_SCREEN_CHARS:
        return text
    return text[:MAX_SCREEN_CHARS] + f"\n… [{len(text) - MAX_SCREEN_CHARS} more characters]"


__all__ = ["MAX_SCREEN_CHARS", "WHAT_TO_DO", "failed_step", "failure_prompt"]
