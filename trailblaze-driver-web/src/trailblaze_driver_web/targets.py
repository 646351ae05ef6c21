"""Turning a tool's ``ref``/``nodeSelector`` into a locator, recording refs as selectors, and saying
what the page had when nothing matched.

Replay prefers the ``nodeSelector`` (stable across reloads and builds); the ``ref`` is used when there
is no selector. A snapshot ref (``e12``) is only meaningful for the page that produced it, so when a
tool acts on one, the generator writes the ARIA descriptor and a selector that picks exactly that
element (checked against the live page), and the tool returns them as ``recorded_args``: the recording
then reads ``web_click {ref: 'button "Sign in"', nodeSelector: {web: {ariaRole: button,
ariaNameRegex: Sign in}}}`` and replays after any reload.
"""

from __future__ import annotations

import difflib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze import NodeSelector, ToolFailure, WebMatch, parse_selector

from . import upstream_refs
from .frames import CSS_PATH_JS, FrameScope, find_in_frames, frame_descriptor, page_scopes
from .selectors import REF, descriptor_locator, escape_regex, resolve, selector_locator
from .snapshot import AriaNode

if TYPE_CHECKING:
    from playwright.sync_api import ElementHandle, Frame, Locator

    from .page_owner import PageOwner
    from .selectors import Root

_CSS_IDENT = re.compile(r"^[A-Za-z_][\w-]*$")


@dataclass
class Target:
    locator: Locator
    description: str
    """How messages name the element: ``ref e12 (button "Sign in")``, ``nodeSelector {...}``."""
    recorded: dict[str, Any] | None = None
    """``{ref, nodeSelector}`` to record instead of an unstable snapshot ref."""
    role: str | None = None
    name: str | None = None
    scope: FrameScope | None = None
    """Where it was found: the page, or one of its frames (None: by snapshot ref or recorded id)."""


def resolve_target(drv: PageOwner, ref: str | None, node_selector: dict[str, Any] | None, *,
                   tool: str, timeout_ms: int | None = None, replaying: bool = False,
                   frame: str | None = None) -> Target:
    """The element a tool acts on, in whichever frame of the page holds it (or in ``frame``, the iframe
    element the call names). Raises ``ToolFailure`` (the step fails) when it cannot be found, or when
    two frames hold it.

    ``replaying``: the call comes from a recording, so a bare element id in it is upstream's (see
    :mod:`.upstream_refs`), resolved together with the recorded selector."""
    timeout = drv.cfg.timeout_ms if timeout_ms is None else timeout_ms
    if replaying and ref and upstream_refs.is_element_id(ref):
        sel = parse_selector(node_selector) if node_selector else None
        return _recorded_element_id(drv, ref.strip(), sel, tool, timeout)
    if ref and REF.match(ref.strip()) and not node_selector:
        return _snapshot_ref(drv, ref.strip(), tool)  # names one element of one frame already
    scopes = frame_scopes(drv, frame, tool, timeout)
    return resolve_in(drv, scopes, ref, node_selector, tool=tool, timeout_ms=timeout)


def frame_scopes(drv: PageOwner, frame: str | None, tool: str, timeout_ms: int) -> list[FrameScope]:
    """Where a call looks: the page and all its frames, or the one frame whose iframe element ``frame``
    names (a descriptor, ``css=`` or a snapshot ref), found by the same rule as any target. Only frames
    that hold frames can hold that element, so on a page whose iframes are not nested the element is
    looked for in the page alone and the scope costs no round trip."""
    if frame is None or not frame.strip():
        return page_scopes(drv.page)
    frame = frame.strip()
    page = drv.page
    parents = {id(f.parent_frame): f.parent_frame for f in page.frames[1:] if f.parent_frame is not None}
    holders = [FrameScope(page)] + [FrameScope(f, f) for f in parents.values()
                                    if f is not None and f.parent_frame is not None and not f.is_detached()]
    if REF.match(frame):
        element = page.locator(f"aria-ref={frame}")  # the iframe as the last snapshot showed it
    else:
        found = resolve_in(drv, holders, frame, None, tool=tool, timeout_ms=timeout_ms)
        element = found.locator
        if found.scope is not None and "[nth=" not in frame:
            _one_iframe(found.scope, frame, element, tool, timeout_ms)
    return [FrameScope(element.content_frame, label=frame)]


