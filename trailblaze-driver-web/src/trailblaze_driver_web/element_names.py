"""What ``trailblaze record`` writes for an element the person acted on, asked of Playwright.

The page script only marks the element (``recorder_script.MARK_ATTRIBUTE``); its role and accessible name
come from Playwright's aria snapshot of that element — the computation ``trailblaze snapshot`` prints and
replay's role locators match — and its selector from ``targets.best_selector``, the code that records an
action by snapshot ref (role and name, then test id, id, position). A ``<select>`` inside ``<label>Category
…</label>`` is therefore ``combobox "Category"`` here exactly as in the snapshot. An element inside an
iframe is also given the iframe, as a descriptor (``iframe "Approval frame"``) or, when its name does not
pick it alone, ``css=``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from trailblaze import NodeSelector, WebMatch

from .recorder_script import MARK_ATTRIBUTE
from .selectors import selector_locator
from .snapshot import AriaNode, parse
from .targets import _CSS_PATH_JS, _css_ref, best_selector

if TYPE_CHECKING:
    from playwright.sync_api import Frame

    from .driver import PlaywrightDriver

NAMING_TIMEOUT_MS = 500
"""How long an element may take to be read: it is on the page already, or gone (the page navigated)."""


@dataclass
class RecordedTarget:
    args: dict[str, Any]
    """``ref`` (and ``nodeSelector``, ``frame``) for the tool call."""
    said: str
    """How the terminal and the step's text name the element."""


def marked(frame: Frame, mark: str) -> Any:
    return frame.locator(f'[{MARK_ATTRIBUTE}="{mark}"]')


def name_marked(drv: PlaywrightDriver, frame: Frame, mark: str) -> RecordedTarget | None:
    """The recorded target of the element marked ``mark`` in ``frame``; None when it is gone or the mark is
    not on one element alone (the page copied it)."""
    loc = marked(frame, mark)
    node = _node(loc.aria_snapshot(timeout=NAMING_TIMEOUT_MS))  # strict: a copied mark fails here
    in_frame = frame.parent_frame is not None
    args = _by_role_and_name(frame, node, mark)
    if args is None:  # not unique by role and name: the full search (test id, id, position)
        handle = loc.element_handle(timeout=NAMING_TIMEOUT_MS)
        if handle is None:
            return None
        try:
            sel = best_selector(drv, handle, node, frame if in_frame else None)
        finally:
            handle.dispose()
        args = None if sel is None else {"ref": _descriptor(node) or _css_ref(sel), "nodeSelector": sel.to_yaml()}
    if args is None:
        return None
    said = str(args["ref"])
    if in_frame:
        where = frame_descriptor(frame)
        if where is None:
            return None
        args["frame"] = where
        said = f"{said} in {where}"
    return RecordedTarget(args, said)


def _by_role_and_name(frame: Frame, node: AriaNode | None, mark: str) -> dict[str, Any] | None:
    """``best_selector``'s first choice, proven in one call: role and name, when they pick the marked
    element alone (the common case, and the one a click that navigates has time for)."""
    if node is None or node.role in ("generic", "text") or not node.name:
        return None
    sel = NodeSelector(web=WebMatch(ariaRole=node.role, ariaNameRegex=node.name))
    found = selector_locator(cast(Any, frame), sel).evaluate_all(
        "(els, [attr, mark]) => [els.findIndex(e => e.getAttribute(attr) === mark), els.length]",
        [MARK_ATTRIBUTE, mark])
    if found != [0, 1]:
        return None
    return {"ref": node.descriptor(), "nodeSelector": sel.to_yaml()}


def frame_descriptor(frame: Frame) -> str | None:
    """How a tool names the iframe element ``frame`` is shown in: ``iframe "NAME"`` when that name is the
    iframe's alone in its document, else its ``css=`` path. Playwright's role locators and aria snapshot
    give iframes no name, so the name is HTML-AAM's for an iframe: ``aria-labelledby``, ``aria-label``,
    else ``title``."""
    if frame.parent_frame is None:
        return None
    handle = frame.frame_element()
    try:
        name = handle.evaluate(_IFRAME_NAME_JS)
        if name:
            return f"iframe {json.dumps(name, ensure_ascii=False)}"
        css = handle.evaluate(_CSS_PATH_JS)
        return f"css={css}" if css else None
    finally:
        handle.dispose()


_IFRAME_NAME_JS = """el => {
  const squash = s => (s || '').replace(/\\s+/g, ' ').trim();
  const name = f => {
    const by = f.getAttribute('aria-labelledby');
    const labelled = by && squash(by.split(/\\s+/).map(id => (f.ownerDocument.getElementById(id) || {}).textContent)
                                   .join(' '));
    return labelled || squash(f.getAttribute('aria-label')) || squash(f.getAttribute('title'));
  };
  const mine = name(el);
  if (!mine) return null;
  const same = [...el.ownerDocument.querySelectorAll('iframe, frame')].filter(f => name(f) === mine);
  return same.length === 1 ? mine : null;
}"""


def _descriptor(node: AriaNode | None) -> str | None:
    """The snapshot's descriptor of a node that has a role and a name (as ``targets.record_ref`` writes)."""
    return node.descriptor() if node is not None and node.role not in ("generic", "text") and node.name else None


def _node(raw: str) -> AriaNode | None:
    roots = parse(raw).roots
    return roots[0] if roots else None
