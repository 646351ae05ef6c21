"""Which frames of the page a web tool looks in, and the one rule for finding an element among them.

A page's iframes (same-origin, cross-origin, nested) are part of what the person sees, so every way of
naming an element - an ARIA descriptor, ``css=``, a ``nodeSelector``, a test id, text - is looked for
in the page and in each of its frames, in Playwright's frame order (the page first). The element must
be in exactly one of them: the same name in two frames is an error naming both, and a tool's ``frame:``
argument (the iframe element, named like any other: ``iframe "Approval frame"``, ``css=#approval``)
scopes the call to one frame (see ``targets.frame_scopes``).

A page without frames must not pay for any of this: ``page.frames`` is Playwright's local list (no
round trip), and with one frame the locator is handed back unresolved, exactly as before frames were
looked at, so the action's own auto-wait is the only wait. With frames, finding the element costs one
count per frame, sent together (``count_each``), polled until one frame has it or the timeout passes.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze import BadInputError, ToolFailure

from .selectors import Root, frame_element_locator, resolve, selector_locator
from .snapshot import FRAME_ROLES

if TYPE_CHECKING:
    from playwright.sync_api import Frame, FrameLocator, Locator, Page
    from trailblaze import NodeSelector

    from .snapshot import PageSnapshot


POLL_MS = 100


@dataclass(frozen=True)
class FrameScope:
    """One place a tool looks: ``root`` to build locators on, and how messages name it."""

    root: Root
    frame: Frame | None = None
    """The Playwright frame when it is known (every frame but one reached through ``frame:``)."""
    label: str | None = None
    """How the call named the frame (its ``frame:`` argument); None for the page and unnamed frames."""

    @property
    def is_page(self) -> bool:
        return self.frame is None and self.label is None

    def short(self) -> str:
        """How a success message names the frame, without asking the browser: its ``frame:`` text, or
        the frame's URL (Playwright keeps it locally)."""
        if self.label is not None:
            return self.label
        if self.frame is None or self.frame.parent_frame is None:
            return "the page"
        return f"the frame at {self.frame.url}"

    def describe(self) -> str:
        """How an error names the frame: the iframe element as a descriptor (``iframe "Approval frame"``)
        with its URL. Costs a round trip; only failure messages and recordings ask."""
        if self.label is not None or self.frame is None or self.frame.parent_frame is None:
            return self.short()
        return f"{frame_descriptor(self.frame) or 'iframe'} (at {self.frame.url})"


def page_scopes(page: Page) -> list[FrameScope]:
    """The page, then each of its attached frames (nested ones included)."""
    frames = page.frames
    if len(frames) == 1:
        return [FrameScope(page)]
    return [FrameScope(page)] + [FrameScope(f, f) for f in frames[1:] if not f.is_detached()]


def frame_descriptor(frame: Frame) -> str | None:
    """How a tool names the iframe element ``frame`` is shown in, for messages and every recording (the
    recorder, ``session save``, the MCP server): ``iframe "NAME"`` (``FRAME_NAME_JS``) when that picks this
    iframe alone among the documents ``frame:`` is looked up in (``targets.frame_scopes``: the page and
    each frame that holds frames), else its ``css=`` path; None for the page itself or an iframe gone."""
    if frame.parent_frame is None:
        return None
    try:
        handle = frame.frame_element()
    except Exception:  # noqa: BLE001 - detached while we looked
        return None
    try:
        tag, name = handle.evaluate(f"e => [e.localName, ({FRAME_NAME_JS})(e)]")
        if name:
            page = frame.page
            holders = [page.main_frame] + [f for f in page.frames[1:] if f.child_frames and not f.is_detached()]
            if sum(count_each([frame_element_locator(h, str(name)) for h in holders])) == 1:
                role = "frame" if tag == "frame" else "iframe"
                return f"{role} {json.dumps(name, ensure_ascii=False)}"
        css = handle.evaluate(CSS_PATH_JS)
        return f"css={css}" if css else None
    except Exception:  # noqa: BLE001 - its document went away meanwhile
        return None
    finally:
        handle.dispose()


FRAME_NAME_JS = """el => {
  const squash = s => (s || '').replace(/\\s+/g, ' ').trim();
  const by = el.getAttribute('aria-labelledby');
  const labelled = by && squash(by.split(/\\s+/)
    .map(id => (el.ownerDocument.getElementById(id) || {}).textContent).join(' '));
  return labelled || squash(el.getAttribute('aria-label')) || squash(el.getAttribute('title'));
}"""
"""An iframe element's name, HTML-AAM's rule (``aria-labelledby``, ``aria-label``, else ``title``): what the
snapshot shows for it, what a recording writes and what ``frame_element_locator`` matches. Playwright's
aria snapshot and role locators give iframes no name, so this is the one place it is computed."""

CSS_PATH_JS = """el => {
  const parts = [];
  for (let e = el; e && e.nodeType === 1 && e !== document.documentElement; e = e.parentElement) {
    if (e.id && /^[A-Za-z_][\\w-]*$/.test(e.id)) { parts.unshift('#' + e.id); break; }
    let part = e.localName;
    const same = e.parentElement ? [...e.parentElement.children].filter(c => c.localName === e.localName) : [];
    if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(e) + 1) + ')';
    parts.unshift(part);
  }
  return parts.join(' > ');
}"""
"""A CSS path to an element within its document (from its nearest id): the last resort of a recording."""


