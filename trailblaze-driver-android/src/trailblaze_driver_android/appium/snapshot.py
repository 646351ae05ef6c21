"""The compact snapshot text the agent and ``trailblaze snapshot`` read, and the refs it assigns.

Ports upstream's ``AndroidCompactElementList`` / ``IosCompactElementList``: native class names with
generic layouts suppressed, one ``[ref] Class "label" [state]`` line per meaningful element, plain
quoted lines for the static text inside it, ``Class [N items]:`` headers for lists, and a count of the
offscreen elements left out. Building the snapshot is also what *assigns* refs: each emitted element's
``Node.ref`` is set here (upstream's ``tap`` resolves refs on the tree the compact list annotated), so
a ref shown to the agent always resolves to the node it saw.

Detail levels (``SnapshotDetail``): ``bounds`` adds ``{x,y,w,h}``; ``offscreen`` keeps elements below
or beside the screen (marked ``(offscreen)``); ``all`` shows every labelled or identified node.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .hierarchy import ANDROID, Hierarchy, Node, normalize_label
from .refs import RefTracker

BOUNDS = "bounds"
OFFSCREEN = "offscreen"
ALL_ELEMENTS = "all"
DETAILS = frozenset({BOUNDS, OFFSCREEN, ALL_ELEMENTS})

_GENERIC_ANDROID = {"View", "ViewGroup", "FrameLayout", "LinearLayout", "RelativeLayout", "ConstraintLayout",
                    "CoordinatorLayout", "CardView", "MaterialCardView", "hierarchy"}
_ANDROID_LISTS = {"RecyclerView", "ListView", "ViewPager", "ViewPager2", "GridView", "ScrollView",
                  "HorizontalScrollView", "NestedScrollView"}
_IOS_CONTAINERS = {"Table", "CollectionView", "ScrollView", "TabBar", "NavigationBar", "Toolbar",
                   "UITableView", "UICollectionView", "UIScrollView", "UITabBar", "UINavigationBar",
                   "UIToolbar", "UIPageViewController"}
_IOS_GENERIC = {"Other", "Window", "Application", "Any", "AppiumAUT", "app"}
_MAX_IOS_LABEL = 80
_PERCENT = set("%٪﹪％")


@dataclass
class Snapshot:
    text: str
    refs: dict[str, Node] = field(default_factory=dict)
    offscreen: int = 0


def normalize_details(detail: Iterable[str] | None) -> frozenset[str]:
    """Accept upstream spellings (``BOUNDS``, ``ALL_ELEMENTS``, ``--offscreen``) and ours."""
    out: set[str] = set()
    for item in detail or ():
        key = item.strip().lower().lstrip("-").replace("-", "_")
        if key in ("bounds",):
            out.add(BOUNDS)
        elif key in ("offscreen", "offscreen_elements"):
            out.add(OFFSCREEN)
        elif key in ("all", "all_elements", "detailed"):
            out.add(ALL_ELEMENTS)
    return frozenset(out)


def build_snapshot(hierarchy: Hierarchy, detail: Iterable[str] | None = None) -> Snapshot:
    """Compact text for ``hierarchy``; sets ``ref`` on every emitted node (and clears the others)."""
    details = normalize_details(detail)
    for node in hierarchy.nodes:
        node.ref = None
    builder = (_AndroidBuilder if hierarchy.platform == ANDROID else _IosBuilder)(hierarchy, details)
    builder.run()
    text = "\n".join(builder.lines) if builder.lines else "(no elements found)"
    if OFFSCREEN not in details and builder.offscreen > 0:
        text += f"\n({builder.offscreen} offscreen elements hidden — use --offscreen to show)"
    return Snapshot(text=text, refs=builder.refs, offscreen=builder.offscreen)


class _Builder:
    def __init__(self, hierarchy: Hierarchy, details: frozenset[str]) -> None:
        self.h = hierarchy
        self.width = hierarchy.width or 0
        self.height = hierarchy.height or 0
        self.include_bounds = BOUNDS in details
        self.include_offscreen = OFFSCREEN in details
        self.include_all = ALL_ELEMENTS in details
        self.lines: list[str] = []
        self.refs: dict[str, Node] = {}
        self.offscreen = 0
        self.tracker = RefTracker()

    def run(self) -> None:
        raise NotImplementedError

    def offscreen_node(self, node: Node) -> bool:
        b = node.bounds
        if self.height <= 0 or b is None:
            return False
        if b.bottom >= b.top and (b.top >= self.height or b.bottom <= 0):
            return True
        return self.width > 0 and b.right >= b.left and (b.left >= self.width or b.right <= 0)

    def assign(self, node: Node, label: str | None, class_name: str | None) -> str:
        cx, cy = node.center or (0, 0)
        ref = self.tracker.ref(label, class_name, cx, cy)
        node.ref = ref
        self.refs[ref] = node
        return ref

    def suffix(self, node: Node) -> str:
        out = ""
        b = node.bounds
        if self.include_bounds and b is not None:
            out += f" {{x:{b.left},y:{b.top},w:{b.width},h:{b.height}}}"
        if self.include_offscreen and self.offscreen_node(node):
            out += " (offscreen)"
        return out


# -- Android ------------------------------------------------------------------------------------
def _android_label(n: Node) -> str | None:
    text = normalize_label(n.text) if n.text and n.text.strip() else None
    hint = normalize_label(n.hint) if n.hint and n.hint.strip() else None
    labeled = normalize_label(n.labeled_by) if n.labeled_by and n.labeled_by.strip() else None
    cd = normalize_label(n.content_desc) if n.content_desc and n.content_desc.strip() else None
    state = normalize_label(n.state_description) if n.state_description and n.state_description.strip() else None
    pane = normalize_label(n.pane_title) if n.pane_title and n.pane_title.strip() else None
    semantic = hint or labeled
    if semantic is not None and text is not None and semantic != text and not n.showing_hint:
        return f"{semantic}: {text}"
    return text or cd or hint or labeled or state or pane


def _android_meaningful(n: Node, label: str | None) -> bool:
    return (n.clickable or n.editable or n.checkable or (n.heading and label is not None)
            or (n.scrollable and label is not None) or n.error is not None or n.focused or n.selected
            or label is not None)


def _interactive(n: Node) -> bool:
    return n.clickable or n.editable or n.checkable or n.heading


def _android_system(n: Node) -> bool:
    return bool(n.package and n.package.startswith("com.android.systemui"))


class _AndroidBuilder(_Builder):
    def run(self) -> None:
        self.build(self.h.root, 0)

    def child_label(self, n: Node) -> str | None:
        """A clickable container without text takes the first label inside it. Upstream looks at
        direct children only; UiAutomator2 trees wrap row texts in unlabelled layouts, so we look
        through non-interactive wrappers (never into another interactive element)."""
        if not (n.clickable or n.checkable or n.selected):
            return None
        stack = list(reversed(n.children))
        while stack:
            child = stack.pop()
            label = _android_label(child)
            if label is not None:
                return label
            if not _interactive(child):
                stack.extend(reversed(child.children))
        return None

    def content_children(self, n: Node) -> list[Node]:
        """Children of an element line, looking through unlabelled, non-interactive wrappers."""
        out: list[Node] = []
        for child in n.children:
            if child.visible and not _interactive(child) and _android_label(child) is None and child.children \
                    and not child.scrollable and child.pane_title is None:
                out.extend(self.content_children(child))
            else:
                out.append(child)
        return out

    def has_visible_descendants(self, n: Node) -> bool:
        for child in n.children:
            if _android_system(child):
                continue
            if not child.visible:
                if self.has_visible_descendants(child):
                    return True
                continue
            if child.important or self.has_visible_descendants(child):
                return True
        return False

    def descriptor(self, short: str, label: str | None) -> str:
        if label is not None and short:
            return f'{short} "{label}"'
        if label is not None:
            return f'"{label}"'
        return short

    def annotations(self, n: Node, label: str | None) -> str:
        parts: list[str] = []
        stable = n.unique_id or n.resource_id
        if stable:
            parts.append(f"[id={stable}]")
        if n.checkable:
            parts.append("[checked]" if n.checked else "[unchecked]")
        if n.selected:
            parts.append("[selected]")
        if n.focused:
            parts.append("[focused]")
        if not n.enabled:
            parts.append("[disabled]")
        if n.password:
            parts.append("[password]")
        if n.heading:
            parts.append("[heading]")
        if n.error is not None:
            parts.append(f'[error: "{n.error}"]')
        sd = n.state_description
        if sd and sd != label and sd != n.text:
            parts.append(f'[state: "{sd}"]')
        return (" " + " ".join(parts)) if parts else ""

    def build(self, n: Node, depth: int) -> None:
        if _android_system(n):
            return
        scrolled_away = self.offscreen_node(n)
        raw_label = _android_label(n)
        if not n.visible and not self.include_offscreen:
            if n.identifiable:
                self.offscreen += 1
            for child in n.children:
                self.build(child, depth)
            return
        if scrolled_away and not self.include_offscreen and _android_meaningful(n, raw_label):
            if n.editable:
                self.lines.append(self.reveal_line(n, depth))
                return
            self.offscreen += 1
            return
        raw_class = n.short_class or ""
        short = "" if raw_class in _GENERIC_ANDROID else raw_class
        label = raw_label or self.child_label(n)
        indent = "  " * depth
        container = (n.scrollable and (n.collection_rows is not None or raw_class in _ANDROID_LISTS)) or \
            n.pane_title is not None
        if container and self.has_visible_descendants(n):
            header = self.descriptor(short, label) or raw_class
            count = ""
            if n.collection_rows is not None:
                total = n.collection_rows * max(1, n.collection_columns or 1)
                count = f" [{total} items]" if total > 0 else ""
            elif raw_class in _ANDROID_LISTS and n.children:
                count = f" [{len(n.children)} items]"
            self.lines.append(f"{indent}{header}{count}:")
            for child in n.children:
                self.build(child, depth + 1)
            return
        if self.include_all or _android_meaningful(n, label):
            ref = self.assign(n, label, n.short_class)
            descriptor = self.descriptor(short, label)
            self.lines.append(f"{indent}[{ref}] {descriptor}{self.annotations(n, label)}{self.suffix(n)}".rstrip())
            for child in self.content_children(n):
                if _android_system(child):
                    continue
                if not child.visible:
                    for grandchild in child.children:
                        self.build(grandchild, depth + 1)
                    continue
                child_label = _android_label(child)
                interactive = _interactive(child)
                if child_label is not None and child_label == label and not interactive:
                    continue
                if child_label is not None and not interactive:
                    self.lines.append(f'{indent}  "{child_label}"')
                else:
                    self.build(child, depth + 1)
            return
        for child in n.children:
            self.build(child, depth)

    def reveal_line(self, n: Node, depth: int) -> str:
        b = n.bounds
        direction = "scroll up" if b is not None and b.bottom <= 0 else "scroll down"
        raw = n.short_class or ""
        short = "" if raw in _GENERIC_ANDROID else raw
        label = _android_label(n) or self.child_label(n)
        return f"{'  ' * depth}({direction} to reveal) {self.descriptor(short, label)}".rstrip()


# -- iOS ------------------------------------------------------------------------------------------
def _ios_label(n: Node) -> str | None:
    text = normalize_label(n.text) if n.text and n.text.strip() else None
    hint = normalize_label(n.hint) if n.hint and n.hint.strip() else None
    ax = normalize_label(n.label) if n.label and n.label.strip() else None
    category = hint if hint is not None and hint != text else (ax if ax is not None and ax != text else None)
    if category is not None and text is not None:
        return f"{category}: {text}"
    return text or hint or ax


def _truncate(text: str | None) -> str | None:
    if text is None or len(text) <= _MAX_IOS_LABEL:
        return text
    return text[: _MAX_IOS_LABEL - 1] + "…"


def _is_percent(text: str) -> bool:
    trimmed = text.strip()
    digits = trimmed.strip("".join(_PERCENT) + " ")
    return len(digits) < len(trimmed) and 0 < len(digits) <= 3 and digits.isdigit()


def _ios_system(n: Node) -> bool:
    label = n.text if n.text and n.text.strip() else n.label
    if label == "chevron":
        return True
    if n.resource_id and n.resource_id != n.label or n.hint:
        return False
    b = n.bounds
    if b is None or b.width == 0 or b.height == 0:
        return False
    if b.top < 50 and b.height < 30 and not n.clickable and not n.children:
        return True
    if not n.clickable and n.label and n.label.startswith(("Vertical scroll bar", "Horizontal scroll bar")):
        return True
    if not n.clickable and not n.children and (not label or not label.strip() or _is_percent(label)):
        ratio = b.width / b.height if b.height > 0 else 1.0
        if ratio < 0.1 or ratio > 10 or b.width < 5 or b.height < 5:
            return True
    return False


class _IosBuilder(_Builder):
    def run(self) -> None:
        self.build(self.h.root, 0, set(), None, False)

    def has_visible_descendants(self, n: Node) -> bool:
        for child in n.children:
            if not child.visible or _ios_system(child):
                continue
            if child.identifiable or self.has_visible_descendants(child):
                return True
        return False

    @staticmethod
    def display_class(n: Node) -> str:
        short = n.short_class or ""
        return "" if short in _IOS_GENERIC else short

    def annotations(self, n: Node) -> str:
        parts: list[str] = []
        ident = n.resource_id if n.resource_id and n.resource_id != n.label else None
        if ident:
            parts.append(f"[id={ident}]")
        if n.checked:
            parts.append("[checked]")
        if n.selected:
            parts.append("[selected]")
        if n.focused:
            parts.append("[focused]")
        if not n.enabled:
            parts.append("[disabled]")
        if n.password:
            parts.append("[password]")
        return (" " + " ".join(parts)) if parts else ""

    def coordinate_line(self, n: Node, depth: int) -> None:
        if n.bounds is None:
            return
        cx, cy = n.bounds.center
        ref = self.assign(n, None, None)
        self.lines.append(f"{'  ' * depth}[{ref}] @({cx},{cy})")

    def build(self, n: Node, depth: int, emitted: set[str], parent_label: str | None, promoted: bool) -> None:
        if not n.visible:
            if not self.include_offscreen and n.identifiable:
                self.offscreen += 1
            return
        if _ios_system(n):
            return
        if n.short_class in ("Application", "Window") or n.parent is None:
            # App and window chrome carry the app name as their label; a line for them would be a
            # screen-sized "element" (upstream guards the same chrome on its AXe driver).
            for child in n.children:
                self.build(child, depth, emitted, parent_label, False)
            return
        short = self.display_class(n)
        raw_label = _ios_label(n)
        label = _truncate(raw_label)
        indent = "  " * depth
        ident = n.resource_id if n.resource_id and n.resource_id != n.label else None
        duplicate = not promoted and not n.checkable and label is not None and ident is None and \
            (label == parent_label or label in emitted)
        offscreen = self.offscreen_node(n)
        if offscreen and not self.include_offscreen and label is not None:
            self.offscreen += 1
            return
        is_container = n.scrollable or short in _IOS_CONTAINERS
        if is_container and self.has_visible_descendants(n):
            if short:
                header = short
            elif label is not None and not duplicate:
                header = f'"{label}"'
            else:
                for child in n.children:
                    self.build(child, depth, emitted, label, False)
                return
            self.lines.append(f"{indent}{header}:")
            child_labels: set[str] = set()
            for child in n.children:
                self.build(child, depth + 1, child_labels, label, False)
            return
        meaningful = n.clickable or n.checked or n.selected or n.focused or label is not None
        if not duplicate and (self.include_all or meaningful):
            if label is not None and short:
                descriptor = f'{short} "{label}"'
            elif label is not None:
                descriptor = f'"{label}"'
            elif short:
                descriptor = short
            elif self.include_all and n.identifiable:
                descriptor = "element"
            else:
                if not n.identifiable and not n.children and (not offscreen or self.include_offscreen):
                    self.coordinate_line(n, depth)
                for child in n.children:
                    self.build(child, depth, emitted, parent_label, False)
                return
            ref = self.assign(n, label, n.short_class)
            self.lines.append(f"{indent}[{ref}] {descriptor}{self.annotations(n)}{self.suffix(n)}")
            if label is not None:
                emitted.add(label)
            for child in n.children:
                if (not child.visible and not self.include_offscreen) or _ios_system(child):
                    continue
                raw_child = _ios_label(child)
                child_label = _truncate(raw_child)
                interactive = child.clickable or child.checked or child.selected
                # A toggle mirroring its cell's label is still the control to tap: keep it.
                if child_label is not None and not child.checkable and \
                        (raw_child == raw_label or (raw_label or "").endswith(f": {raw_child}")):
                    continue
                in_text_link = (not interactive and raw_child is not None and raw_label is not None
                                and not child.children and child.bounds is not None and raw_child in raw_label
                                and not raw_label.startswith(f"{raw_child}: "))
                if child_label is not None and not interactive and not in_text_link:
                    if child_label not in emitted:
                        self.lines.append(f'{indent}  "{child_label}"')
                        emitted.add(child_label)
                else:
                    self.build(child, depth + 1, emitted, label, in_text_link)
            return
        if not n.children and n.bounds is not None and label is None and not short and not n.identifiable \
                and (not offscreen or self.include_offscreen) and n.bounds.width > 0 and n.bounds.height > 0 \
                and n.parent is not None:
            self.coordinate_line(n, depth)
            return
        for child in n.children:
            self.build(child, depth, emitted, label or parent_label, False)
