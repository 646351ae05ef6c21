"""Assertions and selector helpers: the recorded ``*BySelector`` forms, the by-ref ``assertVisible``, the
negative text assert and the deprecated by-text tools old recordings still use."""

from __future__ import annotations

import time
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator
from trailblaze import DelegatingTool, NodeSelector, Tool, ToolCall, ToolContext, ToolResult

from ..generator import best_selector
from ..hierarchy import ANDROID, Hierarchy, Node
from ..patterns import escape_for_selector, lenient_pattern, matches
from ..selectors import resolve
from .common import (
    MOBILE_DRIVERS,
    MobileTool,
    appium_driver,
    maestro_match,
    native_text,
    selector,
    selector_field,
    validate_selector,
)
from .taps import REF_TIMEOUT_MS, tap_selector


def _text_ok(actual: str | None, expected: str, mode: str) -> bool:
    if actual is None:
        return False
    a, e = actual.strip(), expected.strip()
    if mode == "PREFIX":
        return a.startswith(e)
    if mode == "REGEX":
        return matches(expected, actual)
    return a == e


def assert_visible(ctx: ToolContext, sel: NodeSelector, *, timeout_ms: int | None = None,
                   expected_text: str | None = None, mode: str = "EXACT") -> ToolResult:
    drv = appium_driver(ctx)
    seen: list[Node] = []

    def attempt(h: Hierarchy) -> Node | None:
        result = resolve(h, sel)
        seen[:] = result.nodes[:1]
        if not result.nodes:
            return None
        node = result.nodes[0]
        if expected_text is not None and not _text_ok(native_text(node), expected_text, mode):
            return None
        return node

    _h, node = drv.poll(attempt, timeout_ms)
    if node is not None:
        return ToolResult.ok(f"Verified {node.describe()} visible")
    if seen and expected_text is not None:
        return ToolResult.fail(f"{seen[0].describe()} is visible but its text is {native_text(seen[0])!r}, expected "
                               f"{expected_text!r} ({mode})")
    return ToolResult.fail(f"Element not visible: {sel.description()}")


def assert_not_visible(ctx: ToolContext, sel: NodeSelector, *, timeout_ms: int | None = None) -> ToolResult:
    drv = appium_driver(ctx)
    last: list[Node] = []

    def attempt(h: Hierarchy) -> bool | None:
        found = resolve(h, sel).nodes
        last[:] = found[:1]
        return True if not found else None

    _h, gone = drv.poll(attempt, timeout_ms)
    if gone:
        return ToolResult.ok(f"Verified not visible: {sel.description()}")
    waited = drv.cfg.wait_timeout_ms if timeout_ms is None else timeout_ms
    return ToolResult.fail(f"Element is still visible after {waited} ms: "
                           f"{last[0].describe() if last else sel.description()}")