def _one_iframe(scope: FrameScope, frame: str, first: Locator, tool: str, timeout_ms: int) -> None:
    """``frame:`` must name one iframe: two in one document (same title, a ``css=`` matching both) is a
    ``ToolFailure`` naming each by the descriptor a recording would write for it (``frames.frame_descriptor``:
    its ``css=`` path when the name is shared) and its address. One round trip when the iframe is there;
    when it is not yet, the first one is waited for (as the action would) and they are counted then."""
    every = scope.root.locator(frame[4:].strip()) if frame.startswith("css=") else descriptor_locator(scope.root, frame)
    if every is None:
        return
    found = every.evaluate_all(_IFRAMES_JS)
    if not found:
        try:
            first.wait_for(state="attached", timeout=timeout_ms)
        except Exception:  # noqa: BLE001 - not there: the call fails on it as on any missing target
            return
        found = every.evaluate_all(_IFRAMES_JS)
    if len(found) < 2:
        return
    where = "" if scope.is_page else f" in {scope.describe()}"
    named = "; ".join(f"css={css} (at {src or 'about:blank'})" for css, src in found)
    raise ToolFailure(f"{tool}: frame '{frame}' matches {len(found)} iframes{where}: {named}; name one of them "
                      "by its css= path (or give the iframes different titles)")


_IFRAMES_JS = f"""els => {{ const path = {CSS_PATH_JS};
  return els.map(e => [path(e), e.getAttribute('srcdoc') !== null ? 'about:srcdoc' : (e.src || '')]); }}"""
"""Each matched iframe's CSS path in its document and its address (``srcdoc`` frames have none of their own)."""


def resolve_in(drv: PageOwner, scopes: list[FrameScope], ref: str | None,
               node_selector: dict[str, Any] | None, *, tool: str, timeout_ms: int) -> Target:
    """``ref``/``nodeSelector`` found in exactly one of ``scopes`` (see ``frames.find_in_frames``)."""
    page = drv.page
    if node_selector:
        sel = parse_selector(node_selector)
        try:
            selector_locator(page, sel)  # a selector that cannot be built fails here, once, naming why
        except ValueError as exc:
            raise ToolFailure(f"{tool}: {exc}") from None
        role = sel.web.ariaRole if sel.web else None
        name = sel.web.ariaNameRegex if sel.web else None
        wait = timeout_ms if len(scopes) == 1 else 0
        found = find_in_frames(scopes, lambda s: resolve(s.root, sel, wait).locator, tool=tool,
                               what=sel.describe(), timeout_ms=timeout_ms, wait=page.wait_for_timeout)
        if found is None:
            raise ToolFailure(f"{tool}: no element matches {sel.describe()}{_in(scopes)} within {timeout_ms} ms; "
                              f"{what_the_page_has(drv, role, name, scopes=scopes)}")
        scope, loc = found
        return Target(loc, sel.describe() + _at(scope), role=role, name=name, scope=scope)
    if not ref:
        raise ToolFailure(f"{tool}: give the element: 'ref' (a snapshot ref like e12, an ARIA descriptor like "
                          "button \"Submit\", or css=<selector>)")
    ref = ref.strip()
    if REF.match(ref):
        return _snapshot_ref(drv, ref, tool)
    build: Callable[[FrameScope], Locator | None]
    role = name = None
    if ref.startswith("css="):
        css = ref[4:].strip()
        if not css:
            raise ToolFailure(f"{tool}: 'css=' needs a selector after it")
        description = f"css={css}"
        build = lambda s: s.root.locator(css).first  # noqa: E731
    else:
        if descriptor_locator(page, ref) is None:
            raise ToolFailure(f"{tool}: ref '{ref}' is not a snapshot ref (e12), an ARIA descriptor (button "
                              "\"Submit\", heading \"Cart\" [level=2]) or css=<selector>")
        m = re.match(r'^([a-z-]+)(?:\s+"((?:[^"\\]|\\.)*)")?', ref)
        role = m.group(1) if m else None
        name = m.group(2) if m else None
        description = ref
        nth = "[nth=" in ref

        def build(s: FrameScope) -> Locator | None:
            loc = descriptor_locator(s.root, ref)
            return loc if loc is None or nth else loc.first

    found = find_in_frames(scopes, build, tool=tool, what=description, timeout_ms=timeout_ms,
                           wait=page.wait_for_timeout)
    if found is None:
        raise ToolFailure(f"{tool}: no element matches {description}{_in(scopes)} within {timeout_ms} ms; "
                          f"{what_the_page_has(drv, role, name, scopes=scopes)}")
    scope, loc = found
    return Target(loc, description + _at(scope), role=role, name=name, scope=scope)


