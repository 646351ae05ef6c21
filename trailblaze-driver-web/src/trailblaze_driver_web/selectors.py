"""Targets of web tools: snapshot refs, ARIA descriptors, ``css=`` and recorded ``nodeSelector`` maps.

A tool's ``ref`` may be

* a snapshot ref, ``e12`` (``f1e3`` inside a frame): valid while the page that produced it lives;
* an ARIA descriptor, ``button "Sign in"`` (role and exact accessible name; ``heading "Cart" [level=2]``,
  ``link /Order #\\d+/`` for a regex name, ``[nth=1]`` for the second match, ``text "Total"`` for text);
* ``css=<selector>``.

Every function here builds on a ``Root``: the page, one of its frames, or an iframe's content (see
:mod:`.frames`, which decides which), so a descriptor means the same in a frame as on the page.
``iframe "Approval frame"`` names an iframe element by its accessible name (aria-labelledby, aria-label,
else title: ``frames.FRAME_NAME_JS``), which is how a tool's ``frame:`` argument is usually written.

A ``nodeSelector`` is upstream's ``TrailblazeNodeSelector`` (decoded by :mod:`trailblaze.selectors`,
shared with the mobile drivers) with its ``web`` match (``ariaRole``, ``ariaNameRegex``,
``ariaDescriptorRegex``, ``headingLevel``, ``cssSelector``, ``dataTestId``, ``nthIndex``) and the
relative fields (``childOf``, ``containsChild`` (a direct child), ``containsDescendants`` (any
descendant), ``below``, ``above``, ``leftOf``, ``rightOf``, ``index``). Regexes match the whole name
and fall back to literal equality (``$3.00`` matches the text ``$3.00``), as upstream's resolver does.

Everything here becomes a Playwright locator, so actions keep Playwright's auto-waiting. Only the
geometric fields (``below``...) and ``index`` need boxes, and are resolved by polling.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from trailblaze import NodeSelector, WebMatch

from .snapshot import FRAME_ROLES

if TYPE_CHECKING:
    from playwright.sync_api import Frame, FrameLocator, Locator, Page

Root = Union["Page", "Frame", "FrameLocator"]
"""What locators are built on: the page, one frame of it, or the content of an iframe element."""


_REGEX_SPECIAL = re.compile(r"([\\^$.|?*+()\[\]{}])")


def escape_regex(text: str) -> str:
    """Escape only what is special in selector regexes (Java, JavaScript and Python agree on these)."""
    return _REGEX_SPECIAL.sub(r"\\\1", text)


REF = re.compile(r"^(?:f\d+)?e\d+$")
_DESCRIPTOR = re.compile(
    r'^(?P<role>[a-z][a-z-]*)'
    r'(?:\s+(?:"(?P<name>(?:[^"\\]|\\.)*)"|/(?P<regex>(?:[^/\\]|\\.)*)/(?P<flags>[is]*)))?'
    r'(?P<opts>(?:\s*\[[a-z]+=\d+\])*)\s*$')
_OPT = re.compile(r"\[([a-z]+)=(\d+)\]")

ARIA_ROLES = frozenset(["alert", "alertdialog", "application", "article", "banner", "blockquote", "button", "caption", "cell", "checkbox", "code", "columnheader", "combobox", "complementary", "contentinfo", "definition", "deletion", "dialog", "directory", "document", "emphasis", "feed", "figure", "form", "generic", "grid", "gridcell", "group", "heading", "img", "insertion", "link", "list", "listbox", "listitem", "log", "main", "marquee", "math", "meter", "menu", "menubar", "menuitem", "menuitemcheckbox", "menuitemradio", "navigation", "none", "note", "option", "paragraph", "presentation", "progressbar", "radio", "radiogroup", "region", "row", "rowgroup", "rowheader", "scrollbar", "search", "searchbox", "separator", "slider", "spinbutton", "status", "strong", "subscript", "superscript", "switch", "tab", "table", "tablist", "tabpanel", "term", "textbox", "time", "timer", "toolbar", "tooltip", "tree", "treegrid", "treeitem"])


# -- regex semantics --------------------------------------------------------------------------------
_QE = re.compile(r"\\Q(.*?)(?:\\E|$)", re.DOTALL)


def _pattern(text: str) -> re.Pattern[str] | None:
    """Whole-string pattern for a selector regex (``\\Q…\\E`` literals of Java recorders included)."""
    source = _QE.sub(lambda m: re.escape(m.group(1)), text)
    flags = 0
    if source.startswith("(?i)"):
        source, flags = source[4:], re.IGNORECASE
    try:
        return re.compile(f"^(?:{source})$", flags)
    except re.error:
        return None


def _literal(text: str) -> str:
    return _QE.sub(lambda m: m.group(1), text)


# -- locators --------------------------------------------------------------------------------------
def _by_role(base: Root | Locator, role: str, name: str | None, level: int | None,
             *, regex: bool = True) -> Locator:
    kwargs: dict[str, Any] = {}
    if level is not None:
        kwargs["level"] = level
    if name is None:
        return base.get_by_role(role, **kwargs)  # type: ignore[arg-type]
    if not regex:
        return base.get_by_role(role, name=name, exact=True, **kwargs)  # type: ignore[arg-type]
    literal = base.get_by_role(role, name=_literal(name), exact=True, **kwargs)  # type: ignore[arg-type]
    pattern = _pattern(name)
    if pattern is None:
        return literal
    return base.get_by_role(role, name=pattern, **kwargs).or_(literal)  # type: ignore[arg-type]


def _match_locator(base: Root | Locator, web: WebMatch) -> Locator:
    parts: list[Locator] = []
    role, name = web.ariaRole, web.ariaNameRegex
    if web.ariaDescriptorRegex:
        d = _DESCRIPTOR.match(web.ariaDescriptorRegex.strip())
        if d is None or not d.group("role"):
            raise ValueError(f"ariaDescriptorRegex '{web.ariaDescriptorRegex}' must look like role \"name\"")
        role = role or d.group("role")
        name = name or (d.group("name") if d.group("name") is not None else d.group("regex"))
    if role or web.headingLevel is not None:
        parts.append(_by_role(base, role or "heading", name, web.headingLevel))
    elif name is not None:
        pattern = _pattern(name)
        literal = _literal(name)
        by_text = base.get_by_text(literal, exact=True).or_(base.get_by_label(literal, exact=True))
        if pattern is not None:
            by_text = base.get_by_text(pattern).or_(base.get_by_label(pattern)).or_(by_text)
        parts.append(by_text)
    if web.dataTestId:
        parts.append(base.get_by_test_id(web.dataTestId))
    if web.cssSelector:
        parts.append(base.locator(web.cssSelector))
    if not parts:
        raise ValueError("the web selector has no field to match (ariaRole, ariaNameRegex, cssSelector, dataTestId...)")
    loc = parts[0]
    for other in parts[1:]:
        loc = loc.and_(other)
    if web.nthIndex is not None:
        loc = loc.nth(web.nthIndex)
    return loc


def selector_locator(page: Root, sel: NodeSelector, base: Locator | None = None) -> Locator:
    """The locator of ``sel`` without its geometric fields (which ``resolve`` applies), built on ``page``
    (the page, a frame, or an iframe's content)."""
    if sel.web is None:
        other = sel.driver_key
        if other:
            raise ValueError(f"this selector matches with '{other}', which is for another driver; the web "
                             "driver needs a 'web:' match")
        raise ValueError("the selector has no 'web:' match")
    root: Root | Locator = base if base is not None else page
    if sel.childOf is not None:
        root = selector_locator(page, sel.childOf, base)
    loc = _match_locator(root, sel.web)
    inner_root = _has_root(page)
    if sel.containsChild is not None:
        # ``has`` alone would accept any descendant; ``:scope > *`` (relative to the candidate) keeps
        # only its direct children, upstream's meaning of containsChild.
        loc = loc.filter(has=inner_root.locator(":scope > *").and_(selector_locator(inner_root, sel.containsChild)))
    for inner in sel.containsDescendants or []:
        loc = loc.filter(has=selector_locator(inner_root, inner))
    return loc


def _has_root(page: Root) -> Root:
    """Where ``has=`` locators are built. Playwright wants them from the same frame object as the outer
    locator and evaluates their selector relative to each candidate: for an iframe's content (a
    ``FrameLocator``, whose locators belong to the page's main frame) that is the page itself, so the
    inner selector carries no frame-entering prefix."""
    owner = getattr(page, "owner", None)
    return owner.page if owner is not None else page


def descriptor_locator(page: Root, text: str) -> Locator | None:
    """The locator of an ARIA descriptor (``button "Sign in"``), or None when ``text`` is not one."""
    m = _DESCRIPTOR.match(text.strip())
    if m is None:
        return None
    role = m.group("role")
    opts = {k: int(v) for k, v in _OPT.findall(m.group("opts") or "")}
    name: Any = None
    if m.group("name") is not None:
        try:
            name = json.loads(f'"{m.group("name")}"')
        except ValueError:
            name = m.group("name")
    elif m.group("regex") is not None:
        flags = re.IGNORECASE if "i" in (m.group("flags") or "") else 0
        flags |= re.DOTALL if "s" in (m.group("flags") or "") else 0
        name = re.compile(m.group("regex"), flags)
    if role == "text":
        if name is None:
            return None
        loc = page.get_by_text(name, exact=True) if isinstance(name, str) else page.get_by_text(name)
    elif role in FRAME_ROLES:
        loc = frame_element_locator(page, name)
    elif role in ARIA_ROLES:
        kwargs: dict[str, Any] = {}
        if "level" in opts:
            kwargs["level"] = opts["level"]
        if isinstance(name, str):
            kwargs.update(name=name, exact=True)
        elif name is not None:
            kwargs["name"] = name
        loc = page.get_by_role(role, **kwargs)  # type: ignore[arg-type]
    else:
        return None
    if "nth" in opts:
        loc = loc.nth(opts["nth"])
    return loc


def frame_element_locator(page: Root, name: str | re.Pattern[str] | None) -> Locator:
    """The ``<iframe>``/``<frame>`` elements named ``name`` by ``frames.FRAME_NAME_JS``'s rule: Playwright's
    label matching covers ``aria-labelledby`` and ``aria-label``; ``title`` is matched as well."""
    loc = page.locator("iframe, frame")
    if name is None:
        return loc
    if isinstance(name, str):
        named = page.get_by_label(name, exact=True).or_(page.get_by_title(name, exact=True))
    else:
        named = page.get_by_label(name).or_(page.get_by_title(name))
    return loc.and_(named)


# -- geometric resolution ---------------------------------------------------------------------------
_BOXES_JS = """els => els.map(e => { const r = e.getBoundingClientRect();
  return [r.left, r.top, r.right, r.bottom, r.width > 0 && r.height > 0]; })"""


@dataclass
class Resolved:
    locator: Locator | None
    count: int


def resolve(page: Root, sel: NodeSelector, timeout_ms: int) -> Resolved:
    """Resolve a selector to one locator. Non-geometric selectors resolve lazily (Playwright waits in
    the action); geometric ones poll boxes until a match appears or the timeout passes."""
    loc = selector_locator(page, sel)
    if not sel.geometric:
        return Resolved(loc if (sel.web and sel.web.nthIndex is not None) else loc.first, -1)
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        index, count = _pick(page, sel, loc)
        if index is not None:
            return Resolved(loc.nth(index), count)
        if time.monotonic() >= deadline:
            return Resolved(None, 0)
        wait = getattr(page, "wait_for_timeout", None)  # an iframe's content has none: sleep instead
        wait(100) if wait is not None else time.sleep(0.1)


def _box_of(page: Root, sel: NodeSelector) -> tuple[float, float, float, float] | None:
    loc = selector_locator(page, sel)
    boxes = loc.evaluate_all(_BOXES_JS)
    for b in boxes:
        if b[4]:
            return b[0], b[1], b[2], b[3]
    return None


def _pick(page: Root, sel: NodeSelector, loc: Locator) -> tuple[int | None, int]:
    boxes = [(i, b) for i, b in enumerate(loc.evaluate_all(_BOXES_JS)) if b[4]]
    anchors: list[tuple[str, tuple[float, float, float, float]]] = []
    for key in ("below", "above", "leftOf", "rightOf"):
        nested = getattr(sel, key)
        if nested is not None:
            anchor = _box_of(page, nested)
            if anchor is None:
                return None, 0
            anchors.append((key, anchor))

    def ok(b: list[Any]) -> bool:
        left, top, right, bottom = b[0], b[1], b[2], b[3]
        for key, (al, at, ar, ab) in anchors:
            if key == "below" and top < ab - 1:
                return False
            if key == "above" and bottom > at + 1:
                return False
            if key == "leftOf" and right > al + 1:
                return False
            if key == "rightOf" and left < ar - 1:
                return False
        return True

    matches = [(i, b) for i, b in boxes if ok(b)]
    if not matches:
        return None, 0
    if sel.index is not None:
        ordered = sorted(matches, key=lambda m: (round(m[1][1]), round(m[1][0])))
        if not 0 <= sel.index < len(ordered):
            return None, len(ordered)
        return ordered[sel.index][0], len(ordered)
    if anchors:
        key, (al, at, ar, ab) = anchors[0]

        def distance(m: tuple[int, list[Any]]) -> float:
            b = m[1]
            return float({"below": b[1] - ab, "above": at - b[3], "leftOf": al - b[2], "rightOf": b[0] - ar}[key])

        matches.sort(key=distance)
    return matches[0][0], len(matches)


# -- match descriptors (findMatches) ------------------------------------------------------------------
_DESCRIPTORS_JS = """els => els.flatMap(e => {
  const r = e.getBoundingClientRect();
  const style = getComputedStyle(e);
  if (!(r.width > 0 && r.height > 0) || style.visibility === 'hidden') return [];
  const path = [];
  for (let n = e; n.parentElement; n = n.parentElement) path.unshift([...n.parentElement.children].indexOf(n));
  const clean = t => (t || '').replace(/\\s+/g, ' ').trim() || null;
  const label = clean(e.getAttribute('aria-label'));
  return [{indexPath: path,
           bounds: {left: Math.round(r.left), top: Math.round(r.top), right: Math.round(r.right),
                    bottom: Math.round(r.bottom)},
           matchedText: label || clean(e.getAttribute('alt')) || clean(e.innerText) || clean(e.value),
           accessibilityId: label, resourceId: e.getAttribute('data-testid')}];
})"""


def match_descriptors(page: Page, sel: NodeSelector, timeout_ms: int | None) -> list[dict[str, Any]]:
    """Upstream's ``MatchDescriptor`` of every visible element ``sel`` picks: DOM child-index path,
    viewport bounds in CSS pixels, the accessible text (``aria-label``, ``alt``, the rendered text, a
    field's value), ``aria-label`` and ``data-testid``. With ``timeout_ms``, polls until one matches."""
    deadline = time.monotonic() + (timeout_ms or 0) / 1000
    while True:
        if sel.geometric:
            one = resolve(page, sel, 0).locator
            found: list[dict[str, Any]] = [] if one is None else one.evaluate_all(_DESCRIPTORS_JS)
        else:
            found = selector_locator(page, sel).evaluate_all(_DESCRIPTORS_JS)
        if found or time.monotonic() >= deadline:
            return found
        page.wait_for_timeout(100)
