"""``Screenshots``: the pictures a web run leaves in the session's log directory.

A screenshot of a failed step, or of every step with ``screenshots: on`` (referenced from a
``TrailblazeSnapshotLog``). A passing run with the defaults takes none: it costs on every step
(docs/web.md, Artifacts). Fields a secret was typed into are painted over in every picture. The trace
is ``trace.py``'s, the video ``video.py``'s, the network and console evidence ``evidence.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page
    from trailblaze import SessionLog, StepInfo


class Screenshots:
    """Takes the pictures of the page ``page`` returns (the current one), within ``timeout_ms``."""

    def __init__(self, page: Callable[[], Page], *, timeout_ms: int) -> None:
        self.page = page
        self.timeout_ms = timeout_ms
        self.secret_fields: list[Locator] = []
        """Fields a secret was typed into; every screenshot paints over them (``mask_secret``)."""

    def mask_secret(self, locator: Locator) -> None:
        """Keep ``locator``'s field out of every later screenshot: logs redact a secret's text, but a
        text field (unlike a password field) would still show it in the picture."""
        self.secret_fields.append(locator)

    def _shoot(self, page: Page, **options: Any) -> bytes:
        masks = [loc for loc in self.secret_fields if loc.page == page]
        return page.screenshot(timeout=self.timeout_ms, mask=masks, **options)

    def take(self) -> bytes | None:
        """PNG bytes of the current page, or None when it has no picture (crashed, closed)."""
        try:
            return self._shoot(self.page(), type="png")
        except Exception:  # noqa: BLE001 - a crashed page has no picture
            return None

    def save(self, log: SessionLog, name: str, *, failed: bool = False, step_index: int | None = None,
             label: str | None = None) -> str | None:
        """Store a screenshot next to the logs and log where it is; returns the file name."""
        try:
            page = self.page()
            if failed:
                data = self._shoot(page, type="png")
                name += ".png"
            else:
                data = self._shoot(page, type="jpeg", quality=70)
                name += ".jpg"
            url = page.url
        except Exception as exc:  # noqa: BLE001
            log.write("WebArtifactLog", {"error": f"screenshot {name} failed: {exc}"})
            return None
        log.write_file(name, data)
        log.write("TrailblazeSnapshotLog", {"screenName": label or name, "screenshot": name, "url": url,
                                            "stepIndex": step_index, "failed": failed})
        return name

    def after_step(self, log: SessionLog, step: StepInfo, ok: bool, mode: str) -> None:
        """The step's picture when ``mode`` (the ``screenshots`` setting) asks for one after this outcome."""
        if mode == "off" or (mode == "only-on-failure" and ok):
            return
        name = f"step_{step.number:03d}" + ("" if ok else "_failed")
        self.save(log, name, failed=not ok, step_index=step.index,
                  label=f"after step {step.number}" + ("" if ok else " (failed)"))


__all__ = ["Screenshots"]