def _at(scope: FrameScope) -> str:
    return "" if scope.is_page else f" in {scope.short()}"


def _in(scopes: list[FrameScope]) -> str:
    if len(scopes) == 1:
        return _at(scopes[0])
    return f" in the page or any of its {len(scopes) - 1} frames"


def _snapshot_ref(drv: PageOwner, ref: str, tool: str) -> Target:
    page = drv.page
    loc = page.locator(f"aria-ref={ref}")
    try:
        count = loc.count()
    except Exception:  # noqa: BLE001 - no snapshot was ever taken on this page
        count = 0
    if count == 0:
        raise ToolFailure(f"{tool}: element ref '{ref}' is not on the current page. Refs come from the last "
                          "snapshot and do not survive navigation or a reload: take a fresh snapshot and use a "
                          "ref it shows, or an ARIA descriptor like button \"Submit\"")
    node = drv.last_snapshot.find(ref) if drv.last_snapshot else None
    if node is None:
        node = drv.take_snapshot().find(ref)
    desc = f"ref {ref}" + (f" ({node.descriptor()})" if node else "")
    frame_node = node.frame_node() if node is not None else None
    if frame_node is not None:
        desc += f" in {frame_node.descriptor()}"
    recorded = None
    try:
        recorded = record_ref(drv, ref, node)
    except Exception:  # noqa: BLE001 - proving a selector is best effort; the descriptor still is recorded
        recorded = None
    if recorded is None:
        recorded = _descriptor_only(node)
    return Target(loc, desc, recorded, role=node.role if node else None, name=node.name if node else None)


def _descriptor_only(node: AriaNode | None) -> dict[str, Any] | None:
    """What a recording keeps when no selector could be proven: the descriptor (and frame), never the ref,
    which means nothing once the page that produced it is gone."""
    if node is None or not node.name or node.role in ("generic", "text"):
        return None
    recorded: dict[str, Any] = {"ref": node.descriptor()}
    frame_node = node.frame_node()
    if frame_node is not None and frame_node.name:
        recorded["frame"] = frame_node.descriptor()
    return recorded


def _recorded_element_id(drv: PageOwner, ref: str, sel: NodeSelector | None, tool: str,
                         timeout: int) -> Target:
    """A recorded upstream ``eN``, OR-ed with the recorded selector as upstream's ``validateAndResolveRef``
    does, but never trusting either blindly: an id the fresh element list does not hold contributes no
    element (upstream would fall back to ``getByRole(generic)``), and when both sides match, they must
    match the same element, else the step fails naming both."""
    page = drv.page
    deadline = time.monotonic() + timeout / 1000
    while True:
        compact = upstream_refs.build_compact_list(upstream_refs.snapshot_yaml(page, timeout))
        element = compact.lookup(ref)
        by_ref = upstream_refs.ref_locator(page, element) if element is not None else None
        by_sel = _selector_now(drv, sel, tool) if sel is not None else None
        ref_desc = (f"ref {ref} ({element.describe()} in upstream's element list of this page)" if element
                    else f"ref {ref} (not in upstream's element list of this page, which has "
                         f"{len(compact.ids)} ids)")
        sel_desc = sel.describe() if sel is not None else None
        ref_hit = by_ref is not None and by_ref.count() > 0
        sel_hit = by_sel is not None and by_sel.count() > 0
        role, name = _role_name(element.descriptor if element else None, sel)
        if ref_hit and sel_hit:
            assert by_ref is not None and by_sel is not None
            if not _same_element(by_ref, by_sel):
                raise ToolFailure(f"{tool}: the recording's {ref_desc} and its {sel_desc} pick different "
                                  "elements; not acting on either. Re-record the step.")
            return Target(by_ref, f"{ref_desc}, agreeing with its {sel_desc}", role=role, name=name)
        if ref_hit:
            assert by_ref is not None
            return Target(by_ref, ref_desc, role=role, name=name)
        if sel_hit:
            assert by_sel is not None and sel_desc is not None
            note = f" ({ref_desc})" if element is None else ""
            return Target(by_sel, sel_desc + note, role=role, name=name)
        if time.monotonic() >= deadline:
            both = ref_desc + (f" nor its {sel_desc}" if sel_desc else "")
            raise ToolFailure(f"{tool}: no element matches the recording's {both} within {timeout} ms; "
                              f"{what_the_page_has(drv, role, name)}")
        page.wait_for_timeout(100)


