"""``findMatches``: every element a selector picks on the current screen, as upstream's ``MatchDescriptor``
list (``FindMatchesTrailblazeTool.kt``) — the query typed tools build ``captureViewHierarchy`` and their
own visibility gates on (``matches.length``, ``m.bounds``).

One tool for every driver: each driver answers through ``Driver.find_matches`` with its own selector
resolver (the one its tools act with), so a script reads the same shape on web, Android and iOS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from ..tools.base import Tool, ToolResult

if TYPE_CHECKING:
    from ..context import ToolContext


class FindMatchesTool(Tool):
    """Every element a selector matches on the current screen, as MatchDescriptor objects (indexPath,
    bounds, matchedText, accessibilityId, resourceId); read-only, for scripts."""

    name = "findMatches"
    surface_to_llm = False
    is_recordable = False
    selector: dict[str, Any] = Field(..., description="Selector to match against the current screen.",
                                     json_schema_extra={"hidden_from_llm": True})
    timeoutMs: int | None = Field(None, ge=0, description="Poll until at least one match appears, up to this "
                                                          "many milliseconds; one look when left out.")

    @field_validator("selector")
    @classmethod
    def _check(cls, value: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise ValueError(f"selector must be a map of selector fields, got {type(value).__name__}")  # noqa: TRY004 - pydantic validators report with ValueError
        # here: loading the builtin plugin must not pay for the selector models
        from ..selectors import parse_selector

        parse_selector(value, owner="selector")
        return value

    def execute(self, ctx: ToolContext) -> ToolResult:
        driver = ctx.driver
        if driver is None:
            return ToolResult.fail("findMatches needs a device to look at")
        from ..selectors import parse_selector

        matches = driver.find_matches(parse_selector(self.selector, owner="selector"), self.timeoutMs)
        plural = "" if len(matches) == 1 else "es"
        return ToolResult.ok(f"findMatches: {len(matches)} match{plural}", data=matches)
