"""Resolving a ``nodeSelector`` (upstream ``TrailblazeNodeSelector``) over an Appium node tree.

The recorded shape is shared by every driver and lives in :mod:`trailblaze.selectors`; this module is
the mobile resolver, a port of ``TrailblazeNodeSelectorResolver``:

1. the search scope is every node, or the descendants of the ``childOf`` matches (not the parent);
2. a node must satisfy the driver match, then ``below``/``above``/``leftOf``/``rightOf`` (against the
   bounds of the anchor selector's *first* match), then ``containsChild`` (a direct child matches) and
   ``containsDescendants`` (each listed selector matches some descendant);
3. matches are sorted top→bottom then left→right (nodes without bounds last), and ``index`` picks one.

Nesting is capped at depth 10. Text fields use ``patterns`` (full match, then literal equality; the
Maestro dialect for ``androidMaestro``/``iosMaestro``). Appium page sources carry both the
accessibility and the Maestro vocabulary of a node, so on one of our Android nodes both
``androidAccessibility`` and ``androidMaestro`` selectors work (upstream recordings use either); on iOS
``iosMaestro`` and ``iosAxe``. ``web``/``compose`` matches are accepted (recordings keep them) but never
match a mobile node. Anchor and scope resolutions are memoised per top-level resolve, which keeps
relative selectors linear in the tree size instead of quadratic.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Literal

from trailblaze import (SELECTOR_MAX_DEPTH, AndroidAccessibilityMatch, AndroidMaestroMatch, DriverMatch,
                        IosAxeMatch, IosMaestroMatch, NodeSelector)

from .hierarchy import ANDROID, IOS, Bounds, Hierarchy, Node
from .patterns import matcher

__all__ = ["NodePred", "ResolveResult", "driver_predicates", "resolve"]

_META = frozenset("\\^$.|?*+()[]{}")

_BIG = sys.maxsize


# -- compiled predicates ---------------------------------------------------------------------------
NodePred = Callable[[Node], bool]


def _pat(getter: Callable[[Node], str | None], pattern: str, maestro: bool) -> NodePred:
    if not maestro and not any(ch in _META for ch in pattern):
        # A native pattern without metacharacters full-matches exactly its own text.
        return lambda node: getter(node) == pattern
    test = matcher(pattern, maestro)

    def pred(node: Node) -> bool:
        value = getter(node)
        return value is not None and test(value)

    return pred


def _eq(getter: Callable[[Node], Any], expected: Any) -> NodePred:
    return lambda node: getter(node) == expected


def _never(_node: Node) -> bool:
    return False


_MAESTRO_IOS_CLASS_ALIASES = {
    "StaticText": ("UILabel", "LabelView"),
    "Button": ("UIButton", "UIButtonLabel", "UILabel", "LabelView"),
    "TextField": ("UITextField", "UITextFieldLabel"),
    "SecureTextField": ("UISecureTextField", "UITextFieldLabel"),
}


def _ios_class_pred(pattern: str, maestro: bool) -> NodePred:
    test = matcher(pattern, maestro)

    def pred(node: Node) -> bool:
        short = node.short_class
        candidates = [node.class_name, short, *(_MAESTRO_IOS_CLASS_ALIASES.get(short or "", ()))]
        return any(c is not None and test(c) for c in candidates)

    return pred


def _android_accessibility(m: AndroidAccessibilityMatch) -> list[NodePred]:
    preds: list[NodePred] = []
    pats: list[tuple[str | None, Callable[[Node], str | None]]] = [
        (m.classNameRegex, attrgetter("class_name")), (m.resourceIdRegex, attrgetter("resource_id")),
        (m.composeTestTagRegex, attrgetter("compose_test_tag")), (m.textRegex, attrgetter("rtext")),
        (m.contentDescriptionRegex, attrgetter("content_desc")), (m.hintTextRegex, attrgetter("hint")),
        (m.labeledByTextRegex, attrgetter("labeled_by")), (m.stateDescriptionRegex, attrgetter("state_description")),
        (m.paneTitleRegex, attrgetter("pane_title")), (m.roleDescriptionRegex, attrgetter("role_description")),
    ]
    preds += [_pat(g, p, False) for p, g in pats if p is not None]
    if m.uniqueId is not None:
        preds.append(_eq(lambda n: n.unique_id, m.uniqueId))
    flags: list[tuple[Any, Callable[[Node], Any]]] = [
        (m.isEnabled, attrgetter("enabled")), (m.isClickable, attrgetter("clickable")),
        (m.isCheckable, attrgetter("checkable")), (m.isChecked, attrgetter("checked")),
        (m.isSelected, attrgetter("selected")), (m.isFocused, attrgetter("focused")),
        (m.isEditable, attrgetter("editable")), (m.isScrollable, attrgetter("scrollable")),
        (m.isPassword, attrgetter("password")), (m.isHeading, attrgetter("heading")),
        (m.isMultiLine, attrgetter("multiline")), (m.inputType, attrgetter("input_type")),
        (m.collectionItemRowIndex, attrgetter("collection_row")),
        (m.collectionItemColumnIndex, attrgetter("collection_column")),
    ]
    preds += [_eq(g, v) for v, g in flags if v is not None]
    return preds


def _android_maestro(m: AndroidMaestroMatch) -> list[NodePred]:
    preds: list[NodePred] = []
    pats: list[tuple[str | None, Callable[[Node], str | None]]] = [
        (m.textRegex, attrgetter("rtext")), (m.resourceIdRegex, attrgetter("resource_id")),
        (m.accessibilityTextRegex, attrgetter("content_desc")), (m.classNameRegex, attrgetter("class_name")),
        (m.hintTextRegex, attrgetter("hint")),
    ]
    preds += [_pat(g, p, True) for p, g in pats if p is not None]
    flags: list[tuple[Any, Callable[[Node], Any]]] = [
        (m.clickable, attrgetter("clickable")), (m.enabled, attrgetter("enabled")), (m.focused, attrgetter("focused")),
        (m.checked, attrgetter("checked")), (m.selected, attrgetter("selected")),
    ]
    preds += [_eq(g, v) for v, g in flags if v is not None]
    return preds


def _ios_maestro(m: IosMaestroMatch) -> list[NodePred]:
    preds: list[NodePred] = []
    pats: list[tuple[str | None, Callable[[Node], str | None]]] = [
        (m.textRegex, attrgetter("rtext")), (m.resourceIdRegex, attrgetter("resource_id")),
        (m.accessibilityTextRegex, attrgetter("label")), (m.hintTextRegex, attrgetter("hint")),
    ]
    preds += [_pat(g, p, True) for p, g in pats if p is not None]
    if m.classNameRegex is not None:
        preds.append(_ios_class_pred(m.classNameRegex, True))
    if m.focused is not None:
        preds.append(_eq(lambda n: n.focused, m.focused))
    if m.selected is not None:
        preds.append(_eq(lambda n: n.selected, m.selected))
    return preds


def _ios_axe(m: IosAxeMatch) -> list[NodePred]:
    preds: list[NodePred] = []
    pats: list[tuple[str | None, Callable[[Node], str | None]]] = [
        (m.roleRegex, lambda n: f"AX{n.short_class}" if n.short_class else None),
        (m.subroleRegex, lambda n: None), (m.labelRegex, attrgetter("label")), (m.valueRegex, attrgetter("value")),
        (m.typeRegex, attrgetter("short_class")), (m.titleRegex, lambda n: n.attrs.get("title") or None),
    ]
    preds += [_pat(g, p, False) for p, g in pats if p is not None]
    if m.uniqueId is not None:
        preds.append(_eq(lambda n: n.resource_id, m.uniqueId))
    if m.customAction is not None:
        preds.append(_never)
    if m.enabled is not None:
        preds.append(_eq(lambda n: n.enabled, m.enabled))
    return preds


def driver_predicates(match: DriverMatch | None) -> list[NodePred]:
    if match is None:
        return []
    if isinstance(match, AndroidAccessibilityMatch):
        return _android_accessibility(match)
    if isinstance(match, AndroidMaestroMatch):
        return _android_maestro(match)
    if isinstance(match, IosMaestroMatch):
        return _ios_maestro(match)
    if isinstance(match, IosAxeMatch):
        return _ios_axe(match)
    return [_never]  # web / compose never match a mobile node


# -- resolution ----------------------------------------------------------------------------------
@dataclass
class ResolveResult:
    """``kind`` is ``single``, ``multiple`` or ``none`` (upstream ``SingleMatch``/``MultipleMatches``/``NoMatch``)."""

    kind: Literal["single", "multiple", "none"]
    nodes: list[Node]
    selector: NodeSelector

    @property
    def first(self) -> Node | None:
        return self.nodes[0] if self.nodes else None

    @property
    def found(self) -> bool:
        return bool(self.nodes)


def _sort_key(node: Node) -> tuple[int, int]:
    b = node.bounds
    return (b.top, b.left) if b is not None else (_BIG, _BIG)


_SPATIAL: tuple[tuple[str, Callable[[Bounds, Bounds], bool]], ...] = (
    ("below", lambda a, n: n.top >= a.bottom),
    ("above", lambda a, n: n.bottom <= a.top),
    ("leftOf", lambda a, n: n.right <= a.left),
    ("rightOf", lambda a, n: n.left >= a.right),
)


def _match_platform(match: DriverMatch | None) -> str | None:
    if isinstance(match, (AndroidAccessibilityMatch, AndroidMaestroMatch)):
        return ANDROID
    if isinstance(match, (IosMaestroMatch, IosAxeMatch)):
        return IOS
    return None


class _Resolver:
    def __init__(self, nodes: list[Node], root: Node) -> None:
        self.nodes = nodes
        self.root = root
        self.platform = root.platform
        self._preds: dict[int, list[NodePred]] = {}
        self._resolved: dict[tuple[int, int], list[Node]] = {}
        self._anchors: dict[tuple[int, int], Bounds | None] = {}
        self._keep: list[NodeSelector] = []  # ids stay valid while cached

    def preds(self, sel: NodeSelector) -> list[NodePred]:
        key = id(sel)
        found = self._preds.get(key)
        if found is None:
            match = sel.driver_match
            wanted = _match_platform(match)
            if match is not None and wanted != self.platform:
                found = [_never]  # a shape only matches nodes of its own driver (upstream: shape equality)
            else:
                found = driver_predicates(match)
            self._preds[key] = found
            self._keep.append(sel)
        return found

    def resolve(self, sel: NodeSelector, depth: int) -> list[Node]:
        if depth > SELECTOR_MAX_DEPTH:
            return []
        key = (id(sel), depth)
        cached = self._resolved.get(key)
        if cached is not None:
            return cached
        self._keep.append(sel)
        if sel.childOf is not None:
            parents = self.resolve(sel.childOf, depth + 1)
            if not parents:
                self._resolved[key] = []
                return []
            scope: list[Node] = []
            for parent in parents:
                scope.extend(parent.descendants())
        else:
            scope = self.nodes
        matched = self.filter(scope, sel, depth)
        matched.sort(key=_sort_key)
        if sel.index is not None:
            idx = sel.index
            matched = [matched[idx]] if 0 <= idx < len(matched) else []
        self._resolved[key] = matched
        return matched

    def filter(self, nodes: list[Node], sel: NodeSelector, depth: int) -> list[Node]:
        """``nodes`` that satisfy ``sel`` (all but ``childOf``/``index``), cheapest test first."""
        if depth > SELECTOR_MAX_DEPTH:
            return []
        out = nodes
        for pred in self.preds(sel):
            out = [n for n in out if pred(n)]
            if not out:
                return out
        if out is nodes:
            out = list(nodes)
        for rel_name, check in _SPATIAL:
            rel = getattr(sel, rel_name)
            if rel is None:
                continue
            anchor = self.anchor(rel, depth)
            if anchor is None:
                return []
            out = [n for n in out if n.bounds is not None and check(anchor, n.bounds)]
        if sel.containsChild is not None:
            child_sel = sel.containsChild
            out = [n for n in out if n.children and self.filter(n.children, child_sel, depth + 1)]
        if sel.containsDescendants:
            for want in sel.containsDescendants:
                out = [n for n in out if n.children and self.filter(n.descendants(), want, depth + 1)]
        return out

    def anchor(self, sel: NodeSelector, depth: int) -> Bounds | None:
        key = (id(sel), depth)
        if key not in self._anchors:
            found = self.resolve(sel, depth + 1)
            self._anchors[key] = found[0].bounds if found else None
        return self._anchors[key]


def resolve(tree: Hierarchy | Node, selector: NodeSelector) -> ResolveResult:
    """Resolve ``selector`` against a hierarchy (or a subtree root)."""
    if isinstance(tree, Hierarchy):
        root, nodes = tree.root, tree.nodes
    else:
        root, nodes = tree, list(tree.walk())
    found = _Resolver(nodes, root).resolve(selector, 0)
    kind: Literal["single", "multiple", "none"] = "none" if not found else ("single" if len(found) == 1 else "multiple")
    return ResolveResult(kind, found, selector)