def _selector_now(drv: PageOwner, sel: NodeSelector, tool: str) -> Locator | None:
    try:
        return resolve(drv.page, sel, 0).locator
    except ValueError as exc:
        raise ToolFailure(f"{tool}: {exc}") from None


def _same_element(a: Locator, b: Locator) -> bool:
    handle = b.first.element_handle(timeout=1000)
    if handle is None:
        return False
    try:
        return bool(a.first.evaluate("(x, y) => x === y", handle))
    finally:
        handle.dispose()


def _role_name(descriptor: str | None, sel: NodeSelector | None) -> tuple[str | None, str | None]:
    """Role and name for failure messages (what the page has of that role)."""
    if descriptor:
        line = upstream_refs.parse_line(descriptor)
        return line.role, line.name
    if sel is not None and sel.web is not None:
        return sel.web.ariaRole, sel.web.ariaNameRegex
    return None, None


# -- recording ---------------------------------------------------------------------------------------
def record_ref(drv: PageOwner, ref: str, node: AriaNode | None) -> dict[str, Any] | None:
    """``{ref: <descriptor>, nodeSelector: <selector>}`` for a snapshot ref, proven on the live page; for
    an element inside an iframe, with ``frame: <the iframe's descriptor>`` and the selector proven in
    that frame (where replay will look for it)."""
    page = drv.page
    handle = page.locator(f"aria-ref={ref}").element_handle(timeout=drv.cfg.timeout_ms)
    if handle is None:
        return None
    owner: Frame | None = None
    try:
        if node is not None and node.frame_node() is not None:
            owner = handle.owner_frame()
            if owner is None:
                return None
        sel = best_selector(drv, handle, node, owner or page)
    finally:
        handle.dispose()
    if sel is None:
        return None
    descriptor = node.descriptor() if node is not None and node.role not in ("generic", "text") and node.name \
        else _css_ref(sel)
    recorded: dict[str, Any] = {"ref": descriptor, "nodeSelector": sel.to_yaml()}
    if owner is not None:
        frame = frame_descriptor(owner)
        if frame is None:
            return None
        recorded["frame"] = frame
    return recorded


def _css_ref(sel: NodeSelector) -> str:
    if sel.web and sel.web.cssSelector:
        return f"css={sel.web.cssSelector}"
    if sel.web and sel.web.dataTestId:
        return f"css=[{'data-testid'}=\"{sel.web.dataTestId}\"]"
    if sel.web and sel.web.ariaRole:
        return sel.web.ariaRole
    return "css=*"


def _position(root: Root, sel: NodeSelector, handle: ElementHandle) -> tuple[int, int]:
    """(index of ``handle`` among the selector's matches in ``root``, its frame, or -1; number of matches)."""
    loc = selector_locator(root, sel)
    result = loc.evaluate_all("(els, t) => [els.indexOf(t), els.length]", handle)
    return int(result[0]), int(result[1])


