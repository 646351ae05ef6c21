"""``StepLog``: the trail a recording writes, step by step, as the recorder's calls come.

Grouping is the person's rhythm: an action starts a new step after a navigation, a pause of ``pause_s``,
a name given in the overlay or a check; otherwise it joins the step before. Every argument came from the
page or from what the person typed (a button named "{{shopUrl}}"), so each is written as literal text,
its braces escaped; only a secret's value is a token. The log also remembers the last action recorded
and in which tab: what a dialog, a download or a tab closing itself right after came from.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trailblaze import RecordOptions, RecordedStepDraft, ToolCall, escape_literal

if TYPE_CHECKING:
    from playwright.sync_api import Page

ACTIONS = frozenset({"web_click", "web_pressKey", "web_type", "web_fillSecret", "web_selectOption",
                     "web_uploadFile"})
"""Recorded calls that act on the page: what a dialog or a download that follows was caused by."""
CAUSED_WITHIN_S = 2.0
"""A navigation, dialog or download this soon after an action recorded is that action's doing."""


@dataclass
class Step:
    kind: str
    calls: list[ToolCall] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    name: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class LastAction:
    """The last action recorded: its step, its call, the tab it was in and when (``time.monotonic``)."""

    step: Step
    call: ToolCall
    page: Page
    at: float


class StepLog:
    def __init__(self, options: RecordOptions, follow: Callable[[Page | None], None]) -> None:
        self.options = options
        self._follow = follow
        """Called before each call recorded in a tab: writes the ``web_switchTab`` replay needs first."""
        self.steps: list[Step] = []
        self.warnings: list[str] = []
        self.acting: Page | None = None
        """The tab of the report or event being handled."""
        self.last_act: LastAction | None = None
        self.last_time = 0.0
        """When the last call was recorded (``time.monotonic``; 0 before the first)."""
        self.break_next = True
        """The next call starts a new step."""
        self.named: str | None = None
        """The name given in the page's overlay for the step the next action starts."""
        self._typed: dict[str, Any] = {}
        """The last text recorded per field (by ref)."""
        self._pending_notes: list[str] = []

    def warn(self, line: str) -> None:
        self.warnings.append(line)
        if self.options.on_warning is not None:
            self.options.on_warning(line)

    def note(self, line: str) -> None:
        """A comment above the next step written (above the last one if none follows)."""
        self._pending_notes.append(line)

    def say(self, line: str) -> None:
        if self.options.on_action is not None:
            self.options.on_action(line)

    def add_call(self, call: ToolCall, said: str, *, new: bool = False) -> None:
        if call.name in ("web_type", "web_fillSecret"):
            # A field reports its text when Enter commits it and again when it loses focus: once is enough.
            value = call.args.get("text", call.args.get("value"))
            key = f"{call.args.get('frame')}|{call.args.get('ref')}"
            if self._typed.get(key) == value:
                return
            self._typed[key] = value
        last = self.steps[-1] if self.steps else None
        previous = last.calls[-1] if last is not None and last.calls else None
        if last is not None and previous is not None and call.name == previous.name == "web_type" and \
                (previous.args.get("ref"), previous.args.get("frame")) == (call.args.get("ref"), call.args.get("frame")):
            last.calls[-1] = call  # the same field committed again (change, then Enter): keep the final text
            if self.last_act is not None and self.last_act.call is previous:
                self.last_act = LastAction(last, call, self.last_act.page, self.last_act.at)
            return
        self.add("step", call, said, new=new)

    def add(self, kind: str, call: ToolCall, said: str, *, new: bool = False) -> None:
        call = ToolCall(call.name, {k: v if (call.name, k) == ("web_fillSecret", "value") else escape_literal(v)
                                    for k, v in call.args.items()})
        if call.name not in ("web_switchTab", "web_closeTab"):
            self._follow(self.acting)  # the tab replay acts on must be the one the person acted in
        now = time.monotonic()
        pause = self.last_time and now - self.last_time > self.options.pause_s
        last = self.steps[-1] if self.steps else None
        named, self.named = self.named or self.options.take_step_name(), None
        if named or new or self.break_next or pause or last is None or last.kind != kind or kind == "verify":
            self.steps.append(Step(kind, name=named or None))
            self.break_next = False
        step = self.steps[-1]
        step.calls.append(call)
        step.said.append(said)
        step.notes.extend(self._pending_notes)
        self._pending_notes.clear()
        self.last_time = now
        if call.name in ACTIONS and self.acting is not None:
            self.last_act = LastAction(step, call, self.acting, now)
        self.say(f"{call.name}: {said}")

    def cause(self, page: Page | None) -> tuple[Step, int] | None:
        """The action just recorded in ``page`` (its step and where it is in it), if there is one."""
        last = self.last_act
        if last is None or (page is not None and last.page is not page) or \
                time.monotonic() - last.at >= CAUSED_WITHIN_S:
            return None
        at = next((i for i, c in enumerate(last.step.calls) if c is last.call), None)
        return None if at is None else (last.step, at)

    def drafts(self) -> list[RecordedStepDraft]:
        out: list[RecordedStepDraft] = []
        for step in self.steps:
            if not step.calls:
                continue
            said = step.said[0] if step.kind == "verify" else "; ".join(dict.fromkeys(step.said))
            text = step.name or said
            out.append(RecordedStepDraft("verify" if step.kind == "verify" else "step",
                                         text[:1].upper() + text[1:], list(step.calls), list(step.notes)))
        if self._pending_notes and out:  # after the last action: above the last step
            out[-1].notes.extend(self._pending_notes)
        return out
