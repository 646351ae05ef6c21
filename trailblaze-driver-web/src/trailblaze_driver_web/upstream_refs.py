"""Upstream Trailblaze's element ids (``e4`` in its recordings), numbered the way upstream numbers them.

Upstream's agent reads a *compact element list* built from Playwright's default-mode ARIA snapshot
(``PlaywrightAriaSnapshot.kt`` ``buildCompactElementList``): each line of the snapshot is parsed to a
role and a name; the lines an agent would act on or read get ids ``e1, e2, …`` in document order; each id
maps to a descriptor (``button "View"``) and the 0-based occurrence of that descriptor so far, so the
third ``button "View"`` is ``(button "View", 2)``. At replay the id is looked up again in a *fresh*
list of the current page (``PlaywrightScreenState.resolveElementId``) and resolved with
``getByRole(role, name, exact).nth(occurrence)`` (``resolveElementRef``).

This numbering is not Playwright's AI-mode ``aria-ref`` numbering (which our own snapshot and agent
use): the same ``e4`` names different elements in the two. So a recorded bare ``eN`` is resolved here,
by this rule only, and never through ``aria-ref``. The rule is a port of the algorithm, not of the code;
the module is free of Playwright imports except in :func:`ref_locator`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .aria import snapshot_within
from .selectors import ARIA_ROLES

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

_QUOTED = re.compile(r'^(\w+)\s+"(.+?)".*$', re.ASCII)
_COLON = re.compile(r"^(\w+)(?:\s*\[[^\]]*])*:\s*(.+)$", re.ASCII)
_CONTAINER = re.compile(r"^(\w+)(?:\s*\[[^\]]*])*:?\s*$", re.ASCII)
_TRAILING_ATTRS = re.compile(r"\s+\[.*]$")
_ROLE_NAME = re.compile(r'^(\w+)\s+"(.+)"$', re.ASCII)
_ROLE_ONLY = re.compile(r"^(\w+)$", re.ASCII)
_ROLE_UNQUOTED = re.compile(r"^(\w+)\s+(.+)$", re.ASCII)
_ELEMENT_ID = re.compile(r"^\[?e\d+]?$")

LANDMARKS = frozenset({"navigation", "main", "banner", "contentinfo", "complementary", "form", "dialog",
                       "region", "list", "table"})
INTERACTIVE = frozenset({"button", "link", "textbox", "combobox", "searchbox", "checkbox", "radio", "switch",
                         "tab", "menuitem", "option", "slider", "spinbutton"})
CONTENT = frozenset({"heading", "img", "alert", "dialog", "status", "progressbar", "meter", "tooltip", "cell",
                     "columnheader", "rowheader"})
STRUCTURAL = frozenset({"generic", "none", "presentation"})
_FALLBACK_ROLES = ("textbox", "searchbox", "combobox", "button", "link", "checkbox", "radio", "tab",
                   "menuitem", "option")
"""Roles upstream tries, in this order, for a descriptor that names no role (``Search Wikipedia``)."""


@dataclass(frozen=True)
class AriaLine:
    role: str
    """The role as written (``text`` for a bare text line)."""
    name: str | None

    @property
    def aria_role(self) -> str:
        """The role as Playwright knows it; anything else counts as ``generic``, as upstream's
        ``AriaRole.valueOf`` fallback does (so ``text: …`` lines are structural)."""
        return self.role if self.role in ARIA_ROLES else "generic"

    @property
    def relevant(self) -> bool:
        """Whether the line gets an id (``isLlmRelevantNode``)."""
        role = self.aria_role
        if role in INTERACTIVE:
            return True
        if self.name is not None and role in CONTENT:
            return True
        return self.name is not None and role not in STRUCTURAL

    def descriptor(self) -> str:
        if self.name is not None and self.role == "text":
            return f"text: {self.name}"
        if self.name is not None:
            return f'{self.role} "{self.name}"'
        return self.role


@dataclass(frozen=True)
class ElementRef:
    """What an upstream id stands for: a descriptor and which of its equal occurrences."""

    descriptor: str
    nth: int

    def describe(self) -> str:
        return self.descriptor + (f" (occurrence {self.nth + 1})" if self.nth else "")


@dataclass(frozen=True)
class CompactElements:
    text: str
    ids: dict[str, ElementRef]

    def lookup(self, element_id: str) -> ElementRef | None:
        """``e5`` or ``[e5]``, as upstream's ``resolveElementId`` accepts."""
        return self.ids.get(element_id.strip().removeprefix("[").removesuffix("]"))


