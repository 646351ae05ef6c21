"""``{{target.appId}}`` in a waypoint's selectors, expanded for the session's app (upstream
``SelectorTemplating.kt``).

Authors write ``^{{target.appId}}:id/foo$`` so one waypoint serves every build of an app. At match time
the placeholder becomes the app id (regex-escaped), or an alternation of the target's declared ids when
there are several; with none it stays literal and the matcher refuses to answer (fails closed): a literal
placeholder matches nothing, so a ``forbidden`` condition holding it would always pass.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..selectors import NodeSelector

APP_ID_PLACEHOLDER = "{{target.appId}}"


def _replacement(app_ids: Sequence[str]) -> str | None:
    ids = [i for i in app_ids if i]
    if not ids:
        return None
    if len(ids) == 1:
        return re.escape(ids[0])
    return "(?:" + "|".join(re.escape(i) for i in ids) + ")"


def _walk(value: Any, replace: str | None, key: str = "") -> tuple[Any, bool]:
    """The value with the placeholder replaced in every ``*Regex`` field, and whether one survived."""
    if isinstance(value, dict):
        out, left = {}, False
        for k, v in value.items():
            out[k], survived = _walk(v, replace, str(k))
            left = left or survived
        return out, left
    if isinstance(value, list):
        items = [_walk(v, replace, key) for v in value]
        return [v for v, _ in items], any(s for _, s in items)
    if isinstance(value, str) and key.endswith("Regex") and APP_ID_PLACEHOLDER in value:
        if replace is None:
            return value, True
        return value.replace(APP_ID_PLACEHOLDER, replace), False
    return value, False


def expand(selector: NodeSelector, app_ids: Sequence[str]) -> tuple[NodeSelector, bool]:
    """``selector`` with ``{{target.appId}}`` expanded for ``app_ids``, and whether a placeholder is left
    (no app id to put there)."""
    raw = selector.to_yaml()
    expanded, left = _walk(raw, _replacement(app_ids))
    if expanded == raw:
        return selector, left
    return NodeSelector.model_validate(expanded), left


__all__ = ["APP_ID_PLACEHOLDER", "expand"]
