"""``nodeSelector``: upstream's ``TrailblazeNodeSelector``, the recording shape every driver shares.

A recorded ``tapOnElementBySelector``/``assertVisibleBySelector``/``web_click``... carries one
``nodeSelector`` map, and the same trail file is read by the web, Android and iOS drivers alike (each
step's recording may even come from upstream's Kotlin recorder). So the shape is decoded in one place,
here, with upstream's field names and field order, and each driver keeps only how it *resolves* a
selector (the Appium driver walks its node tree, the web driver builds Playwright locators). This module
is pure data: it imports no driver SDK, which keeps ``import trailblaze`` light (ARCHITECTURE).

Two levels of checking on purpose:

* :class:`NodeSelector` (``model_validate``) decodes whatever upstream decodes: every key must be a
  known one, but values are only type-checked, so an upstream recording with ``index: -1`` still loads
  and simply matches nothing, as upstream's resolver does;
* :func:`parse_selector` is what tools call on their arguments: on top of decoding it rejects what can
  never match (nesting deeper than :data:`MAX_DEPTH`, a negative ``index`` or ``nthIndex``) as bad
  input whose message names the key, instead of a silent "no element matches" at run time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = [
    "DRIVER_KEYS",
    "MAX_DEPTH",
    "AndroidAccessibilityMatch",
    "AndroidMaestroMatch",
    "ComposeMatch",
    "DriverMatch",
    "IosAxeMatch",
    "IosMaestroMatch",
    "NodeSelector",
    "WebMatch",
    "parse_selector",
]

MAX_DEPTH = 10
"""Deepest nesting of relative selectors (``below``, ``childOf``...) below the top one; upstream's cap."""

DRIVER_KEYS = ("androidAccessibility", "androidMaestro", "web", "compose", "iosMaestro", "iosAxe")
"""The driver-match fields of a selector, in upstream's order; a recording sets at most one."""

_RELATIONS = ("below", "above", "leftOf", "rightOf", "childOf", "containsChild")


class _Match(BaseModel):
    """A driver match: every field is optional and every field that is set must hold."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class AndroidAccessibilityMatch(_Match):
    """``androidAccessibility``: the native accessibility vocabulary (case-sensitive regexes)."""

    classNameRegex: str | None = None
    resourceIdRegex: str | None = None
    uniqueId: str | None = None
    composeTestTagRegex: str | None = None
    textRegex: str | None = None
    contentDescriptionRegex: str | None = None
    hintTextRegex: str | None = None
    labeledByTextRegex: str | None = None
    stateDescriptionRegex: str | None = None
    paneTitleRegex: str | None = None
    roleDescriptionRegex: str | None = None
    isEnabled: bool | None = None
    isClickable: bool | None = None
    isCheckable: bool | None = None
    isChecked: bool | None = None
    isSelected: bool | None = None
    isFocused: bool | None = None
    isEditable: bool | None = None
    isScrollable: bool | None = None
    isPassword: bool | None = None
    isHeading: bool | None = None
    isMultiLine: bool | None = None
    inputType: int | None = None
    collectionItemRowIndex: int | None = None
    collectionItemColumnIndex: int | None = None


class AndroidMaestroMatch(_Match):
    """``androidMaestro``: Maestro's Android vocabulary (case-insensitive, ``.`` matches newlines)."""

    textRegex: str | None = None
    resourceIdRegex: str | None = None
    accessibilityTextRegex: str | None = None
    classNameRegex: str | None = None
    hintTextRegex: str | None = None
    clickable: bool | None = None
    enabled: bool | None = None
    focused: bool | None = None
    checked: bool | None = None
    selected: bool | None = None


class IosMaestroMatch(_Match):
    """``iosMaestro``: Maestro's iOS vocabulary (only what UIKit reports natively)."""

    textRegex: str | None = None
    resourceIdRegex: str | None = None
    accessibilityTextRegex: str | None = None
    classNameRegex: str | None = None
    hintTextRegex: str | None = None
    focused: bool | None = None
    selected: bool | None = None


class IosAxeMatch(_Match):
    """``iosAxe``: the macOS/iOS AX vocabulary (roles, labels, values)."""

    roleRegex: str | None = None
    subroleRegex: str | None = None
    labelRegex: str | None = None
    valueRegex: str | None = None
    uniqueId: str | None = None
    typeRegex: str | None = None
    titleRegex: str | None = None
    customAction: str | None = None
    enabled: bool | None = None


class WebMatch(_Match):
    """``web``: ARIA role and name, ``role "name"`` descriptor, heading level, CSS, test id, n-th match."""

    ariaRole: str | None = None
    ariaNameRegex: str | None = None
    ariaDescriptorRegex: str | None = None
    headingLevel: int | None = None
    cssSelector: str | None = None
    dataTestId: str | None = None
    nthIndex: int | None = None


class ComposeMatch(_Match):
    """``compose``: Compose semantics (test tag, role, texts, toggle state)."""

    testTag: str | None = None
    role: str | None = None
    textRegex: str | None = None
    editableTextRegex: str | None = None
    contentDescriptionRegex: str | None = None
    toggleableState: str | None = None
    isEnabled: bool | None = None
    isFocused: bool | None = None
    isSelected: bool | None = None
    isPassword: bool | None = None


DriverMatch = (AndroidAccessibilityMatch | AndroidMaestroMatch | IosMaestroMatch | IosAxeMatch | WebMatch
               | ComposeMatch)
"""Any one driver match."""