def is_element_id(ref: str) -> bool:
    return bool(_ELEMENT_ID.match(ref.strip()))


def parse_line(line: str) -> AriaLine:
    """One snapshot line → role and name. The quoted form is tried on the line with its annotations
    (``[level=1]``) still on, so a name that itself contains ``[active]`` stays whole."""
    trimmed = line.lstrip(" -").strip()
    for pattern in (_QUOTED, _COLON):
        m = pattern.match(trimmed)
        if m:
            return AriaLine(m.group(1), m.group(2))
    m = _CONTAINER.match(trimmed)
    if m:
        return AriaLine(m.group(1), None)
    return AriaLine("text", trimmed or None)


def _indent(line: str) -> int:
    for i, ch in enumerate(line):
        if ch not in " -":
            return i
    return -1


def build_compact_list(yaml: str) -> CompactElements:
    """Upstream's compact list of a default-mode ARIA snapshot: ids, in document order, for the relevant
    lines; landmarks (``navigation:``) shown as headers only above an element with an id."""
    if not yaml.strip():
        return CompactElements("(empty page)", {})
    rows = [(_indent(line), parse_line(line)) for line in yaml.splitlines() if line.strip()]
    min_indent = min(indent for indent, _ in rows)
    ids: dict[str, ElementRef] = {}
    out: list[str] = []
    seen: dict[str, int] = {}
    landmarks: list[int] = []
    shown: set[int] = set()
    for i, (indent, parsed) in enumerate(rows):
        while landmarks and rows[landmarks[-1]][0] >= indent:
            landmarks.pop()
        if parsed.aria_role in LANDMARKS:
            landmarks.append(i)
        if not parsed.relevant:
            continue
        for j in landmarks:
            if j not in shown:
                shown.add(j)
                out.append("  " * max((rows[j][0] - min_indent) // 2, 0) + rows[j][1].descriptor() + ":")
        element_id = f"e{len(ids) + 1}"
        descriptor = parsed.descriptor()
        nth = seen.get(descriptor, 0)
        seen[descriptor] = nth + 1
        ids[element_id] = ElementRef(descriptor, nth)
        out.append("  " * max((indent - min_indent) // 2, 0) + f"[{element_id}] {descriptor}")
    return CompactElements("\n".join(out) if out else "(no interactive elements found)", ids)


def descriptor_locator(page: Page, descriptor: str) -> Locator:
    """Upstream's ``resolveByRoleName``: quoted ``role "name"`` (exact), a bare role, an unquoted name
    with a role when it matches, then the interactive roles, a label, and the text, in that order."""
    sanitized = _TRAILING_ATTRS.sub("", descriptor.strip())
    m = _ROLE_NAME.match(sanitized)
    if m:
        role = _playwright_role(m.group(1))
        return page.get_by_role(role, name=m.group(2), exact=True)  # type: ignore[arg-type]
    m = _ROLE_ONLY.match(sanitized)
    if m:
        return page.get_by_role(_playwright_role(m.group(1)))  # type: ignore[arg-type]
    m = _ROLE_UNQUOTED.match(sanitized)
    if m and m.group(1) in ARIA_ROLES:
        name = m.group(2)
        if len(name) >= 2 and name[0] == name[-1] == "'":
            name = name[1:-1]
        loc = page.get_by_role(m.group(1), name=name, exact=True)  # type: ignore[arg-type]
        if loc.count() > 0:
            return loc
    for role in _FALLBACK_ROLES:
        loc = page.get_by_role(role, name=sanitized, exact=True)  # type: ignore[arg-type]
        if loc.count() > 0:
            return loc
    loc = page.get_by_label(sanitized, exact=True)
    if loc.count() > 0:
        return loc
    return page.get_by_text(sanitized)


def _playwright_role(role: str) -> str:
    return role if role in ARIA_ROLES else "generic"


def snapshot_yaml(page: Page, timeout_ms: int) -> str:
    """The default-mode snapshot upstream numbers (of ``:root``, as upstream captures it)."""
    with snapshot_within(timeout_ms):
        return page.locator(":root").aria_snapshot(timeout=timeout_ms)


def ref_locator(page: Page, element: ElementRef) -> Locator:
    """``resolveElementRef``: the descriptor's locator, then the recorded occurrence."""
    return descriptor_locator(page, element.descriptor).nth(element.nth)
