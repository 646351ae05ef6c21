"""Negative web assertions: text or an element that must be gone (a spinner, a dialog, a deleted row).

They poll, as the positive ones do, because "not there yet" and "gone" look the same at the first
look: the assertion passes the moment the page stops showing the thing, and fails after ``timeoutMs``
with what the page still shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field
from trailblaze import ToolFailure, ToolResult, parse_selector

from ..frames import FrameScope, page_scopes
from ..selectors import REF, descriptor_locator, resolve
from ..targets import frame_scopes
from .common import TargetedTool, driver_for, frame_field, timeout_field, timeout_of, web_selector_or_none
from .verification import WebVerification, poll

if TYPE_CHECKING:
    from playwright.sync_api import Locator
    from trailblaze import ToolContext

    from ..driver import PlaywrightDriver


class WebVerifyTextNotVisible(WebVerification):
    """Verify that text is NOT visible on the page (a spinner's "Loading…", a dismissed message); waits
    for it to disappear."""

    name: ClassVar[str] = "web_verifyTextNotVisible"
    text: str = Field(..., description="The text that must not be visible (case-sensitive substring).")
    frame: str | None = frame_field()
    timeoutMs: int | None = timeout_field()

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        pattern = re.compile(re.escape(self.text))
        timeout = timeout_of(drv, self.timeoutMs)
        shown = json.dumps(self.text, ensure_ascii=False)
        last: list[tuple[FrameScope, Locator]] = []

        def gone() -> bool | None:
            for scope in frame_scopes(drv, self.frame, self.name, timeout):
                loc = scope.root.get_by_text(pattern).filter(visible=True)
                if _count(loc) != 0:
                    last[:] = [(scope, loc)]
                    return None
            return True

        if poll(drv, gone, timeout) is None:
            scope, loc = last[0]
            where = "" if scope.is_page else f" in {scope.describe()}"
            raise ToolFailure(f"{self.name}: expected the text {shown} to be gone within {timeout} ms "
                              f"({drv.page.url}); it is still visible{where} in {_describe(loc)}")
        return ToolResult(True, f"Text {shown} is not visible")


class WebVerifyElementNotVisible(WebVerification, TargetedTool):
    """Verify that an element is NOT visible: hidden, or not on the page at all; waits for it to go."""

    name: ClassVar[str] = "web_verifyElementNotVisible"

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        timeout = timeout_of(drv, self.timeoutMs)
        locate, description = self._candidates(drv, timeout)
        last: list[Locator] = []

        def gone() -> bool | None:
            for loc in locate():
                visible = loc.filter(visible=True)
                if _count(visible) != 0:
                    last[:] = [visible]
                    return None
            return True

        if poll(drv, gone, timeout) is None:
            raise ToolFailure(f"{self.name}: expected {description} not to be visible within {timeout} ms "
                              f"({drv.page.url}); it is still visible: {_describe(last[0])}")
        return ToolResult(True, f"{description} is not visible")

    def _candidates(self, drv: PlaywrightDriver, timeout: int) -> tuple[Callable[[], list[Locator]], str]:
        """A function giving the elements to watch, in every frame looked in (none: nothing can match),
        and how messages name them.

        Unlike the positive tools, nothing here waits for a match: no match is the answer we want.
        """
        page = drv.page
        scoped = self.frame is not None and bool(self.frame.strip())
        fixed = frame_scopes(drv, self.frame, self.name, timeout) if scoped else None

        def scopes() -> list[FrameScope]:
            return fixed if fixed is not None else page_scopes(page)

        suffix = f" in {self.frame.strip()}" if scoped and self.frame else ""
        node_selector = web_selector_or_none(self.nodeSelector, self.ref)
        if node_selector:
            sel = parse_selector(node_selector)
            try:
                resolve(page, sel, 0)
            except ValueError as exc:
                raise ToolFailure(f"{self.name}: {exc}") from None

            def by_selector() -> list[Locator]:
                found = (resolve(s.root, sel, 0).locator for s in scopes())
                return [loc for loc in found if loc is not None]

            return by_selector, sel.describe() + suffix
        ref = (self.ref or "").strip()
        if not ref:
            raise ToolFailure(f"{self.name}: give the element: 'ref' (an ARIA descriptor like "
                              "button \"Submit\", css=<selector>, or a snapshot ref like e12)")
        if REF.match(ref):
            loc = page.locator(f"aria-ref={ref}")
            return (lambda: [loc]), f"ref {ref}"
        if ref.startswith("css="):
            css = ref[4:].strip()
            if not css:
                raise ToolFailure(f"{self.name}: 'css=' needs a selector after it")
            return (lambda: [s.root.locator(css) for s in scopes()]), f"css={css}{suffix}"
        if descriptor_locator(page, ref) is None:
            raise ToolFailure(f"{self.name}: ref '{ref}' is not a snapshot ref (e12), an ARIA descriptor "
                              "(button \"Submit\") or css=<selector>")

        def by_descriptor() -> list[Locator]:
            found = (descriptor_locator(s.root, ref) for s in scopes())
            return [loc for loc in found if loc is not None]

        return by_descriptor, ref + suffix


def _count(loc: Locator) -> int:
    try:
        return int(loc.count())
    except Exception:  # noqa: BLE001 - the page navigated mid-count: look again
        return -1


def _describe(loc: Locator) -> str:
    """The first still-visible match as a reader would spot it: its tag, role and text."""
    try:
        info: dict[str, Any] = loc.first.evaluate(
            "el => ({tag: el.localName, role: el.getAttribute('role') || '', "
            "text: (el.innerText || el.value || '')})",
            timeout=1000)
    except Exception:  # noqa: BLE001
        return "an element that could not be read"
    text = " ".join(str(info.get("text", "")).split())
    text = text if len(text) <= 120 else text[:119] + "…"
    role = f' role="{info["role"]}"' if info.get("role") else ""
    return f"<{info.get('tag', '?')}{role}> {json.dumps(text, ensure_ascii=False)}"
