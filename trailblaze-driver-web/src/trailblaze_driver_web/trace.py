"""The Playwright trace of a web trail: one group per step, kept by the ``trace`` setting, secrets scrubbed.

A trace costs on every step (DOM snapshots, the screencast), so a passing run with the defaults records
none (docs/web.md, Artifacts). No trace without logs: it is an artifact of the session's log directory
(``--no-logging`` and ``trailblaze snapshot`` write none).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze import secret_forms

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext
    from trailblaze import StepInfo
    from trailblaze import Session

TRACE_FILE = "trace.zip"


class TraceRecorder:
    """Records ``context``'s trace from construction; ``keep`` is the ``trace`` setting (``on`` or
    ``retain-on-failure``)."""

    def __init__(self, context: BrowserContext, *, keep: str, screenshots: bool, title: str | None) -> None:
        self.context = context
        self.keep = keep
        self._group_open = False
        context.tracing.start(title=title, screenshots=screenshots, snapshots=True, sources=False)

    def step_started(self, step: StepInfo) -> None:
        """Open the step's group (the trace viewer shows each step as a group)."""
        self.end_group()
        text = " ".join((step.text or "").split())[:80]
        try:
            self.context.tracing.group(f"{step.kind} {step.number}" + (f": {text}" if text else ""))
            self._group_open = True
        except Exception:  # noqa: BLE001 - groups are cosmetic
            pass

    def end_group(self) -> None:
        if self._group_open:
            try:
                self.context.tracing.group_end()
            except Exception:  # noqa: BLE001
                pass
        self._group_open = False

    def finish(self, session: Session, ok: bool, lost: str | None) -> None:
        """Stop tracing; write the trace to the log directory when it is kept, scrubbed of the session's
        secrets. ``lost``: why the browser connection is gone (no trace can be asked for then)."""
        self.end_group()
        if lost is not None:
            session.log.write("WebArtifactLog", {"error": "no Playwright trace: the browser connection is gone"})
            return
        keep = self.keep == "on" or (self.keep == "retain-on-failure" and not ok)
        try:
            if not keep:
                self.context.tracing.stop()
                return
            path = session.log_dir / TRACE_FILE
            path.parent.mkdir(parents=True, exist_ok=True)
            self.context.tracing.stop(path=str(path))
        except Exception as exc:  # noqa: BLE001
            session.log.write("WebArtifactLog", {"error": f"the Playwright trace could not be saved: {exc}"})
            return
        secrets = session.memory.secret_values()
        if secrets:
            scrub_zip(path, secret_forms(secrets))
        session.log.write("WebTraceLog", {"trace": TRACE_FILE, "path": str(path),
                                          "view": f"playwright show-trace {path}"})


def scrub_zip(path: Path, secrets: list[str], replacement: str = "***") -> int:
    """Replace secret values in every entry of a trace archive (DOM snapshots hold input values, the
    action log holds ``fill`` arguments). Returns how many entries changed."""
    encoded = [(s.encode("utf-8"), replacement.encode()) for s in secrets if s]
    tmp = path.with_suffix(".scrub.zip")
    changed = 0
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            new = data
            for secret, rep in encoded:
                if secret in new:
                    new = new.replace(secret, rep)
            if new is not data and new != data:
                changed += 1
            dst.writestr(info, new)
    tmp.replace(path)
    return changed
