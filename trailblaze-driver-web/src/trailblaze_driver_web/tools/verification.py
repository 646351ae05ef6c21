"""Web verification tools (toolset ``web_verification``) and ``web_evaluate`` (``web_framework``).

Verifications poll until the configured timeout (``timeout_ms``, 5 s by default) and then fail with
what was expected and what the page showed, so a failed run explains itself without a re-run.
"""

from __future__ import annotations

import difflib
import json
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import Field, field_validator
from trailblaze import ToolFailure, ToolResult

from ..frames import FrameScope
from ..targets import Target, frame_scopes, what_the_page_has
from .common import (
    CASE_INSENSITIVE,
    REF_DESCRIPTION,
    TargetedTool,
    WebTool,
    driver_for,
    first_line,
    frame_field,
    timeout_field,
    timeout_of,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator
    from trailblaze import ToolContext

    from ..driver import PlaywrightDriver
    from ..selectors import Root

T = TypeVar("T")
POLL_S = 0.1


def poll(drv: PlaywrightDriver, check: Callable[[], T | None], timeout_ms: int) -> T | None:
    """Call ``check`` until it returns a value or the timeout passes (at least once)."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        value = check()
        if value is not None or time.monotonic() >= deadline:
            return value
        drv.page.wait_for_timeout(POLL_S * 1000)


def visible_text(page: Root) -> str:
    try:
        return str(page.locator("body").inner_text(timeout=1000))
    except Exception:  # noqa: BLE001
        return ""


def scopes_text(scopes: list[FrameScope]) -> str:
    """The visible text of every frame looked in, the page first: what a failed text check compares."""
    return "\n".join(visible_text(s.root) for s in scopes)


def closest_lines(text: str, wanted: str, n: int = 3) -> list[str]:
    """Up to ``n`` lines that look like ``wanted``: only real near-misses (a ratio of 0.6 or more, and
    close to the best one), so a short word does not drag in every other short word ("Title")."""
    lines = [" ".join(ln.split()) for ln in text.splitlines() if ln.strip()]
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(wanted.lower())
    whole: list[tuple[float, str]] = []
    for ln in dict.fromkeys(lines):
        matcher.set_seq1(ln.lower())
        if matcher.real_quick_ratio() >= 0.6 and matcher.quick_ratio() >= 0.6:
            whole.append((matcher.ratio(), ln))
    whole.sort(key=lambda item: -item[0])
    close = [ln for r, ln in whole[:n] if r >= 0.6 and r >= whole[0][0] - 0.15]
    if not close:
        # Long lines rarely match a short expectation as a whole: compare fragments of the same length.
        scored = []
        for ln in lines:
            ratio = max((difflib.SequenceMatcher(None, wanted.lower(), ln[i:i + len(wanted)].lower()).ratio()
                         for i in range(0, max(1, len(ln) - len(wanted) + 1), max(1, len(wanted) // 3))),
                        default=0.0)
            scored.append((ratio, ln))
        scored.sort(key=lambda item: -item[0])
        best = scored[0][0] if scored else 0.0
        close = [ln for r, ln in scored[:n] if r >= 0.7 and r >= best - 0.1]
    return [c if len(c) <= 120 else c[:119] + "…" for c in close]


def _page_says(scopes: list[FrameScope], wanted: str) -> str:
    text = scopes_text(scopes)
    close = closest_lines(text, wanted)
    if close:
        return "closest text on the page: " + "; ".join(json.dumps(c, ensure_ascii=False) for c in close)
    flat = " ".join(text.split())
    return "the page shows: " + json.dumps(flat[:300] + ("…" if len(flat) > 300 else ""), ensure_ascii=False)


def _is_visible(loc: Locator) -> bool:
    try:
        return bool(loc.is_visible())
    except Exception:  # noqa: BLE001
        return False


class WebVerification(WebTool):
    is_verification: ClassVar[bool] = True
    is_recordable: ClassVar[bool] = False
    toolsets: ClassVar[tuple[str, ...]] = ("web_verification",)


class WebVerifyTextVisible(WebVerification):
    """Verify that text is visible on the page (case-sensitive substring of an element's text)."""

    name: ClassVar[str] = "web_verifyTextVisible"
    is_core: ClassVar[bool] = True
    text: str = Field(..., description="The text that must be visible.")
    frame: str | None = frame_field()
    timeoutMs: int | None = timeout_field()

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        page = drv.page
        timeout = timeout_of(drv, self.timeoutMs)
        pattern = re.compile(re.escape(self.text))
        found: list[FrameScope] = []

        def visible() -> bool | None:
            # Frames are looked up on each poll (a frame that loads late counts); ``page.frames`` is local.
            for scope in frame_scopes(drv, self.frame, self.name, timeout):
                if _is_visible(scope.root.get_by_text(pattern).filter(visible=True).first):
                    found[:] = [scope]
                    return True
            return None

        if poll(drv, visible, timeout) is None:
            scopes = frame_scopes(drv, self.frame, self.name, timeout)
            raise ToolFailure(f"web_verifyTextVisible: expected the text {json.dumps(self.text, ensure_ascii=False)} "
                              f"to be visible within {timeout} ms ({page.url}{_frames_note(scopes)}); "
                              f"{_page_says(scopes, self.text)}")
        where = f" in {found[0].short()}" if found and not found[0].is_page else ""
        return ToolResult(True, f"Text {json.dumps(self.text, ensure_ascii=False)} is visible{where}")


def _frames_note(scopes: list[FrameScope]) -> str:
    if len(scopes) == 1:
        return "" if scopes[0].is_page else f", in {scopes[0].short()}"
    return f", and its {len(scopes) - 1} frames"


class WebVerifyElementVisible(WebVerification, TargetedTool):
    """Verify that an element is visible."""

    name: ClassVar[str] = "web_verifyElementVisible"
    is_core: ClassVar[bool] = True

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        timeout = timeout_of(drv, self.timeoutMs)
        start = time.monotonic()
        target = self.target(drv, replaying=ctx.replaying)
        left = max(0, int(timeout - (time.monotonic() - start) * 1000))
        if poll(drv, lambda: True if _is_visible(target.locator) else None, left) is None:
            count = _count(target.locator)
            if count == 0:
                raise ToolFailure(f"web_verifyElementVisible: expected {target.description} to be visible within "
                                  f"{timeout} ms, but no element matches; "
                                  f"{what_the_page_has(drv, target.role, target.name, scopes=_scopes(target))}")
            raise ToolFailure(f"web_verifyElementVisible: expected {target.description} to be visible within "
                              f"{timeout} ms; it is on the page but hidden")
        return ToolResult(True, f"{target.description} is visible", recorded_args=target.recorded)


def _scopes(target: Target) -> list[FrameScope] | None:
    return [target.scope] if target.scope is not None else None


def _count(loc: Locator) -> int:
    try:
        return int(loc.count())
    except Exception:  # noqa: BLE001
        return 0


class WebVerifyValue(WebVerification, TargetedTool):
    """Verify an element's text (TEXT), an input's value (VALUE) or an attribute (ATTRIBUTE) equals the
    expected string. Without a ref, the focused element is checked."""

    name: ClassVar[str] = "web_verifyValue"
    expected: str = Field(..., description="The expected text, value or attribute value.")
    type: Annotated[Literal["TEXT", "VALUE", "ATTRIBUTE"], CASE_INSENSITIVE] = Field("TEXT", description="TEXT, VALUE or ATTRIBUTE.")
    attribute: str | None = Field(None, description="The attribute name, for type ATTRIBUTE.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        if self.type == "ATTRIBUTE" and not self.attribute:
            raise ToolFailure("web_verifyValue: type ATTRIBUTE needs 'attribute'")
        drv = driver_for(ctx)
        if self.ref is None and self.nodeSelector is None:
            self.ref = "css=:focus"
        target = self.target(drv, replaying=ctx.replaying)
        timeout = timeout_of(drv, self.timeoutMs)
        seen: list[str | None] = []
        expected = " ".join(self.expected.split()) if self.type == "TEXT" else self.expected

        def check() -> bool | None:
            value = self._read(target.locator)
            seen[:] = [value]
            return True if value == expected else None

        if poll(drv, check, timeout) is None:
            what = {"TEXT": "text", "VALUE": "value", "ATTRIBUTE": f"attribute '{self.attribute}'"}[self.type]
            actual = seen[0] if seen else None
            if actual is None and _count(target.locator) == 0:
                raise ToolFailure(f"web_verifyValue: expected the {what} of {target.description} to be "
                                  f"{json.dumps(expected, ensure_ascii=False)}, but no element matches within "
                                  f"{timeout} ms; {what_the_page_has(drv, target.role, target.name, scopes=_scopes(target))}")
            shown = "nothing" if actual is None else json.dumps(actual, ensure_ascii=False)
            raise ToolFailure(f"web_verifyValue: expected the {what} of {target.description} to be "
                              f"{json.dumps(expected, ensure_ascii=False)} within {timeout} ms; the page has {shown}")
        return ToolResult(True, f"{target.description} has {self.type.lower()} {json.dumps(expected, ensure_ascii=False)}",
                          recorded_args=target.recorded)

    def _read(self, loc: Locator) -> str | None:
        """One round trip: the read itself waits (briefly) for the element, where a count first would cost
        a second one on every check; a missing element times out here and the poll tries again."""
        try:
            if self.type == "VALUE":
                return str(loc.input_value(timeout=500))
            if self.type == "ATTRIBUTE":
                value = loc.get_attribute(self.attribute or "", timeout=500)
                return None if value is None else str(value)
            return " ".join(str(loc.inner_text(timeout=500)).split())
        except Exception:  # noqa: BLE001 - detached mid-read: poll again
            return None


class WebVerifyListVisible(WebVerification, TargetedTool):
    """Verify that every item of a list of texts is visible (inside the element given by ref, or anywhere)."""

    name: ClassVar[str] = "web_verifyListVisible"
    ref: str | None = Field(None, description=REF_DESCRIPTION + " Omit to search the whole page.")
    items: list[str] = Field(..., min_length=1, description="Texts that must all be visible.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        target: Target | None = None
        if self.ref is not None or self.nodeSelector is not None:
            target = self.target(drv, replaying=ctx.replaying)
        timeout = timeout_of(drv, self.timeoutMs)
        missing: list[str] = []

        def where_to_look() -> list[Root | Locator]:
            if target is not None:
                return [target.locator]
            return [s.root for s in frame_scopes(drv, self.frame, self.name, timeout)]

        def check() -> bool | None:
            scopes = where_to_look()
            missing[:] = [item for item in self.items
                          if not any(_is_visible(scope.get_by_text(re.compile(re.escape(item))).filter(visible=True).first)
                                     for scope in scopes)]
            return True if not missing else None

        if poll(drv, check, timeout) is None:
            if target is not None:
                where = f"in {target.description}"
                try:
                    shown = " ".join(str(target.locator.inner_text(timeout=500)).split())
                except Exception:  # noqa: BLE001
                    shown = ""
            else:
                scopes = frame_scopes(drv, self.frame, self.name, timeout)
                where = "on the page" + _frames_note(scopes)
                shown = " ".join(scopes_text(scopes).split())
            found = [i for i in self.items if i not in missing]
            raise ToolFailure(
                f"web_verifyListVisible: expected {len(self.items)} items to be visible {where} within {timeout} ms; "
                f"missing {', '.join(json.dumps(m, ensure_ascii=False) for m in missing)}"
                + (f" (found {', '.join(json.dumps(f, ensure_ascii=False) for f in found)})" if found else "")
                + (f"; it shows: {json.dumps(shown[:300], ensure_ascii=False)}" if shown else ""))
        return ToolResult(True, f"All {len(self.items)} items are visible",
                          recorded_args=target.recorded if target else None)


class WebAssertNetworkEvent(WebVerification):
    """Verify that the page sent a network request naming an event (an analytics beacon, an API call).
    eventName is matched case-insensitively against every captured request's URL and body."""

    name: ClassVar[str] = "web_assertNetworkEvent"
    eventName: str = Field(..., min_length=1, description=(
        "The event name to look for in captured network traffic, matched case-insensitively against "
        "request URLs and request bodies."))
    timeoutMs: int = Field(5000, ge=0, description=(
        "How long to wait for the request, in milliseconds (one full scan always runs)."))

    @field_validator("eventName")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("eventName must not be blank")
        return value

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        needle = self.eventName.lower()
        found = poll(drv, lambda: next((r for r in drv.events.sent() if r.mentions(needle)), None), self.timeoutMs)
        name = json.dumps(self.eventName, ensure_ascii=False)
        if found is None:
            seen = drv.events.sent()
            last = f"; the last was {seen[-1].method} {seen[-1].url}" if seen else ""
            raise ToolFailure(f"web_assertNetworkEvent: no request the page sent mentions {name} in its URL or "
                              f"body within {self.timeoutMs} ms ({len(seen)} requests captured{last})")
        return ToolResult(True, f"Network event {name} found: {found.method} {found.url}",
                          data={"method": found.method, "url": found.url})


class WebEvaluate(WebTool):
    """Evaluate a JavaScript expression in the page and return its JSON result (for scripts and tools, not
    offered to the model). With 'variable', the result is also remembered in memory."""

    name: ClassVar[str] = "web_evaluate"
    surface_to_llm: ClassVar[bool] = False
    is_recordable: ClassVar[bool] = False
    toolsets: ClassVar[tuple[str, ...]] = ("web_framework",)
    script: str = Field(..., description="A JavaScript expression (or a function source) to evaluate.")
    variable: str | None = Field(None, description="Remember the result (as text) under this memory key.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        from playwright.sync_api import Error as PlaywrightError

        drv = driver_for(ctx)
        try:
            with drv.acting():
                value: Any = drv.page.evaluate(self.script)
        except PlaywrightError as exc:
            raise ToolFailure(f"web_evaluate: the script failed: {first_line(exc.message)}") from None
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        if self.variable:
            ctx.memory.remember(self.variable, text)
        return ToolResult(True, text, data={"result": value})
