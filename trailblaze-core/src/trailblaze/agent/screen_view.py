"""What of the screen goes into the next request: the whole snapshot, or on big screens only what changed
since the agent's last look.

A full snapshot per model call is what made Playwright's own MCP server move to incremental snapshots
(14-20k tokens each). On a screen of at least ``BIG_SCREEN_CHARS`` the step's conversation keeps the
screens it was shown, and a later look that changed little is sent as a line diff against the previous
one: refs are stable (the driver keeps an element's ref while it lives), so the unchanged lines the model
already read still hold. The diff falls back to the full snapshot when it would be more than
``MAX_DIFF_SHARE`` of it (a new page, a re-rendered list), and then the earlier screens leave the
conversation. ``fullSnapshot`` returns the whole current screen whenever the model wants it. Small
screens are sent whole on every call and not kept: there a diff plus history costs more than the screen.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

FULL_SNAPSHOT_TOOL = "fullSnapshot"
BIG_SCREEN_CHARS = 6_000
MAX_DIFF_SHARE = 0.3

FULL_SNAPSHOT_SPEC: dict[str, Any] = {
    "name": FULL_SNAPSHOT_TOOL,
    "description": "The whole current screen (on big screens, turns after the first show only what changed).",
    "parameters": {"type": "object", "properties": {}},
}


@dataclass(frozen=True)
class ScreenTurn:
    text: str
    """The snapshot, or the diff against the last screen shown."""
    kept: bool
    """The screen stays in the step's conversation (a big screen): later looks may be diffs against it."""
    diff: bool
    reset: bool
    """A full big screen after earlier kept ones: those leave the conversation."""


class ScreenView:
    """One step's looks at the screen."""

    def __init__(self, *, big: int = BIG_SCREEN_CHARS, max_share: float = MAX_DIFF_SHARE) -> None:
        self.big = big
        self.max_share = max_share
        self.last: str | None = None
        """The last big screen kept in the conversation (what a diff is taken against)."""

    def look(self, snapshot: str) -> ScreenTurn:
        if len(snapshot) < self.big:
            reset = self.last is not None
            self.last = None
            return ScreenTurn(snapshot, kept=False, diff=False, reset=reset)
        previous, self.last = self.last, snapshot
        if previous is not None:
            changes = line_diff(previous, snapshot)
            if len(changes) <= self.max_share * len(snapshot):
                return ScreenTurn(changes, kept=True, diff=True, reset=False)
        return ScreenTurn(snapshot, kept=True, diff=False, reset=previous is not None)


def line_diff(before: str, after: str) -> str:
    """The lines that went (``- ``) and came (``+ ``), each group after the line above it as context, so
    the model can place a new line in the tree; empty when nothing changed."""
    old, new = before.splitlines(), after.splitlines()
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if j1 > 0:
            out.append(f"  {new[j1 - 1]}")
        out.extend(f"- {line}" for line in old[i1:i2])
        out.extend(f"+ {line}" for line in new[j1:j2])
    return "\n".join(out)


__all__ = ["BIG_SCREEN_CHARS", "FULL_SNAPSHOT_SPEC", "FULL_SNAPSHOT_TOOL", "MAX_DIFF_SHARE", "ScreenTurn",
           "ScreenView", "line_diff"]
