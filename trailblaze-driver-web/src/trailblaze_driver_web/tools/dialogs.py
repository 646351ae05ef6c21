"""``web_handleDialog`` and ``web_verifyDialog``: answering and checking ``alert``/``confirm``/``prompt``.

The driver's ``dialogs`` setting answers every dialog; ``web_handleDialog`` answers the next one differently
(accept one confirm, dismiss the next). ``web_verifyDialog`` checks what a dialog said (``dialogs.py`` keeps
them).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, ClassVar, Literal

from pydantic import BeforeValidator, Field
from trailblaze import ToolFailure, ToolResult

from .common import WebTool, driver_for, timeout_field, timeout_of
from .verification import WebVerification, poll

if TYPE_CHECKING:
    from trailblaze import ToolContext

    from ..dialogs import SeenDialog


def _lower(value: object) -> object:
    """``ACCEPT`` reads as ``accept``, as the other web tools read their enum arguments."""
    return value.lower() if isinstance(value, str) else value


class WebHandleDialog(WebTool):
    """Set how the next JavaScript dialog (alert, confirm, prompt) is answered: accept or dismiss, and the
    text typed into a prompt. Call it before the action that opens the dialog; later dialogs are answered
    by the driver's 'dialogs' setting again (accept by default)."""

    name: ClassVar[str] = "web_handleDialog"
    action: Annotated[Literal["accept", "dismiss"], BeforeValidator(_lower),
                      Field(description="accept (OK) or dismiss (Cancel).")]
    promptText: str | None = Field(None, description="Text to type into a prompt() before accepting it.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        if self.promptText is not None and self.action == "dismiss":
            raise ToolFailure("web_handleDialog: promptText is typed into a prompt that is accepted; with "
                              "action: dismiss nothing is typed (drop promptText or accept)")
        driver_for(ctx).dialogs.answer_next(self.action, self.promptText)
        typed = f" with {json.dumps(self.promptText, ensure_ascii=False)}" if self.promptText is not None else ""
        return ToolResult(True, f"The next dialog will be {self.action}ed{typed}")


def _last(dialogs: list[SeenDialog]) -> SeenDialog | None:
    return dialogs[-1] if dialogs else None


class WebVerifyDialog(WebVerification):
    """Verify the message of the last dialog (alert, confirm, prompt) of this step or the step before it;
    when there was none, wait for the next one (up to timeoutMs)."""

    name: ClassVar[str] = "web_verifyDialog"
    message: str = Field(..., description="The dialog's whole message, e.g. 'Delete Taxi?'.")
    timeoutMs: int | None = timeout_field()

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        timeout = timeout_of(drv, self.timeoutMs)
        seen: SeenDialog | None = poll(drv, lambda: _last(drv.dialogs.recent()), timeout)
        wanted = json.dumps(self.message, ensure_ascii=False)
        if seen is None:
            raise ToolFailure(f"web_verifyDialog: expected a dialog saying {wanted}, but no dialog opened in this "
                              f"step or the one before it, nor within {timeout} ms")
        if seen.message.strip() != self.message.strip():
            raise ToolFailure(f"web_verifyDialog: expected the dialog to say {wanted}, but the last {seen.type} "
                              f"said {json.dumps(seen.message, ensure_ascii=False)}")
        return ToolResult(True, f"The {seen.type} said {wanted} ({seen.action}ed)",
                          data={"type": seen.type, "message": seen.message, "action": seen.action})
