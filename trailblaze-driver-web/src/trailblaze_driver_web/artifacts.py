"""``ArtifactDriver``: what a web run leaves in the session's log directory.

A screenshot of a failed step, or of every step with ``screenshots: on`` (referenced from a
``TrailblazeSnapshotLog``), a Playwright trace per trail when the ``trace`` setting asks for one (one
group per step, secrets scrubbed), the screencast video, and the network and console evidence. A passing
run with the defaults takes no screenshot and records no trace: both cost on every step (docs/web.md,
Artifacts). Fields a secret was typed into are painted over in every picture.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import secret_forms

from .browser_driver import BrowserDriver
from .config import WebDriverConfig
from .video import VIDEO_FILE

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page
    from trailblaze import Session, StepInfo

TRACE_FILE = "trace.zip"


class ArtifactDriver(BrowserDriver):
    """Screenshots, the trace and its step groups, video and evidence, on top of the browser."""

    def __init__(self, config: WebDriverConfig | None = None) -> None:
        super().__init__(config)
        self._group_open = False
        self._shots = 0
        self.secret_fields: list[Locator] = []
        """Fields a secret was typed into; every screenshot paints over them (``mask_secret``)."""

    def mask_secret(self, locator: Locator) -> None:
        """Keep ``locator``'s field out of every later screenshot: logs redact a secret's text, but a
        text field (unlike a password field) would still show it in the picture."""
        self.secret_fields.append(locator)

    def _masks(self, page: Page) -> list[Locator]:
        return [loc for loc in self.secret_fields if loc.page == page]

    def _shoot(self, page: Page, **options: Any) -> bytes:
        return page.screenshot(timeout=self.cfg.timeout_ms, mask=self._masks(page), **options)

    def screenshot(self) -> bytes | None:
        try:
            return self._shoot(self.page, type="png")
        except Exception:  # noqa: BLE001 - a crashed page has no picture
            return None

    def save_screenshot(self, name: str, *, failed: bool = False, step_index: int | None = None,
                        label: str | None = None) -> str | None:
        """Store a screenshot next to the logs and log where it is; returns the file name."""
        if self.session is None:
            return None
        try:
            page = self.page
            if failed:
                data = self._shoot(page, type="png")
                name += ".png"
            else:
                data = self._shoot(page, type="jpeg", quality=70)
                name += ".jpg"
            url = page.url
        except Exception as exc:  # noqa: BLE001
            self._log("WebArtifactLog", {"error": f"screenshot {name} failed: {exc}"})
            return None
        self.session.log.write_file(name, data)
        self._log("TrailblazeSnapshotLog", {"screenName": label or name, "screenshot": name, "url": url,
                                            "stepIndex": step_index, "failed": failed})
        return name

    # -- steps and traces --------------------------------------------------------------------------
    def step_started(self, session: Session, step: StepInfo) -> None:
        """Open the step's trace group (the trace viewer shows each step as a group)."""
        self._end_group()
        if not self.tracing or self.context is None:
            return
        text = " ".join((step.text or "").split())[:80]
        try:
            self.context.tracing.group(f"{step.kind} {step.number}" + (f": {text}" if text else ""))
            self._group_open = True
        except Exception:  # noqa: BLE001 - groups are cosmetic
            pass

    def _end_group(self) -> None:
        if self._group_open and self.context is not None:
            try:
                self.context.tracing.group_end()
            except Exception:  # noqa: BLE001
                pass
        self._group_open = False

    def step_finished(self, session: Session, step: StepInfo, ok: bool) -> None:
        self._end_group()
        mode = self.cfg.screenshots
        if mode == "off" or (mode == "only-on-failure" and ok):
            return
        self._shots += 1
        name = f"step_{step.number:03d}" + ("" if ok else "_failed")
        self.save_screenshot(name, failed=not ok, step_index=step.index,
                             label=f"after step {step.number}" + ("" if ok else " (failed)"))

    def trail_finished(self, session: Session, ok: bool) -> None:
        self._end_group()
        self._write_evidence(session, ok)
        self._finish_video(session, ok)
        if not self.tracing or self.context is None:
            return
        if self.lost() is not None:
            self.tracing = False
            self._log("WebArtifactLog", {"error": "no Playwright trace: the browser connection is gone"})
            return
        self.tracing = False
        keep = self.cfg.trace == "on" or (self.cfg.trace == "retain-on-failure" and not ok)
        try:
            if not keep:
                self.context.tracing.stop()
                return
            path = session.log_dir / TRACE_FILE
            path.parent.mkdir(parents=True, exist_ok=True)
            self.context.tracing.stop(path=str(path))
        except Exception as exc:  # noqa: BLE001
            self._log("WebArtifactLog", {"error": f"the Playwright trace could not be saved: {exc}"})
            return
        secrets = session.memory.secret_values()
        if secrets:
            scrub_zip(path, secret_forms(secrets))
        self._log("WebTraceLog", {"trace": TRACE_FILE, "path": str(path),
                                  "view": f"playwright show-trace {path}"})

    def _finish_video(self, session: Session, ok: bool) -> None:
        video, self.video = self.video, None
        if video is None:
            return
        keep = self.cfg.video == "on" or (self.cfg.video == "retain-on-failure" and not ok)
        try:
            path = video.finish(session.log_dir / VIDEO_FILE if keep else None)
        except Exception as exc:  # noqa: BLE001 - ffmpeg failed: the run's verdict stands
            self._log("WebArtifactLog", {"error": f"the video could not be encoded: {exc}"})
            return
        if path is not None:
            self._log("WebEvidenceLog", {"evidence": {"video": VIDEO_FILE}})

    def _write_evidence(self, session: Session, ok: bool) -> None:
        evidence = self.evidence
        if evidence is None or not session.log.enabled:
            return
        if self.cfg.evidence == "retain-on-failure" and ok:
            return
        try:
            files = evidence.write(session.log_dir, lambda text: str(session.memory.redact(text)))
        except OSError as exc:
            self._log("WebArtifactLog", {"error": f"the network and console logs could not be written: {exc}"})
            return
        self._log("WebEvidenceLog", {"evidence": files, **evidence.summary()})


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

