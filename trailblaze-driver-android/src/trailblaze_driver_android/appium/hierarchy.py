"""One node tree for both mobile platforms, parsed from Appium page source.

UiAutomator2 (``<hierarchy><android.widget.FrameLayout bounds="[0,0][1080,2400]" …>``), XCUITest
(``<XCUIElementTypeApplication x= y= width= height= …>``) and the fake driver's app XML (the same
attribute vocabularies, with ``left/top/width/height`` geometry) all become ``Node`` objects with
integer screen ``Bounds`` and the platform's properties under the names upstream's ``DriverNodeDetail``
uses, so one selector resolver and one ref algorithm serve both drivers.

Empty attribute strings become None: UiAutomator2 writes ``text=""`` on every layout, and upstream's
text resolution (``text ?: hintText ?: contentDescription``) treats absence, not emptiness, as missing.
Each node keeps the absolute XPath of its element in the page source, which is what Appium's own
``xpath`` locator evaluates against, so a node can always be turned back into a live element.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from trailblaze import decode_output

ANDROID = "android"
IOS = "ios"

_UIA2_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_WS = re.compile(r"\s+")
_TRUE = frozenset({"true", "1", "yes"})
_IOS_PREFIX = "XCUIElementType"


def _div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Kotlin's ``Int / Int``."""
    q = abs(a) // b
    return q if a >= 0 else -q


@dataclass(frozen=True, slots=True)
class Bounds:
    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top

    @property
    def center_x(self) -> int:
        return _div(self.left + self.right, 2)

    @property
    def center_y(self) -> int:
        return _div(self.top + self.bottom, 2)

    @property
    def center(self) -> tuple[int, int]:
        return self.center_x, self.center_y

    def contains_point(self, x: int, y: int) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom


def normalize_label(text: str) -> str:
    """Whitespace collapsed to single spaces, one line (upstream label normalisation)."""
    return _WS.sub(" ", text.replace("\n", " ")).strip()