def _count(loc: Locator | None) -> int:
    if loc is None:
        return 0
    try:
        return int(loc.count())
    except Exception:  # noqa: BLE001 - the frame navigated or went away mid-count: not there now
        return 0


def count_each(locators: Sequence[Locator]) -> list[int]:
    """How many elements each locator matches now, asked all at once.

    Playwright's sync API sends one call and waits for its answer before the next, so counting in six
    frames would cost six round trips; the same ``count`` calls are awaited together on Playwright's own
    event loop instead, costing about one. A Playwright without that inner API (it is not public) gets
    them one by one, with the same answers."""
    if len(locators) > 1:
        impls: list[Any] = [getattr(loc, "_impl_obj", None) for loc in locators]
        run = getattr(locators[0], "_sync", None)
        if run is not None and all(impl is not None and hasattr(impl, "count") for impl in impls):
            async def together() -> list[Any]:
                return list(await asyncio.gather(*(impl.count() for impl in impls), return_exceptions=True))

            results = run(together())
            return [r if isinstance(r, int) else 0 for r in results]
    return [_count(loc) for loc in locators]


def find_in_frames(scopes: Sequence[FrameScope], build: Callable[[FrameScope], Locator | None], *, tool: str,
                   what: str, timeout_ms: int, wait: Callable[[float], None]) -> tuple[FrameScope, Locator] | None:
    """The one scope whose locator matches, and that locator; None when none matched within the timeout.

    One scope: its locator at once, unresolved (the action auto-waits, as on a page without frames).
    Several: polled until a frame matches; two frames matching is a ``ToolFailure`` naming them.
    ``build`` returns None for a scope where the target cannot be (a geometric selector found nothing)."""
    if len(scopes) == 1:
        loc = build(scopes[0])
        return (scopes[0], loc) if loc is not None else None
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        built = [(scope, build(scope)) for scope in scopes]
        candidates = [(scope, loc) for scope, loc in built if loc is not None]
        counts = count_each([loc for _, loc in candidates])
        hits = [found for found, count in zip(candidates, counts) if count > 0]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise ToolFailure(ambiguous(tool, what, [s for s, _ in hits]))
        if time.monotonic() >= deadline:
            return None
        wait(POLL_MS)


def ambiguous(tool: str, what: str, scopes: Sequence[FrameScope]) -> str:
    named = [s.describe() for s in scopes]
    example = next((n.split(" (at ")[0] for s, n in zip(scopes, named) if not s.is_page), None)
    hint = f" (e.g. frame: '{example}')" if example and example != "iframe" else " (the iframe's descriptor or css=)"
    return (f"{tool}: {what} matches in {len(scopes)} frames: {'; '.join(named)}; say which one with the "
            f"'frame' argument{hint}")


def name_frame_elements(page: Page, snap: PageSnapshot) -> None:
    """Give the snapshot's iframe nodes their accessible names (Playwright's AI snapshot shows a bare
    ``iframe``), so the snapshot reads ``[e4] iframe "Approval frame":`` - the descriptor a ``frame:``
    argument and a recording use. One small evaluate per iframe, only on pages that have them."""
    for node in snap.nodes():
        if node.role in FRAME_ROLES and node.ref and not node.name:
            try:
                name = page.locator(f"aria-ref={node.ref}").evaluate(FRAME_NAME_JS, timeout=1000)
            except Exception:  # noqa: BLE001 - gone since the snapshot: leave it unnamed
                continue
            node.name = " ".join(str(name).split()) or None


def count_in_aria_tree(page: Page, selector: NodeSelector) -> int:
    """Elements the selector picks now, by the same resolver ``nodeSelector`` tools use, counting only
    those the ARIA snapshot holds: upstream matches waypoints on the snapshot's node tree
    (``WaypointMatcher.kt`` over ``PlaywrightTrailblazeNodeMapper.kt``), so an element that is not
    rendered (``display: none``, ``visibility: hidden``) or is hidden from assistive technology
    (``aria-hidden``, ``inert``) is not there, even when a ``cssSelector`` finds it in the DOM. In
    the page and each of its frames."""
    total = 0
    try:
        for scope in page_scopes(page):
            if selector.geometric:
                total += resolve(scope.root, selector, 0).count
            else:
                total += int(selector_locator(scope.root, selector).evaluate_all(_IN_ARIA_TREE))
    except ValueError as exc:
        raise BadInputError(str(exc)) from None
    return total


_IN_ARIA_TREE = """elements => elements.filter(e => {
  if (e.closest('[aria-hidden="true"], [inert]')) return false;
  if (typeof e.checkVisibility === 'function')
    return e.checkVisibility({visibilityProperty: true}) || getComputedStyle(e).display === 'contents';
  const style = getComputedStyle(e);
  return style.display !== 'none' && style.visibility !== 'hidden' && style.visibility !== 'collapse';
}).length"""
"""How many of the located elements an ARIA snapshot would hold (rendered, not hidden from assistive
technology): the nodes upstream's waypoint matcher counts on."""