def best_selector(drv: PageOwner, handle: ElementHandle, node: AriaNode | None,
                  root: Root | None = None) -> NodeSelector | None:
    """The most readable selector that picks exactly ``handle`` in ``root`` (the page, or the frame that
    holds it): role and name first (what a user sees and what an ARIA descriptor says), then a test id,
    an element id, and only then a position."""
    root = drv.page if root is None else root
    candidates: list[WebMatch] = []
    role = node.role if node is not None and node.role not in ("text",) else None
    name = node.name if node is not None else None
    level = node.level if node is not None and node.role == "heading" else None
    if role and role != "generic" and name:
        candidates.append(WebMatch(ariaRole=role, ariaNameRegex=name))
        if escape_regex(name) != name:
            candidates.append(WebMatch(ariaRole=role, ariaNameRegex=escape_regex(name)))
    test_id = handle.get_attribute(drv.cfg.test_id_attribute)
    if test_id:
        candidates.append(WebMatch(dataTestId=test_id))
    element_id = handle.get_attribute("id")
    if element_id and _CSS_IDENT.match(element_id):
        candidates.append(WebMatch(cssSelector=f"#{element_id}"))
    if role and role != "generic" and name is None:
        candidates.append(WebMatch(ariaRole=role, headingLevel=level))
    first_seen: tuple[WebMatch, int] | None = None
    for match in candidates:
        sel = NodeSelector(web=match)
        index, count = _position(root, sel, handle)
        if index == 0 and count == 1:
            return sel
        if index >= 0 and first_seen is None:
            first_seen = (match, index)
    if first_seen is not None:
        match, index = first_seen
        return NodeSelector(web=match.model_copy(update={"nthIndex": index}))
    css = handle.evaluate(CSS_PATH_JS)
    if css:
        sel = NodeSelector(web=WebMatch(cssSelector=css))
        index, count = _position(root, sel, handle)
        if index >= 0:
            return sel if count == 1 else NodeSelector(web=WebMatch(cssSelector=css, nthIndex=index))
    return None




# -- diagnostics -------------------------------------------------------------------------------------
def what_the_page_has(drv: PageOwner, role: str | None, name: str | None, *, limit: int = 8,
                      scopes: list[FrameScope] | None = None) -> str:
    """One clause for failure messages: the elements of that role (closest names first), else the start
    of the snapshot, so the reader sees at once what changed (a renamed button, a missing dialog).

    The candidates are those of the frames the call looked in (``scopes``; all of them by default), each
    named with its frame, so the clause never offers an element the lookup did not search."""
    try:
        snap = drv.take_snapshot()
    except Exception as exc:  # noqa: BLE001
        return f"the page could not be read ({exc})"
    url = ""
    try:
        url = f" ({drv.page.url})"
    except Exception:  # noqa: BLE001
        pass
    label = scopes[0].label if scopes is not None and len(scopes) == 1 else None
    scoped = label is not None and not label.startswith("css=") and not REF.match(label)
    nodes = [n for n in snap.nodes() if not scoped or _frame_of(n) == label]
    where = f"{label}{url}" if scoped else f"the page{url}"
    if role:
        same = [n for n in nodes if n.role == role]
        if same:
            if name:
                same.sort(key=lambda n: -difflib.SequenceMatcher(None, name, n.name or n.text or "").ratio())
            shown = ", ".join(_short(n) for n in same[:limit])
            more = f" and {len(same) - limit} more" if len(same) > limit else ""
            return f"{where} has {role} elements: {shown}{more}"
        if scoped:
            return f"{where} has no {role} element"
        return f"{where} has no {role} element; it shows: {_excerpt(snap.render())}"
    return f"{where} shows: {_excerpt(snap.render())}"


def _frame_of(node: AriaNode) -> str | None:
    frame = node.frame_node()
    return frame.descriptor() if frame is not None else None


def _short(node: AriaNode) -> str:
    label = node.descriptor() if node.name else (f"{node.role}: {node.text}" if node.text else node.role)
    frame = _frame_of(node)
    return label + (f" [{node.ref}]" if node.ref else "") + (f" in {frame}" if frame else "")


def _excerpt(text: str, lines: int = 12) -> str:
    rows = text.splitlines()
    head = "; ".join(r.strip() for r in rows[:lines])
    return head + (f"; … ({len(rows) - lines} more lines)" if len(rows) > lines else "")