@dataclass(eq=False, slots=True)
class Node:
    """One element of the screen. Field names follow upstream's driver node details.

    Android nodes fill the ``AndroidAccessibility``/``AndroidMaestro`` vocabulary (``content_desc``
    is Maestro's ``accessibilityText``); iOS nodes fill ``IosMaestro``/``IosAxe`` (``label`` is the AX
    label, ``text`` the AX value, ``resource_id`` the element name / accessibility identifier).
    """

    platform: str
    node_id: int
    class_name: str | None = None
    bounds: Bounds | None = None
    children: list[Node] = field(default_factory=list)
    parent: Node | None = None
    xpath: str = ""
    ref: str | None = None
    # text-ish
    text: str | None = None
    content_desc: str | None = None
    hint: str | None = None
    resource_id: str | None = None
    package: str | None = None
    label: str | None = None
    value: str | None = None
    pane_title: str | None = None
    error: str | None = None
    tooltip: str | None = None
    unique_id: str | None = None
    labeled_by: str | None = None
    state_description: str | None = None
    role_description: str | None = None
    compose_test_tag: str | None = None
    # state
    enabled: bool = True
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    selected: bool = False
    focusable: bool = False
    focused: bool = False
    editable: bool = False
    scrollable: bool = False
    password: bool = False
    heading: bool = False
    multiline: bool = False
    visible: bool = True
    important: bool = True
    showing_hint: bool = False
    input_type: int = 0
    collection_row: int | None = None
    collection_column: int | None = None
    collection_rows: int | None = None
    collection_columns: int | None = None
    attrs: dict[str, str] = field(default_factory=dict)
    rtext: str | None = None
    """``resolve_text``, computed once at parse time (selectors read it for every node)."""

    # -- derived views -----------------------------------------------------------------------
    @property
    def short_class(self) -> str | None:
        """``android.widget.Button`` → ``Button``; ``XCUIElementTypeButton`` → ``Button``."""
        if self.class_name is None:
            return None
        short = self.class_name.rsplit(".", 1)[-1]
        if short.startswith(_IOS_PREFIX) and len(short) > len(_IOS_PREFIX):
            return short[len(_IOS_PREFIX):]
        return short

    @property
    def ref_class(self) -> str | None:
        """The class segment of a ref identity: ``className.substringAfterLast('.')`` as upstream."""
        return self.class_name.rsplit(".", 1)[-1] if self.class_name is not None else None

    @property
    def resolve_text(self) -> str | None:
        """Selector ``textRegex`` target: text → hint → content description / AX label."""
        if self.text is not None:
            return self.text
        if self.hint is not None:
            return self.hint
        return self.content_desc if self.platform == ANDROID else self.label

    @property
    def accessibility_text(self) -> str | None:
        return self.content_desc if self.platform == ANDROID else self.label

    @property
    def identifiable(self) -> bool:
        """Has a text or identity property a selector can anchor on (upstream
        ``hasIdentifiableProperties`` for the Maestro-shaped details)."""
        return bool(self.text or self.resource_id or self.accessibility_text or self.hint or self.unique_id)

    @property
    def center(self) -> tuple[int, int] | None:
        return self.bounds.center if self.bounds is not None else None

    def walk(self) -> Iterator[Node]:
        """This node and its descendants, depth-first pre-order (upstream ``aggregate``)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def descendants(self) -> list[Node]:
        out = list(self.walk())
        return out[1:]

    def find_ref(self, ref: str) -> Node | None:
        for node in self.walk():
            if node.ref == ref:
                return node
        return None

    def describe(self) -> str:
        parts = [self.short_class or "node"]
        label = self.display_label()
        if label:
            parts.append(f'"{label}"')
        if self.resource_id:
            parts.append(f"[id={self.resource_id}]")
        if self.bounds is not None:
            parts.append(f"@{self.bounds.center_x},{self.bounds.center_y}")
        return " ".join(parts)

    def display_label(self) -> str | None:
        for value in (self.text, self.accessibility_text, self.hint):
            if value and value.strip():
                return normalize_label(value)
        return None

    def to_json(self, *, depth: int = 0, max_depth: int = 64) -> dict[str, Any]:
        out: dict[str, Any] = {"nodeId": self.node_id, "class": self.class_name}
        if self.ref:
            out["ref"] = self.ref
        if self.bounds is not None:
            b = self.bounds
            out["bounds"] = {"left": b.left, "top": b.top, "right": b.right, "bottom": b.bottom}
        for key in ("text", "content_desc", "hint", "resource_id", "label", "value"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.children and depth < max_depth:
            out["children"] = [c.to_json(depth=depth + 1, max_depth=max_depth) for c in self.children]
        return out


@dataclass
class Hierarchy:
    """A parsed page source: the root node, the flat DFS order and the screen size if known."""

    root: Node
    platform: str
    nodes: list[Node]
    width: int | None = None
    height: int | None = None
    source: str = ""

    def node(self, node_id: int) -> Node:
        return self.nodes[node_id]

    def find_ref(self, ref: str) -> Node | None:
        for node in self.nodes:
            if node.ref == ref:
                return node
        return None


# -- parsing ---------------------------------------------------------------------------------------
def _s(attrs: dict[str, str], *names: str) -> str | None:
    for name in names:
        value = attrs.get(name)
        if value is not None and value != "":
            return value
    return None


def _b(attrs: dict[str, str], name: str, default: bool = False) -> bool:
    value = attrs.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in _TRUE


def _i(attrs: dict[str, str], name: str) -> int | None:
    value = attrs.get(name)
    if value is None or value == "":
        return None
    try:
        return int(float(value))
    except ValueError:
        return None


def _bounds(attrs: dict[str, str]) -> Bounds | None:
    raw = attrs.get("bounds")
    if raw:
        m = _UIA2_BOUNDS.search(raw)
        if m:
            left, top, right, bottom = (int(g) for g in m.groups())
            return Bounds(left, top, right, bottom)
    x = _i(attrs, "x")
    if x is None:
        x = _i(attrs, "left")
    y = _i(attrs, "y")
    if y is None:
        y = _i(attrs, "top")
    w, h = _i(attrs, "width"), _i(attrs, "height")
    if w is None or h is None:
        return None
    if x is None and y is None:
        x = y = 0  # a screen-sized wrapper (<hierarchy width height>, the fake driver's <app>)
    return Bounds(x or 0, y or 0, (x or 0) + w, (y or 0) + h)


_EDITABLE_CLASSES = ("EditText", "AutoCompleteTextView", "SearchView$SearchAutoComplete", "MockInputField")
_TRUE_EXACT = frozenset({"true"})


def _flag(value: str | None, default: bool) -> bool:
    if not value:
        return default
    return value == "true" or (value != "false" and value.lower() in _TRUE)


def _android_node(tag: str, attrs: dict[str, str], node_id: int) -> Node:
    # Hot path: every node of every capture (a tap parses the whole screen). Plain dict lookups with
    # ``or`` chains and one module-level flag parser; closures and per-attribute helpers cost ~3x more.
    get = attrs.get
    class_name = get("class") or get("className") or tag
    input_type = _i(attrs, "input-type") if "input-type" in attrs else (_i(attrs, "inputType") or 0)
    editable = (get("editable") == "true" or tag == "MockInputField"
                or class_name.endswith(_EDITABLE_CLASSES))
    node = Node(ANDROID, node_id, class_name, _bounds(attrs))
    node.text = get("text") or get("original-text") or None
    node.content_desc = get("content-desc") or get("contentDescription") or None
    node.hint = get("hint") or get("hintText") or None
    node.resource_id = get("resource-id") or get("resourceId") or None
    node.package = get("package") or None
    node.pane_title = get("pane-title") or get("paneTitle") or None
    node.error = get("error") or get("errorText") or None
    node.tooltip = get("tooltip-text") or None
    node.unique_id = get("unique-id") or get("uniqueId") or None
    node.labeled_by = get("labeled-by") or None
    node.state_description = get("state-description") or None
    node.role_description = get("role-description") or None
    node.compose_test_tag = get("test-tag") or None
    node.enabled = _flag(get("enabled"), True)
    node.clickable = _flag(get("clickable"), False)
    node.long_clickable = _flag(get("long-clickable"), False)
    node.checkable = _flag(get("checkable"), False)
    node.checked = _flag(get("checked"), False)
    node.selected = _flag(get("selected"), False)
    node.focusable = _flag(get("focusable"), False)
    node.focused = _flag(get("focused"), False)
    node.editable = editable
    node.scrollable = _flag(get("scrollable"), False)
    node.password = _flag(get("password"), False)
    node.heading = _flag(get("heading"), False)
    node.multiline = _flag(get("multiline"), False) or _flag(get("multiLine"), False)
    node.visible = _flag(get("displayed"), True) and _flag(get("visible"), True)
    node.important = _flag(get("a11y-important"), True)
    node.showing_hint = _flag(get("showing-hint"), False)
    node.input_type = input_type or 0
    if "collection-row-index" in attrs:
        node.collection_row = _i(attrs, "collection-row-index")
        node.collection_column = _i(attrs, "collection-column-index")
    if "collection-rows" in attrs:
        node.collection_rows = _i(attrs, "collection-rows")
        node.collection_columns = _i(attrs, "collection-columns")
    node.attrs = attrs
    return node


_IOS_EDITABLE = {"TextField", "SecureTextField", "SearchField", "TextView"}
_IOS_TOGGLES = {"Switch", "Toggle", "CheckBox"}
_IOS_INTERACTIVE = {"Button", "Cell", "Link", "Switch", "Toggle", "TextField", "SecureTextField", "SearchField",
                    "TextView", "Tab", "MenuItem", "SegmentedControl", "Slider", "Stepper", "PickerWheel",
                    "CheckBox", "Key", "Icon", "DatePicker", "ToolbarButton"}
_IOS_SCROLLABLE = {"ScrollView", "Table", "CollectionView", "WebView"}


def _ios_node(tag: str, attrs: dict[str, str], node_id: int) -> Node:
    class_name = _s(attrs, "type") or tag
    short = class_name.removeprefix(_IOS_PREFIX)
    value = _s(attrs, "value")
    label = _s(attrs, "label")
    placeholder = _s(attrs, "placeholderValue", "placeholder")
    is_toggle = short in _IOS_TOGGLES
    checked = is_toggle and value in ("1", "true", "on")
    node = Node(
        platform=IOS, node_id=node_id, class_name=class_name, bounds=_bounds(attrs),
        # Maestro's iOS mapping: text = title ?: value; accessibilityText = label; hint = placeholder.
        text=None if is_toggle else (_s(attrs, "title") or value), label=label, value=value,
        hint=placeholder, resource_id=_s(attrs, "name", "identifier"),
        enabled=_b(attrs, "enabled", True),
        clickable=_b(attrs, "hittable") if "hittable" in attrs and short not in _IOS_INTERACTIVE
        else short in _IOS_INTERACTIVE,
        checkable=is_toggle, checked=checked, selected=_b(attrs, "selected"),
        focused=_b(attrs, "focused") or _b(attrs, "hasFocus"), focusable=short in _IOS_EDITABLE,
        editable=short in _IOS_EDITABLE, scrollable=short in _IOS_SCROLLABLE,
        password=short == "SecureTextField", visible=_b(attrs, "visible", True), attrs=attrs,
    )
    return node


def detect_platform(source: str) -> str:
    """Guess the vocabulary of a page source (used when a driver runs against the fake driver)."""
    head = source[:4000]
    if "XCUIElementType" in head:
        return IOS
    return ANDROID


def parse_page_source(source: str | bytes, platform: str | None = None) -> Hierarchy:
    """Parse UiAutomator2, XCUITest or fake-driver XML into a ``Hierarchy``.

    ``platform`` picks the attribute vocabulary (``android``/``ios``); None guesses it from the XML.
    Raises ``ValueError`` with the parser's position when the XML is malformed.
    """
    text = decode_output(source)  # a device's text may hold lone surrogates (JSON from the server keeps them)
    plat = platform or detect_platform(text)
    try:
        element = ET.fromstring(text.encode("utf-8") if text.lstrip().startswith("<?xml") else text)
    except ET.ParseError as exc:
        raise ValueError(f"page source is not well-formed XML: {exc}") from None
    make = _android_node if plat == ANDROID else _ios_node
    nodes: list[Node] = []
    width = height = None

    # Wrapper elements carry no geometry of their own: UiAutomator2's <hierarchy>, the fake driver's
    # <AppiumAUT><app …>. They become the root node so paths and child order stay exact.
    def build(el: ET.Element, parent: Node | None, path: str) -> Node:
        node = make(el.tag, el.attrib, len(nodes))  # the tree is discarded: its attrib dicts are ours
        node.rtext = node.resolve_text
        node.parent = parent
        node.xpath = path
        nodes.append(node)
        counts: dict[str, int] = {}
        for child in el:
            if not isinstance(child.tag, str):
                continue
            counts[child.tag] = counts.get(child.tag, 0) + 1
            node.children.append(build(child, node, f"{path}/{child.tag}[{counts[child.tag]}]"))
        return node

    root = build(element, None, f"/{element.tag}")
    for node in nodes[:4]:
        if node.bounds is not None and node.bounds.width > 0 and node.bounds.height > 0:
            width, height = node.bounds.width, node.bounds.height
            break
    return Hierarchy(root=root, platform=plat, nodes=nodes, width=width, height=height, source=text)


def match_descriptor(node: Node) -> dict[str, Any]:
    """Upstream's ``MatchDescriptor`` (``MatchDescriptor.kt``): the child-index path from the root,
    the bounds, and the identity a script can act on — best text (text, hint, then the accessibility
    text), the accessibility text and the resource id."""
    path: list[int] = []
    current = node
    while current.parent is not None:
        path.append(current.parent.children.index(current))
        current = current.parent
    bounds = node.bounds
    return {"indexPath": path[::-1],
            "bounds": None if bounds is None else {"left": bounds.left, "top": bounds.top,
                                                    "right": bounds.right, "bottom": bounds.bottom},
            "matchedText": node.resolve_text, "accessibilityId": node.accessibility_text,
            "resourceId": node.resource_id}
