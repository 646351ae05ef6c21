"""Device and app tools (upstream §4.2): keys, back, launching an app, opening a URL, waiting for the
screen to change, snapshots, the clipboard and the installed apps."""

from __future__ import annotations

import re
import time
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator
from trailblaze import ToolCall, ToolContext, ToolResult

from ..hierarchy import IOS
from .common import (
    MobileDelegatingTool,
    MobileTool,
    appium_driver,
    device_errors,
    upper_text,
)
from .text_input import type_text


class PressKeyTool(MobileTool):
    """Press a special key: BACK, ENTER, HOME, BACKSPACE, TAB or ESCAPE."""

    name = "pressKey"
    toolsets = ("core_interaction",)
    keyCode: Literal["BACK", "ENTER", "HOME", "BACKSPACE", "TAB", "ESCAPE"] = Field(..., description="The key.")

    @field_validator("keyCode", mode="before")
    @classmethod
    def upper_key(cls, value: Any) -> Any:
        return upper_text(value)

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        with device_errors(ctx, f"pressKey {self.keyCode}"):
            drv.actions.press_key(self.keyCode)
        drv.note_action()
        return ToolResult.ok(f"Pressed {self.keyCode}")


class PressBackTool(MobileDelegatingTool):
    """Navigate back one screen (Android back button; an edge swipe on iOS)."""

    name = "pressBack"
    is_read_only: ClassVar[bool] = True
    toolsets = ("navigation",)

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        return [ToolCall("mobile_maestro", {"commands": [{"back": {}}]})]


class LaunchAppTool(MobileTool):
    """Open an app on the device as if a user tapped its icon. REINSTALL (default) starts it with its data
    cleared, RESUME brings it back as it was, FORCE_RESTART stops it and starts it again."""

    name = "launchApp"
    toolsets = ("navigation",)
    appId: str = Field(..., description="Package name (Android) or bundle id (iOS), e.g. 'com.example.app'.")
    launchMode: Literal["REINSTALL", "RESUME", "FORCE_RESTART"] = Field("REINSTALL", description="How to launch.")

    @field_validator("launchMode", mode="before")
    @classmethod
    def upper_mode(cls, value: Any) -> Any:
        return upper_text(value)

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        mode = self.launchMode
        if mode == "REINSTALL" and drv.platform == IOS and self.appId.startswith("com.apple."):
            mode = "FORCE_RESTART"  # iOS system apps cannot have their data cleared
        with device_errors(ctx, "launchApp"):
            message = drv.actions.launch_app(self.appId, mode)
        drv.note_action()
        return ToolResult.ok(message)


class OpenUrlTool(MobileDelegatingTool):
    """Open a URL or deep link on the device."""

    name = "openUrl"
    toolsets = ("navigation",)
    url: str = Field(..., min_length=1, description="The URL to open (https://… or an app link).")

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        return [ToolCall("mobile_maestro", {"commands": [{"openLink": self.url.strip()}]})]


class WaitForChangeTool(MobileTool):
    """Wait until the UI has settled after your action (a new screen loads, content updates). Returns once
    the screen has been quiet for quietWindowMs."""

    name = "waitForChange"
    is_read_only: ClassVar[bool] = True
    toolsets = ("observation",)
    timeoutMs: int = Field(8000, ge=0, description="Maximum time to wait, in milliseconds.")
    quietWindowMs: int = Field(300, ge=0, description="Quiet time that counts as settled, in milliseconds.")
    requireChange: bool = Field(True, description="When true, a screen that never settles is an error.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        start = time.monotonic()
        deadline = start + self.timeoutMs / 1000
        drv.capture()
        first = last = drv._last_source_digest
        quiet_since = time.monotonic()
        changed = False
        while time.monotonic() < deadline:
            if (time.monotonic() - quiet_since) * 1000 >= self.quietWindowMs:
                elapsed = int((time.monotonic() - start) * 1000)
                return ToolResult.ok(f"UI settled after {elapsed}ms ({'changed' if changed else 'no change seen'})",
                                     data={"changed": changed, "elapsedMs": elapsed})
            time.sleep(min(self.quietWindowMs / 1000 / 3 or 0.05, drv.cfg.poll_interval_ms / 1000))
            drv.capture()
            if drv._last_source_digest != last:
                last = drv._last_source_digest
                quiet_since = time.monotonic()
                changed = changed or last != first
        if self.requireChange:
            return ToolResult.fail(f"the UI did not settle within {self.timeoutMs}ms")
        return ToolResult.ok(f"waited {self.timeoutMs}ms (ceiling) for the UI to settle")


class TakeSnapshotTool(MobileTool):
    """Save a named screenshot, view hierarchy and snapshot text of the current screen to the logs."""

    name = "takeSnapshot"
    is_read_only: ClassVar[bool] = True
    toolsets = ("observation",)
    screenName: str = Field(..., min_length=1, description="Name of this screen, used in the file names.")
    screen_description: str | None = Field(None, alias="description", description="What the screen shows.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.screenName).strip("_") or "screen"
        log = ctx.session.log
        tree = drv.capture()
        from ..snapshot import build_snapshot

        text = build_snapshot(tree).text
        png = drv.screenshot() or b""
        shot = log.write_file(f"snapshot_{safe}.png", png)
        log.write_file(f"snapshot_{safe}.xml", tree.source.encode("utf-8"))
        log.write_file(f"snapshot_{safe}.txt", text.encode("utf-8"))
        log.write("TrailblazeSnapshotLog", {"screenName": self.screenName, "description": self.screen_description,
                                            "screenshot": shot.name, "stepIndex": ctx.step_index,
                                            "snapshotText": text})
        return ToolResult.ok(f"Saved snapshot '{self.screenName}'", data={"screenshot": shot.name})


class SetClipboardTool(MobileTool):
    """Set the device clipboard to the given text."""

    name = "mobile_setClipboard"
    toolsets = ("mobile_primitives",)
    text: str = Field(..., description="Text to put on the clipboard.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        with device_errors(ctx, "mobile_setClipboard"):
            drv.actions.set_clipboard(self.text)
        return ToolResult.ok("Clipboard set")


class PasteClipboardTool(MobileTool):
    """Paste the clipboard into the focused field."""

    name = "mobile_pasteClipboard"
    toolsets = ("mobile_primitives",)

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        with device_errors(ctx, "mobile_pasteClipboard"):
            text = drv.actions.get_clipboard()
        return type_text(ctx, text, False)


class ListInstalledAppsTool(MobileTool):
    """List the app ids installed on the device."""

    name = "mobile_listInstalledApps"
    toolsets = ("mobile_primitives",)
    is_recordable = True

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = appium_driver(ctx)
        assert drv.actions is not None
        with device_errors(ctx, "mobile_listInstalledApps"):
            apps = drv.actions.list_apps()
        return ToolResult.ok(", ".join(apps) or "(no apps)", data={"appIds": apps})
