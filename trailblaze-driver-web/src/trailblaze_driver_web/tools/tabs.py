"""``web_switchTab`` and ``web_closeTab``: which open page tools act on.

A page an action opened is already current when the action returns (the rule in ``tabs.py``); these tools
go back to another tab, or close the current one, which makes the page current before it current again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import Field, model_validator
from trailblaze import ToolResult

from .common import WebTool, driver_for

if TYPE_CHECKING:
    from trailblaze import ToolContext


class WebSwitchTab(WebTool):
    """Make another open tab the page tools act on: by its index (0 is the first tab, in the order they
    opened, as the snapshot lists them), a part of its URL, or a part of its title. Give one of the three."""

    name: ClassVar[str] = "web_switchTab"
    is_read_only: ClassVar[bool] = True
    index: int | None = Field(None, ge=0, description="The tab's index in the snapshot's tab list (0: the first).")
    url: str | None = Field(None, min_length=1, description="A part of the tab's URL, e.g. 'policy.html'.")
    title: str | None = Field(None, min_length=1, description="A part of the tab's title, e.g. 'Expense policy'.")

    @model_validator(mode="after")
    def _one_way(self) -> WebSwitchTab:
        given = [k for k in ("index", "url", "title") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of index, url or title"
                             + (f" (got {', '.join(given)})" if given else ""))
        return self

    def execute(self, ctx: ToolContext) -> ToolResult:
        tab = driver_for(ctx).tabs.switch(index=self.index, url=self.url, title=self.title)
        return ToolResult(True, f"Switched to tab {tab.index}: {tab.title or '(untitled)'} — {tab.url}",
                          data={"index": tab.index, "url": tab.url, "title": tab.title})


class WebCloseTab(WebTool):
    """Close the current tab; the tab that was current before it becomes current again (closing a popup
    goes back to the page that opened it)."""

    name: ClassVar[str] = "web_closeTab"

    def execute(self, ctx: ToolContext) -> ToolResult:
        page = driver_for(ctx).tabs.close_current()
        return ToolResult(True, f"Closed the tab; now at {page.url}", data={"url": page.url})
