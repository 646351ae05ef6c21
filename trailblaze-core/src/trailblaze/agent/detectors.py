"""Stuck-loop and stale-ref detection: the two ways a model most often wastes a step's call budget.

*Stuck loop*: the same call with the same result, again and again (tapping a button that does
nothing). At ``STUCK_HINT_AT`` repeats the model is told; at ``STUCK_ABORT_AT`` the step fails rather
than burning the rest of the cap.

*Stale ref*: a call names a ref that is not on the screen the model was just shown (it remembered one
from an earlier screen, or made one up). The call is not run; the model is told which refs exist.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

STUCK_HINT_AT = 3
STUCK_ABORT_AT = 6

_REF = r"[A-Za-z]{1,3}\d{1,6}(?:[A-Za-z]{1,3}\d{1,6}){0,3}"
"""Refs as drivers print them: ``e12`` (Playwright), ``f1e12`` (a frame's element), ``n7``."""
_SNAPSHOT_REF = re.compile(rf"\[(?:ref=)?({_REF})\]")
_REF_VALUE = re.compile(rf"^{_REF}$")
REF_KEYS = frozenset({"ref", "elementRef", "nodeRef"})


def snapshot_refs(snapshot: str) -> set[str]:
    """The refs a snapshot shows (``[e12]``, ``[ref=e12]``)."""
    return set(_SNAPSHOT_REF.findall(snapshot))


def refs_in_args(args: Mapping[str, Any]) -> list[str]:
    """Ref-looking values of ref arguments (``ref: e12``), including nested maps."""
    found: list[str] = []
    for key, value in args.items():
        if key in REF_KEYS and isinstance(value, str) and _REF_VALUE.match(value.strip()):
            found.append(value.strip())
        elif isinstance(value, Mapping):
            found.extend(refs_in_args(value))
    return found


@dataclass
class StaleRefDetector:
    current: set[str] = field(default_factory=set)
    earlier: set[str] = field(default_factory=set)

    def new_screen(self, snapshot: str) -> None:
        self.earlier |= self.current
        self.current = snapshot_refs(snapshot)

    def check(self, args: Mapping[str, Any]) -> str | None:
        """A message for the model when ``args`` names a ref that is not on the current screen."""
        if not self.current:
            return None  # this driver shows no refs: nothing to check against
        for ref in refs_in_args(args):
            if ref in self.current:
                continue
            when = "came from an earlier screen and is stale" if ref in self.earlier else "is not on the current screen"
            return (f"ref '{ref}' {when}; the call was not run. Use a ref from the latest screen "
                    f"({_sample(self.current)}).")
        return None


@dataclass
class StuckLoopDetector:
    counts: Counter[str] = field(default_factory=Counter)

    def record(self, name: str, args: Mapping[str, Any] | None, result: str) -> int:
        """Count one call with its result; returns how often exactly this has happened in the step."""
        key = json.dumps([name, args, result], sort_keys=True, default=str)
        self.counts[key] += 1
        return self.counts[key]

    @staticmethod
    def hint(name: str, times: int) -> str:
        return (f"You have called {name} with the same arguments {times} times and got the same result: it is "
                "not working. Try a different element or approach, or call objectiveStatus with FAILED.")


def _sample(refs: Iterable[str], limit: int = 12) -> str:
    ordered = sorted(refs, key=lambda r: (len(r), r))
    text = ", ".join(ordered[:limit])
    return text + (", …" if len(ordered) > limit else "")
