"""Android-only tools (upstream §4.3): composition tools, not offered to models."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field
from trailblaze import Tool, ToolContext, ToolResult

from .appium.tools.common import ANDROID_DRIVER, appium_driver


class AdbShellTool(Tool):
    """Run a shell command on the Android device through Appium's `mobile: shell` (host-side; the server
    must allow the `uiautomator2:adb_shell` insecure feature, which managed servers do)."""

    name = "android_adbShell"
    surface_to_llm = False
    is_recordable = False
    requires_host = True
    drivers: ClassVar[frozenset[str] | None] = frozenset({ANDROID_DRIVER})
    toolsets = ("android_primitives",)
    command: list[str] = Field(..., min_length=1, description="Program and arguments, e.g. [pm, list, packages].")
    runAs: str | None = Field(None, description="Run as this app's user (run-as <package>).")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        argv = ["run-as", self.runAs, *self.command] if self.runAs else list(self.command)
        out = drv.actions.shell(argv)
        return ToolResult.ok(out.strip() or "(no output)", data={"output": out})


TOOLS: list[type[Tool]] = [AdbShellTool]
