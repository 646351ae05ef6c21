"""``assertWaypoint``: the screen has reached a named waypoint (upstream's ``AssertWaypointTrailblazeTool``).

Same parameters and defaults (``waypoint``, ``timeoutMs`` 5000, ``pollIntervalMs`` 250), same toolsets
(``verification``, ``web_verification``, ``compose_verification`` upstream), host-side. It polls
:func:`trailblaze.waypoints.poll` with the session's driver, so every driver that can count selector
matches (web, Android, iOS) supports it without a line of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from ..tools.base import Tool, ToolResult

if TYPE_CHECKING:
    from ..context import ToolContext, ToolSession
    from ..waypoints.model import Waypoints

_KEY = "trailblaze.waypoints"


def session_waypoints(ctx: ToolContext) -> Waypoints:
    """The workspace's waypoints, loaded once per session."""
    from ..waypoints.model import Waypoints, load_workspace_waypoints

    found = ctx.session.resources.get(_KEY)
    if not isinstance(found, Waypoints):
        found = ctx.session.resources[_KEY] = load_workspace_waypoints(ctx.session.workspace)
    return found


def target_app_ids(session: ToolSession, platform: str) -> list[str]:
    """The app ids the session's target declares for ``platform`` (``{{target.appId}}`` in selectors)."""
    info = session.target_info
    return list(info.platform(platform).app_ids) if info is not None else []


class AssertWaypointTool(Tool):
    """Assert that the current screen has reached a named waypoint (a known place in the app). Waits up to
    timeoutMs for all of its required selectors to be present and none of its forbidden ones; fails with
    the missing-required / present-forbidden difference otherwise."""

    name = "assertWaypoint"
    is_verification = True
    requires_host = True
    toolsets = ("verification", "web_verification")
    waypoint: str = Field(..., min_length=1, pattern=r"\S", description="Id of the waypoint, e.g. shop/cart.")
    timeoutMs: int = Field(5_000, gt=0, description="Milliseconds to wait for the screen to settle into it.")
    pollIntervalMs: int = Field(250, gt=0, description="Milliseconds between re-evaluations while waiting.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        from ..waypoints.model import device_classifiers, poll

        waypoints = session_waypoints(ctx)
        waypoint = waypoints.get(self.waypoint)
        if waypoint is None:
            broken = "; ".join(str(e) for e in waypoints.errors)
            return ToolResult.fail(f"assertWaypoint references unknown waypoint '{self.waypoint}'; known: "
                                   f"{', '.join(sorted(waypoints.by_id)) or 'none'}"
                                   + (f". Waypoint files that did not load: {broken}" if broken else ""))
        driver = ctx.driver
        if driver is None:
            return ToolResult.fail("assertWaypoint needs a device to look at")
        result = poll(waypoint, driver, device_classifiers(ctx.device), timeout_ms=self.timeoutMs,
                      poll_interval_ms=self.pollIntervalMs, app_ids=target_app_ids(ctx.session, ctx.device.platform))
        if result.matched:
            return ToolResult.ok(f"Waypoint '{waypoint.id}' matched.")
        return ToolResult.fail(f"Waypoint '{waypoint.id}' not matched after {self.timeoutMs}ms: "
                               f"{result.explain()}")
