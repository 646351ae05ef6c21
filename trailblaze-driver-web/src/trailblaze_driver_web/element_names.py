"""What ``trailblaze record`` writes for an element the person acted on, asked of Playwright.

The page script only marks the element (``recorder_script.MARK_ATTRIBUTE``); its role and accessible name
come from Playwright's aria snapshot of that element — the computation ``trailblaze snapshot`` prints and
replay's role locators match — and its selector from ``targets.best_selector``, the code that records an
action by snapshot ref (role and name, then test id, id, position). A ``<select>`` inside ``<label>Category
…</label>`` is therefore ``combobox "Category"`` here exactly as in the snapshot. An element inside an
iframe is also given the iframe by ``frames.frame_descriptor``, the naming every recording shares
(``iframe "Approval frame"``, or ``css=`` when that name does not pick it alone).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from trailblaze import NodeSelector, WebMatch

from .frames import frame_descriptor
from .recorder_reports import PageReport
from .recorder_script import MARK_ATTRIBUTE
from .selectors import selector_locator
from .snapshot import AriaNode, parse
from .targets import _css_ref, best_selector

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Locator, Page

    from .page_owner import PageOwner

NAMING_TIMEOUT_MS = 500
"""How long an element may take to be read: it is on the page already, or gone (the page navigated)."""
PRE_NAMED_FOR_S = 1.5
"""A name asked when the pointer came over or went down on an element is its click's name for this long
(after that it is asked again, and kept only if the element is gone)."""


@dataclass
class RecordedTarget:
    args: dict[str, Any]
    """``ref`` (and ``nodeSelector``, ``frame``) for the tool call."""
    said: str
    """How the terminal and the step's text name the element."""


def marked(frame: Frame, mark: str) -> Locator:
    return frame.locator(f'[{MARK_ATTRIBUTE}="{mark}"]')


def name_marked(drv: PageOwner, frame: Frame, mark: str) -> RecordedTarget | None:
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
            sel = best_selector(drv, handle, node, frame)
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


def _descriptor(node: AriaNode | None) -> str | None:
    """The snapshot's descriptor of a node that has a role and a name (as ``targets.record_ref`` writes)."""
    return node.descriptor() if node is not None and node.role not in ("generic", "text") and node.name else None


def _node(raw: str) -> AriaNode | None:
    roots = parse(raw).roots
    return roots[0] if roots else None


class ElementNamer:
    """The recorder's part that names what a report is about: it asks Playwright (``name_marked``) when
    the pointer comes over an element or a field takes focus — ahead of a click that may leave the page —
    keeps those names a moment, finds the frame that holds a mark, and falls back to what the script saw
    (test id, id, CSS path; never a name) when the element is gone."""

    def __init__(self, drv: PageOwner, max_per_s: int) -> None:
        self.drv = drv
        self.page = drv.page
        """The page the recording started on (a tab the person opens becomes the driver's current page,
        ``tabs.py``, so elements are not looked for through the driver)."""
        self.pages: list[Page] = [self.page]
        """Every tab recorded (the recorder adds those opened later): where a mark is looked for."""
        self.max_per_s = max_per_s
        self._named: dict[str, tuple[float, RecordedTarget | None]] = {}
        """Names asked ahead, by mark: (when, the name or None when it could not be read)."""
        self._frames: dict[str, Frame] = {}
        """The frame of each document that reported, by the script's document id."""
        self._window = (0.0, 0)

    def name_ahead(self, report: PageReport) -> None:
        """A ``pre`` report: name the element now (at most ``max_per_s`` a second: pointing is cheap)."""
        start, count = self._window
        now = time.monotonic()
        if now - start >= 1.0:
            start, count = now, 0
        self._window = (start, count + 1)
        if count >= self.max_per_s or report.el is None:
            return
        known = self._named.get(report.el.mark)
        if known is not None and known[1] is not None and now - known[0] < PRE_NAMED_FOR_S:
            return  # named when the pointer came over it: the press adds nothing (and may race a navigation)
        named = self._name(report)
        if named is not None or report.el.mark not in self._named:  # a later miss keeps the earlier name
            self._named[report.el.mark] = (now, named)
            if len(self._named) > 256:  # the oldest names are no use any more
                del self._named[next(iter(self._named))]

    def target(self, report: PageReport) -> RecordedTarget | None:
        """Playwright's name for the element: the one asked ahead when it is recent (or the element is a
        field, which is not renamed while it is typed into), else asked now, else — the element already
        left the page — the one asked ahead, else what the script saw."""
        if report.el is None:
            return None
        ahead = self._named.get(report.el.mark)
        if ahead is not None and ahead[1] is not None and (
                time.monotonic() - ahead[0] < PRE_NAMED_FOR_S or report.kind in ("type", "select", "upload")):
            return ahead[1]
        now = self._name(report)
        if now is not None:
            return now
        if ahead is not None and ahead[1] is not None:
            return ahead[1]
        return self._fallback(report)

    def frame_of(self, report: PageReport) -> Frame | None:
        """The frame holding the reported element: the one whose document carries its mark."""
        if report.el is None:
            return None
        known = self._frames.get(report.document)
        if known is not None and not known.is_detached():
            return known
        frames: list[Frame] = []
        for page in self.pages:
            try:
                frames.extend(page.frames)
            except Exception:  # noqa: BLE001, S112 - the tab is gone
                continue
        frames.sort(key=lambda f: f.url != report.url)
        for frame in frames:
            try:
                if marked(frame, report.el.mark).count() == 1:
                    self._frames[report.document] = frame
                    return frame
            except Exception:  # noqa: BLE001, S112 - a frame detached meanwhile
                continue
        return None

    def _name(self, report: PageReport) -> RecordedTarget | None:
        assert report.el is not None
        frame = self.frame_of(report)
        if frame is None:
            return None
        try:
            return name_marked(self.drv, frame, report.el.mark)
        except Exception:  # noqa: BLE001 - the document went away while it was read
            return None

    def _fallback(self, report: PageReport) -> RecordedTarget | None:
        """When Playwright could not read the element (gone with its page): its test id, id or CSS path as
        the script saw them. Never a name: names are Playwright's alone."""
        el = report.el
        if el is None:
            return None
        frame = self._frames.get(report.document)
        extra: dict[str, Any] = {}
        if frame is not None and frame.parent_frame is not None:
            inside = frame_descriptor(frame)
            if inside is None:
                return None
            extra["frame"] = inside
        if el.testId:
            sel = NodeSelector(web=WebMatch(dataTestId=el.testId))
            return RecordedTarget({"ref": f'css=[data-testid="{el.testId}"]', "nodeSelector": sel.to_yaml(),
                                   **extra}, f"[data-testid={el.testId}]")
        if el.id:
            sel = NodeSelector(web=WebMatch(cssSelector=f"#{el.id}"))
            return RecordedTarget({"ref": f"css=#{el.id}", "nodeSelector": sel.to_yaml(), **extra}, f"#{el.id}")
        if el.css and not el.inShadow:
            return RecordedTarget({"ref": f"css={el.css}", **extra}, el.css)
        return None
