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

from ..selectors import REF, descriptor_locator, resolve
from .common import TargetedTool, driver_for, timeout_field, timeout_of, web_selector_or_none
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
    timeoutMs: int | None = timeout_field()

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        loc = drv.page.get_by_text(re.compile(re.escape(self.text))).filter(visible=True)
        timeout = timeout_of(drv, self.timeoutMs)
        shown = json.dumps(self.text, ensure_ascii=False)
        if poll(drv, lambda: True if _count(loc) == 0 else None, timeout) is None:
            raise ToolFailure(f"{self.name}: expected the text {shown} to be gone within {timeout} ms "
                              f"({drv.page.url}); it is still visible in {_describe(loc)}")
        return ToolResult(True, f"Text {shown} is not visible")


class WebVerifyElementNotVisible(WebVerification, TargetedTool):
    """Verify that an element is NOT visible: hidden, or not on the page at all; waits for it to go."""

    name: ClassVar[str] = "web_verifyElementNotVisible"

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        timeout = timeout_of(drv, self.timeoutMs)
        locate, description = self._candidates(drv)
        last: list[Locator] = []

        def gone() -> bool | None:
            loc = locate()
            if loc is None:
                return True
            visible = loc.filter(visible=True)
            last[:] = [visible]
            return True if _count(visible) == 0 else None

        if poll(drv, gone, timeout) is None:
            raise ToolFailure(f"{self.name}: expected {description} not to be visible within {timeout} ms "
                              f"({drv.page.url}); it is still visible: {_describe(last[0])}")
        return ToolResult(True, f"{description} is not visible")

    def _candidates(self, drv: PlaywrightDriver) -> tuple[Callable[[], Locator | None], str]:
        """A function giving the elements to watch (None: nothing can match), and how messages name them.

        Unlike the positive tools, nothing here waits for a match: no match is the answer we want.
        """
        page = drv.page
        node_selector = web_selector_or_none(self.nodeSelector, self.ref)
        if node_selector:
            sel = parse_selector(node_selector)
            try:
                resolve(page, sel, 0)
            except ValueError as exc:
                raise ToolFailure(f"{self.name}: {exc}") from None
            return (lambda: resolve(page, sel, 0).locator), sel.describe()
        ref = (self.ref or "").strip()
        if not ref:
            raise ToolFailure(f"{self.name}: give the element: 'ref' (an ARIA descriptor like "
                              "button \"Submit\", css=<selector>, or a snapshot ref like e12)")
        if REF.match(ref):
            loc = page.locator(f"aria-ref={ref}")
            return (lambda: loc), f"ref {ref}"
        if ref.startswith("css="):
            css = ref[4:].strip()
            if not css:
                raise ToolFailure(f"{self.name}: 'css=' needs a selector after it")
            found = page.locator(css)
            return (lambda: found), f"css={css}"
        described = descriptor_locator(page, ref)
        if described is None:
            raise ToolFailure(f"{self.name}: ref '{ref}' is not a snapshot ref (e12), an ARIA descriptor "
                              "(button \"Submit\") or css=<selector>")
        return (lambda: described), ref


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