class NodeSelector(BaseModel):
    """Upstream ``TrailblazeNodeSelector``: at most one driver match, relations to other selectors, ``index``.

    Relations: ``below``/``above``/``leftOf``/``rightOf`` compare with the bounds of the nested
    selector's first match; ``childOf`` searches inside its matches; ``containsChild`` needs a *direct*
    child that matches; ``containsDescendants`` needs every listed selector to match some descendant;
    ``index`` picks among the matches sorted top to bottom, then left to right. Frozen, so a resolver
    may cache per selector object.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    androidAccessibility: AndroidAccessibilityMatch | None = None
    androidMaestro: AndroidMaestroMatch | None = None
    web: WebMatch | None = None
    compose: ComposeMatch | None = None
    iosMaestro: IosMaestroMatch | None = None
    iosAxe: IosAxeMatch | None = None
    below: NodeSelector | None = None
    above: NodeSelector | None = None
    leftOf: NodeSelector | None = None
    rightOf: NodeSelector | None = None
    childOf: NodeSelector | None = None
    containsChild: NodeSelector | None = None
    containsDescendants: list[NodeSelector] | None = None
    index: int | None = None

    @property
    def driver_match(self) -> DriverMatch | None:
        """The driver match that is set (the first in upstream's order when a recording sets several)."""
        return (self.androidAccessibility or self.androidMaestro or self.web or self.compose or self.iosMaestro
                or self.iosAxe)

    @property
    def driver_key(self) -> str | None:
        """The field name of :attr:`driver_match` (``"web"``...), so a driver can say whose selector it got."""
        return next((key for key in DRIVER_KEYS if getattr(self, key) is not None), None)

    @property
    def geometric(self) -> bool:
        """Whether resolving needs element bounds: a spatial relation or ``index``."""
        return any(v is not None for v in (self.below, self.above, self.leftOf, self.rightOf, self.index))

    def to_yaml(self) -> dict[str, Any]:
        """The recording form: only the fields that are set, in upstream's order."""
        return self.model_dump(mode="json", exclude_none=True)

    def description(self) -> str:
        """A readable one-line summary (``textRegex='OK', below (…), index=1``) for mobile tool messages."""
        parts: list[str] = []
        match = self.driver_match
        if match is not None:
            fields = match.model_dump(exclude_none=True)
            parts.append(", ".join(f"{k}={v!r}" for k, v in fields.items()))
        for rel in _RELATIONS:
            sub = getattr(self, rel)
            if sub is not None:
                parts.append(f"{rel} ({sub.description()})")
        if self.containsDescendants:
            parts.append("containsDescendants [" + "; ".join(s.description() for s in self.containsDescendants) + "]")
        if self.index is not None:
            parts.append(f"index={self.index}")
        return ", ".join(p for p in parts if p) or "any element"

    def describe(self) -> str:
        """``nodeSelector {…}``: the recording as one JSON line, so a failure quotes what the trail says."""
        return "nodeSelector " + json.dumps(self.to_yaml(), ensure_ascii=False, separators=(", ", ": "))


def parse_selector(value: Any, *, owner: str = "nodeSelector") -> NodeSelector:
    """Validate a recorded selector for a tool; a ``ValueError`` names ``owner`` and the key path.

    Unknown keys, wrong types, nesting deeper than :data:`MAX_DEPTH` and negative indexes are all bad
    input (the tool reports an argument error, exit 3), never a run-time "no element matches".
    """
    if isinstance(value, NodeSelector):
        sel = value
    elif not isinstance(value, dict):
        raise ValueError(  # noqa: TRY004 - pydantic validators call this and report ValueError
            f"{owner} must be a map of selector fields, got {type(value).__name__}")
    else:
        try:
            sel = NodeSelector.model_validate(value)
        except ValidationError as exc:
            err = exc.errors()[0]
            path = ".".join(str(x) for x in err.get("loc", ()))
            if err.get("type") == "extra_forbidden":
                raise ValueError(f"{owner}.{path}: {err.get('msg', 'invalid')} (unknown selector key '{path}')"
                                 ) from None
            raise _bad(owner, path, err.get("msg", "invalid")) from None
    _check(sel, owner, "", 0)
    return sel


def _bad(owner: str, path: str, message: str) -> ValueError:
    if not path:
        return ValueError(f"{owner}: {message}")
    return ValueError(f"{owner}.{path}: {message} (selector key '{path}')")


def _nested(sel: NodeSelector) -> Iterator[tuple[str, NodeSelector]]:
    for rel in _RELATIONS:
        sub = getattr(sel, rel)
        if sub is not None:
            yield rel, sub
    for i, sub in enumerate(sel.containsDescendants or ()):
        yield f"containsDescendants.{i}", sub


def _check(sel: NodeSelector, owner: str, path: str, depth: int) -> None:
    """What decoding lets through but can never match: too deep a nesting, negative indexes."""
    if depth > MAX_DEPTH:
        raise ValueError(f"{owner}: selectors nest at most {MAX_DEPTH} levels")
    prefix = f"{path}." if path else ""
    if sel.index is not None and sel.index < 0:
        raise _bad(owner, f"{prefix}index", f"must be 0 or more, got {sel.index}")
    if sel.web is not None and sel.web.nthIndex is not None and sel.web.nthIndex < 0:
        raise _bad(owner, f"{prefix}web.nthIndex", f"must be 0 or more, got {sel.web.nthIndex}")
    for key, sub in _nested(sel):
        _check(sub, owner, prefix + key, depth + 1)
