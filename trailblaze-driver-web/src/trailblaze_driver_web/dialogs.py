"""``Dialogs``: how a web session answers ``alert``/``confirm``/``prompt``, and what they said.

The driver's ``dialogs`` setting (a trail's ``dialogs:``) is the answer to every dialog; ``web_handleDialog``
sets the answer to the next one only, then the setting answers again. Every dialog is logged once
(``WebDialogLog``: type, message, the answer given) and kept, with the step it came in, for
``web_verifyDialog``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from trailblaze import valid_text

if TYPE_CHECKING:
    from playwright.sync_api import Dialog

MAX_KEPT = 200
"""Dialogs kept for ``web_verifyDialog`` (a page that loops on ``alert`` must not grow memory)."""

Action = Literal["accept", "dismiss"]
LogWriter = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True)
class SeenDialog:
    """A dialog a page showed, and how it was answered."""

    type: str
    message: str
    action: str
    step: int
    prompt_text: str | None = None
    default_value: str = ""


class Dialogs:
    """Answers dialogs: the one-shot answer ``web_handleDialog`` set, else ``default`` (the setting)."""

    def __init__(self, default: str, log: LogWriter) -> None:
        self.default = default
        self.log = log
        self.seen: list[SeenDialog] = []
        self.step = 0
        """The number of steps started so far (what ``SeenDialog.step`` says)."""
        self._next: tuple[Action, str | None] | None = None

    def answer_next(self, action: Action, prompt_text: str | None = None) -> None:
        """Answer the next dialog with ``action`` (``prompt_text`` typed into a ``prompt`` first)."""
        self._next = (action, prompt_text)

    @property
    def pending_answer(self) -> tuple[Action, str | None] | None:
        return self._next

    def step_started(self) -> None:
        self.step += 1

    def handle(self, dialog: Dialog) -> None:
        """The ``dialog`` event of a page: answer it, log it once, keep it."""
        action, prompt_text = self._next if self._next is not None else (self.default, None)
        self._next = None
        kind, message = dialog.type, valid_text(dialog.message)
        if kind == "beforeunload" or kind == "alert":
            prompt_text = None
        try:
            default_value = dialog.default_value
        except Exception:  # noqa: BLE001
            default_value = ""
        seen = SeenDialog(kind, message, action, self.step, prompt_text if kind == "prompt" else None,
                          default_value)
        self.seen.append(seen)
        del self.seen[:-MAX_KEPT]
        entry: dict[str, Any] = {"type": kind, "message": message, "action": action}
        if seen.prompt_text is not None:
            entry["promptText"] = seen.prompt_text
        self.log("WebDialogLog", entry)
        try:
            if action == "accept":
                dialog.accept(prompt_text) if prompt_text is not None else dialog.accept()
            else:
                dialog.dismiss()
        except Exception:  # noqa: BLE001 - the page may have navigated away
            pass

    def recent(self) -> list[SeenDialog]:
        """Dialogs of this step, else of the step before it (a ``verify:`` step checks what the step
        before it did)."""
        for step in (self.step, self.step - 1):
            found = [d for d in self.seen if d.step == step]
            if found:
                return found
        return []