class AssertVisibleBySelectorTool(MobileTool):
    """Assert that the element a node selector resolves to is visible (waits up to timeoutMs)."""

    name = "assertVisibleBySelector"
    surface_to_llm = False
    is_verification = True
    nodeSelector: dict[str, Any] = selector_field("The recorded node selector.")
    timeoutMs: int | None = Field(None, ge=0, description="How long to wait for the element.")
    expectedText: str | None = Field(None, description="The element's text must also equal this.")
    textMatchMode: Literal["EXACT", "PREFIX", "REGEX"] = Field("EXACT", description="How expectedText compares.")
    reason: str | None = None

    @field_validator("nodeSelector")
    @classmethod
    def check_selector(cls, value: dict[str, Any]) -> dict[str, Any]:
        return validate_selector(value, "nodeSelector")

    @field_validator("textMatchMode", mode="before")
    @classmethod
    def upper_mode(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    def execute(self, ctx: ToolContext) -> ToolResult:
        return assert_visible(ctx, selector(self.nodeSelector), timeout_ms=self.timeoutMs,
                              expected_text=self.expectedText, mode=self.textMatchMode)


class AssertNotVisibleBySelectorTool(MobileTool):
    """Assert that no element matches a node selector (waits up to timeoutMs for it to go away)."""

    name = "assertNotVisibleBySelector"
    surface_to_llm = False
    is_verification = True
    nodeSelector: dict[str, Any] = selector_field("The recorded node selector.")
    timeoutMs: int | None = Field(None, ge=0, description="How long to wait for the element to disappear.")
    reason: str | None = None

    @field_validator("nodeSelector")
    @classmethod
    def check_selector(cls, value: dict[str, Any]) -> dict[str, Any]:
        return validate_selector(value, "nodeSelector")

    def execute(self, ctx: ToolContext) -> ToolResult:
        return assert_not_visible(ctx, selector(self.nodeSelector), timeout_ms=self.timeoutMs)


class AssertVisibleTool(DelegatingTool):
    """Assert that the element with this snapshot ref is visible, optionally with the expected text."""

    name = "assertVisible"
    drivers: ClassVar[frozenset[str] | None] = MOBILE_DRIVERS
    is_recordable = False  # records the assertVisibleBySelector it expands to
    is_verification = True
    toolsets = ("verification",)
    ref: str = Field(..., description="The element ref from the snapshot (e.g. 'y778').")
    expectedText: str | None = Field(None, description="Text the element must show.")
    reasoning: str | None = Field(None, description="Why this proves the step.")

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        drv = appium_driver(ctx)
        h, node = drv.find_ref(self.ref, REF_TIMEOUT_MS)
        sel = best_selector(h, node)
        if sel is None:
            from trailblaze import ToolFailure

            raise ToolFailure(f"assertVisible: ref '{self.ref}' ({node.describe()}) has nothing a selector can "
                              "check; assert on a labelled element")
        args: dict[str, Any] = {"nodeSelector": sel.to_yaml()}
        if self.expectedText is not None:
            args["expectedText"] = self.expectedText
        if self.reasoning:
            args["reason"] = self.reasoning
        return [ToolCall("assertVisibleBySelector", args)]


def _text_selector(platform: str, *, text: str | None = None, accessibility: str | None = None,
                   resource_id: str | None = None, index: int | None = None, enabled: bool | None = None,
                   selected: bool | None = None, lenient: bool = False) -> NodeSelector:
    pattern = None
    if text is not None:
        pattern = lenient_pattern(text) if lenient else text
    raw = maestro_match(platform, textRegex=pattern, accessibilityTextRegex=accessibility,
                        resourceIdRegex=resource_id, enabled=enabled, selected=selected)
    if index:
        raw["index"] = index
    return selector(raw)


class AssertNotVisibleWithTextTool(MobileTool):
    """Assert that no element shows this text (case-insensitive; the text may be a regex). Waits for it to
    go away. Use for expect/verify/confirm steps about something that must be absent."""

    name = "assertNotVisibleWithText"
    is_verification = True
    toolsets = ("verification",)
    text: str = Field(..., description="The text that must not be visible.")
    index: int = Field(0, ge=0, description="0-based index among matches.")
    id: str | None = Field(None, description="Resource id regex to narrow the match.")
    enabled: bool | None = None
    selected: bool | None = None
    timeoutMs: int | None = Field(None, ge=0, description="How long to wait for it to go (default: the "
                                                           "driver's wait_timeout_ms).")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        platform = drv.platform
        raw: dict[str, Any]
        pattern = lenient_pattern(self.text)
        if platform == ANDROID:
            fields = {"textRegex": pattern, "resourceIdRegex": self.id, "isEnabled": self.enabled,
                      "isSelected": self.selected}
            raw = {"androidAccessibility": {k: v for k, v in fields.items() if v is not None}}
        else:
            fields = {"textRegex": pattern, "resourceIdRegex": self.id, "selected": self.selected}
            raw = {"iosMaestro": {k: v for k, v in fields.items() if v is not None}}
        if self.index:
            raw["index"] = self.index
        result = assert_not_visible(ctx, selector(raw), timeout_ms=self.timeoutMs)
        return ToolResult.ok(f"Verified '{self.text}' not visible") if result.success else result


class WaitUntilNotVisibleTool(MobileTool):
    """Wait until no element matches the selector; reports a verdict instead of failing."""

    name = "waitUntilNotVisible"
    surface_to_llm = False
    is_recordable = False
    nodeSelector: dict[str, Any] = selector_field("Node selector.")
    timeoutMs: int | None = Field(None, ge=0)

    @field_validator("nodeSelector")
    @classmethod
    def check_selector(cls, value: dict[str, Any]) -> dict[str, Any]:
        return validate_selector(value, "nodeSelector")

    def execute(self, ctx: ToolContext) -> ToolResult:
        start = time.monotonic()
        result = assert_not_visible(ctx, selector(self.nodeSelector), timeout_ms=self.timeoutMs)
        gone = result.success
        return ToolResult.ok("not visible" if gone else "still visible",
                             data={"notVisible": gone, "elapsedMs": int((time.monotonic() - start) * 1000)})


# -- deprecated by-text tools (old recordings; not offered to models) --------------------------------
class _ByText(MobileTool):
    surface_to_llm = False
    index: int = Field(0, ge=0)
    id: str | None = None
    enabled: bool | None = None
    selected: bool | None = None


class TapOnElementWithTextTool(_ByText):
    """Deprecated: tap the element showing `text` (a regex). Use tap(ref) / tapOnElementBySelector."""

    name = "tapOnElementWithText"
    text: str

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        sel = _text_selector(drv.platform, text=self.text, resource_id=self.id, index=self.index,
                             enabled=self.enabled, selected=self.selected)
        return tap_selector(ctx, sel.to_yaml())


class TapOnElementWithAccessibilityTextTool(_ByText):
    """Deprecated: tap the element whose accessibility text (content description) matches."""

    name = "tapOnElementWithAccessibilityText"
    accessibilityText: str

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        sel = _text_selector(drv.platform, accessibility=self.accessibilityText, resource_id=self.id,
                             index=self.index, enabled=self.enabled, selected=self.selected)
        return tap_selector(ctx, sel.to_yaml())


class LongPressOnElementWithTextTool(_ByText):
    """Deprecated: long-press the element showing `text`."""

    name = "longPressOnElementWithText"
    text: str

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        sel = _text_selector(drv.platform, text=self.text, resource_id=self.id, index=self.index,
                             enabled=self.enabled, selected=self.selected)
        return tap_selector(ctx, sel.to_yaml(), long_press=True)


class LongPressElementWithAccessibilityTextTool(_ByText):
    """Deprecated: long-press the element whose accessibility text matches."""

    name = "longPressElementWithAccessibilityText"
    accessibilityText: str

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        sel = _text_selector(drv.platform, accessibility=self.accessibilityText, resource_id=self.id,
                             index=self.index, enabled=self.enabled, selected=self.selected)
        return tap_selector(ctx, sel.to_yaml(), long_press=True)


class AssertVisibleWithTextTool(_ByText):
    """Deprecated: assert an element showing `text` is visible."""

    name = "assertVisibleWithText"
    is_verification = True
    text: str

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        return assert_visible(ctx, _text_selector(drv.platform, text=self.text, resource_id=self.id,
                                                  index=self.index, enabled=self.enabled, selected=self.selected))


class AssertVisibleWithAccessibilityTextTool(_ByText):
    """Deprecated: assert an element with this accessibility text is visible."""

    name = "assertVisibleWithAccessibilityText"
    is_verification = True
    accessibilityText: str

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        return assert_visible(ctx, _text_selector(drv.platform, accessibility=self.accessibilityText,
                                                  resource_id=self.id, index=self.index, enabled=self.enabled,
                                                  selected=self.selected))


class AssertVisibleWithResourceIdTool(_ByText):
    """Deprecated: assert an element with this resource id is visible."""

    name = "assertVisibleWithResourceId"
    is_verification = True
    resourceId: str

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        return assert_visible(ctx, _text_selector(drv.platform, resource_id=self.resourceId, index=self.index,
                                                  enabled=self.enabled, selected=self.selected))


TOOLS: list[type[Tool]] = [
    AssertVisibleBySelectorTool, AssertNotVisibleBySelectorTool, AssertVisibleTool, AssertNotVisibleWithTextTool,
    WaitUntilNotVisibleTool, TapOnElementWithTextTool, TapOnElementWithAccessibilityTextTool,
    LongPressOnElementWithTextTool, LongPressElementWithAccessibilityTextTool, AssertVisibleWithTextTool,
    AssertVisibleWithAccessibilityTextTool, AssertVisibleWithResourceIdTool,
]

__all__ = ["TOOLS", "assert_not_visible", "assert_visible", "escape_for_selector"]


def __getattr__(name: str) -> Any:
    """``FindMatchesTool`` moved to the core (``findMatches`` runs on every driver now): the old name
    still imports, with a DeprecationWarning, for one minor version."""
    if name == "FindMatchesTool":
        import importlib
        import warnings

        warnings.warn("trailblaze_driver_android.appium.tools.verification.FindMatchesTool moved to the core: "
                      "the tool is 'findMatches' on every driver (trailblaze.builtin.match_tool)",
                      DeprecationWarning, stacklevel=2)
        return importlib.import_module("trailblaze.builtin.match_tool").FindMatchesTool
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
