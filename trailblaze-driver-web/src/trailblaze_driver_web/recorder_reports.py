"""What the recorder's page script reports, validated: the boundary between the page and the recorder.

The script runs in an isolated world the page cannot reach (``recorder_channel``), and still nothing it
sends is taken unchecked: a report that does not have this shape is dropped.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel


class ReportedElement(BaseModel):
    """The element a report is about: the mark the script put on it (Python finds it by that) and what
    the script saw of it, used only when Playwright can no longer read it (its page is gone)."""

    mark: str
    tag: str = ""
    testId: str | None = None  # noqa: N815 - the page script's key
    id: str | None = None
    css: str = ""
    inShadow: bool = False  # noqa: N815 - the page script's key


class PageReport(BaseModel):
    """One report: ``pre`` (name this element now, it may be acted on), an action, a step name or a check
    from the overlay, or an action that cannot be recorded."""

    id: str
    """``<document id>:<sequence>``: unique, so a report seen twice is taken once."""
    kind: Literal["pre", "click", "type", "enter", "select", "upload", "verify", "name", "unrecordable"]
    el: ReportedElement | None = None
    data: dict[str, Any] = {}
    t: float
    """The page's ``Date.now()`` at the event."""
    url: str = ""

    @property
    def document(self) -> str:
        return self.id.split(":")[0]
