"""The compact page snapshot the agent and authors read, built on Playwright's AI aria snapshot.

Playwright's ``aria_snapshot(mode="ai")`` gives the accessibility tree as YAML with a ref per element
(``[ref=e5]``), resolvable later with the ``aria-ref=e5`` locator. That text is written for machines:
anonymous ``generic`` wrappers, ``/url`` lines, ``[cursor=pointer]``, a ``text:`` line repeating every
form label. The compact form keeps what a reader needs to act — role, accessible name, state and the
ref — and drops the rest:

* unnamed wrappers (``generic``, ``rowgroup``, ``none``...) disappear and their children move up;
* a ``text:`` that repeats a sibling's name (a ``<label>``) is dropped;
* the ref leads the line (``[e5] button "Log in"``), as upstream Trailblaze prints node refs;
* elements scrolled out of the viewport are summarised in one line unless ``offscreen`` is asked for;
* ``bounds`` adds ``{x,y,w,h}``, ``urls`` keeps link targets.

The parsed nodes also tell the recorder each ref's role and name, which is how an action by ref is
recorded as a selector that survives a reload.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

_KEY = re.compile(r'^(?P<role>[A-Za-z][\w-]*)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?P<attrs>(?: \[[^\]]*\])*)$')
_ATTR = re.compile(r"\[([^\]=]+)(?:=([^\]]*))?\]")

HOISTED = frozenset({"generic", "none", "presentation", "rowgroup", "paragraph"})
"""Roles whose unnamed nodes are only wrappers: their children are shown one level up."""
CONTAINERS = frozenset({
    "list", "listbox", "menu", "menubar", "navigation", "main", "form", "region", "banner", "contentinfo",
    "complementary", "dialog", "alertdialog", "group", "table", "grid", "row", "tablist", "tabpanel", "toolbar",
    "tree", "treegrid", "radiogroup", "article", "search", "iframe", "document", "section", "figure",
})
DROPPED_ATTRS = frozenset({"ref", "box", "cursor"})
REF_CONTAINERS = frozenset({"list", "table", "grid", "listbox", "menu", "menubar", "tablist", "tree", "treegrid",
                            "dialog", "alertdialog", "form", "iframe", "radiogroup", "toolbar"})
"""Unnamed nodes with children keep their ref only for these roles (scopes a tool may act within)."""
DETAILS = frozenset({"bounds", "offscreen", "urls", "all"})
FRAME_ROLES = frozenset({"iframe", "frame"})
"""Frame elements: Playwright's AI snapshot shows each frame's content under its element, with refs
prefixed by the frame (``f1e3``)."""


@dataclass
class AriaNode:
    """One element of the aria snapshot (``role`` ``text`` for bare text)."""

    role: str
    name: str | None = None
    ref: str | None = None
    attrs: dict[str, str] = field(default_factory=dict)
    box: tuple[int, int, int, int] | None = None
    text: str | None = None
    """Inline content after the colon: the value of a textbox, the text of a paragraph."""
    props: dict[str, str] = field(default_factory=dict)
    """``/url``, ``/placeholder``... lines."""
    children: list[AriaNode] = field(default_factory=list)
    parent: AriaNode | None = field(default=None, repr=False)

    @property
    def level(self) -> int | None:
        value = self.attrs.get("level")
        return int(value) if value and value.isdigit() else None

    def descriptor(self) -> str:
        """``button "Log in"``: how authors and recordings name this element."""
        if self.name:
            return f"{self.role} {json.dumps(self.name, ensure_ascii=False)}"
        return self.role

    def frame_node(self) -> AriaNode | None:
        """The iframe element this node's document is in (None: the page's own document)."""
        node = self.parent
        while node is not None:
            if node.role in FRAME_ROLES:
                return node
            node = node.parent
        return None

    def walk(self) -> Iterator[AriaNode]:
        yield self
        for child in self.children:
            yield from child.walk()

    def all_text(self) -> str:
        parts: list[str] = []
        for node in self.walk():
            if node.role == "text" and node.text or node.text and node.role != "text":
                parts.append(node.text)
            elif node.name and node is not self and not node.children:
                parts.append(node.name)
        return " ".join(parts)


@dataclass
class PageSnapshot:
    """A parsed snapshot: the tree, its refs, and the viewport it was taken in."""

    roots: list[AriaNode]
    raw: str
    viewport: tuple[int, int] | None = None
    by_ref: dict[str, AriaNode] = field(default_factory=dict)

    def find(self, ref: str) -> AriaNode | None:
        return self.by_ref.get(ref)

    def nodes(self) -> Iterator[AriaNode]:
        for root in self.roots:
            yield from root.walk()

    def render(self, detail: frozenset[str] = frozenset()) -> str:
        return render(self, detail)


def parse_key(key: str) -> AriaNode:
    match = _KEY.match(key.strip())
    if match is None:
        return AriaNode(role="text", text=key.strip())
    name = match.group("name")
    if name is not None:
        try:
            name = json.loads(f'"{name}"')
        except ValueError:
            pass
    node = AriaNode(role=match.group("role"), name=name)
    for attr in _ATTR.finditer(match.group("attrs") or ""):
        k, v = attr.group(1).strip(), attr.group(2)
        if k == "ref":
            node.ref = v
        elif k == "box" and v:
            try:
                x, y, w, h = (int(float(p)) for p in v.split(","))
                node.box = (x, y, w, h)
            except ValueError:
                pass
        else:
            node.attrs[k] = v if v is not None else ""
    return node


def parse(raw: str, viewport: tuple[int, int] | None = None) -> PageSnapshot:
    """Parse ``aria_snapshot(mode="ai")`` text (boxes optional) into a tree."""
    from trailblaze import load_yaml

    try:
        data = load_yaml(raw) if raw.strip() else []
    except Exception:  # noqa: BLE001 - never let a snapshot quirk break a run: fall back to lines
        data = [line.strip().lstrip("- ") for line in raw.splitlines() if line.strip()]
    snap = PageSnapshot(roots=[], raw=raw, viewport=viewport)
    snap.roots = _items(data, None, snap)
    return snap


def _items(data: Any, parent: AriaNode | None, snap: PageSnapshot) -> list[AriaNode]:
    out: list[AriaNode] = []
    if not isinstance(data, list):
        data = [data]
    for item in data:
        if isinstance(item, str):
            node = parse_key(item)
            _adopt(node, parent, snap, out)
        elif isinstance(item, dict):
            for key, value in item.items():
                key = str(key)
                if key.startswith("/"):
                    if parent is not None:
                        parent.props[key[1:]] = "" if value is None else str(value)
                    continue
                if key == "text":
                    node = AriaNode(role="text", text=_scalar(value))
                    _adopt(node, parent, snap, out)
                    continue
                node = parse_key(key)
                if isinstance(value, list):
                    node.children = _items(value, node, snap)
                elif value is not None:
                    node.text = _scalar(value)
                _adopt(node, parent, snap, out)
    return out


def _adopt(node: AriaNode, parent: AriaNode | None, snap: PageSnapshot, out: list[AriaNode]) -> None:
    node.parent = parent
    if node.ref:
        snap.by_ref[node.ref] = node
    out.append(node)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return " ".join(str(value).split())


# -- rendering ---------------------------------------------------------------------------------------
def render(snap: PageSnapshot, detail: frozenset[str] = frozenset()) -> str:
    detail = frozenset(d.lower() for d in detail)
    if "all" in detail:
        detail = detail | {"offscreen", "urls"}
    lines: list[str] = []
    hidden = [0]
    _render_list(snap.roots, 0, lines, snap, detail, hidden, inherited_visible=True)
    if hidden[0]:
        lines.append(f"({hidden[0]} offscreen elements hidden — use --offscreen to show)")
    return "\n".join(lines) if lines else "(empty page)"


def _visible(node: AriaNode, snap: PageSnapshot, inherited: bool) -> bool:
    if node.box is None or snap.viewport is None:
        return inherited
    x, y, w, h = node.box
    if w == 0 and h == 0:
        return inherited
    vw, vh = snap.viewport
    return x + w > 0 and y + h > 0 and x < vw and y < vh


def _render_list(nodes: list[AriaNode], depth: int, lines: list[str], snap: PageSnapshot, detail: frozenset[str],
                 hidden: list[int], inherited_visible: bool) -> None:
    sibling_names = {n.name for n in nodes if n.name and n.role != "text"}
    parent = nodes[0].parent if nodes else None
    parent_name = parent.name if parent is not None and parent.name else None
    for node in nodes:
        if "aria-hidden" in node.attrs:
            continue  # decorative (★★★★☆); Playwright's default snapshot leaves it out too
        if node.role == "text" or (node.role == "generic" and not node.name and not node.children):
            if parent_name and node.text and parent_name in node.text:
                continue  # "← Back to products" inside the link named "Back to products"
        if node.role == "text":
            if not node.text or node.text in sibling_names:
                continue
            if not inherited_visible and "offscreen" not in detail:
                hidden[0] += 1
                continue
            lines.append(f"{'  ' * depth}{json.dumps(node.text, ensure_ascii=False)}")
            continue
        if node.role == "generic" and not node.name and not node.children and node.text in sibling_names:
            continue  # a <label> whose text is the name of the field next to it
        visible = _visible(node, snap, inherited_visible)
        if not visible and "offscreen" not in detail:
            hidden[0] += sum(1 for n in node.walk() if n.role != "text" or n.text)
            continue
        if node.role in HOISTED and not node.name and node.children and not node.text:
            _render_list(node.children, depth, lines, snap, detail, hidden, visible)
            continue
        if not node.children and not node.name and not node.text and not node.ref:
            continue  # an empty element (a <p> waiting for content): nothing to read or act on
        if node.role in ("combobox", "listbox") and node.children and all(c.role == "option" for c in node.children):
            lines.append("  " * depth + _options_line(node, detail))
            continue
        children: list[str] = []
        if node.children:
            _render_list(node.children, depth + 1, children, snap, detail, hidden, visible)
        line = _line(node, detail)
        if node.children and not children and line.endswith(":"):
            line = line[:-1]
        lines.append("  " * depth + line)
        lines.extend(children)


def _line(node: AriaNode, detail: frozenset[str]) -> str:
    parts: list[str] = []
    if node.ref and (node.name or not node.children or node.role in REF_CONTAINERS):
        parts.append(f"[{node.ref}]")
    if node.role == "generic" and not node.children:
        # A plain element with text: the text is all there is to it.
        label = node.name or node.text
        parts.append(json.dumps(label, ensure_ascii=False) if label else "generic")
        text = None
    else:
        parts.append(node.role)
        if node.name:
            parts.append(json.dumps(node.name, ensure_ascii=False))
        text = node.text
    for key, value in node.attrs.items():
        if key in DROPPED_ATTRS:
            continue
        if key == "active":
            if node.role != "generic":
                parts.append("[focused]")
            continue
        parts.append(f"[{key}]" if value == "" else f"[{key}={value}]")
    placeholder = node.props.get("placeholder")
    if placeholder:
        parts.append(f"[placeholder={json.dumps(placeholder, ensure_ascii=False)}]")
    if "urls" in detail and node.props.get("url"):
        parts.append(f"[url={node.props['url']}]")
    if "bounds" in detail and node.box is not None:
        x, y, w, h = node.box
        parts.append(f"{{{x},{y},{w},{h}}}")
    line = " ".join(parts)
    if text:
        if node.role in ("textbox", "searchbox", "spinbutton", "slider", "combobox"):
            line += f" = {json.dumps(text, ensure_ascii=False)}"
        else:
            line += f": {text}"
    elif node.children:
        line += ":"
    return line


def _options_line(node: AriaNode, detail: frozenset[str]) -> str:
    head = _line(AriaNode(role=node.role, name=node.name, ref=node.ref, attrs=node.attrs, box=node.box,
                          props=node.props), detail)
    options = []
    for option in node.children:
        label = option.name or option.text or ""
        options.append(json.dumps(label, ensure_ascii=False) + (" [selected]" if "selected" in option.attrs else ""))
    return f"{head} options: {', '.join(options)}"
