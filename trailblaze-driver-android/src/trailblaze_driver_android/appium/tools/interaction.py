"""Mobile interaction tools with upstream's names, parameters and flags (reference §4.1, §4.2).

One module per kind of interaction: ``taps``, ``gestures`` (swipes, scrolling), ``text_input`` and
``device`` (keys, apps, URLs, waits, snapshots, clipboard); this module lists them all.
"""

from __future__ import annotations

from trailblaze import Tool

from .device import (
    LaunchAppTool,
    ListInstalledAppsTool,
    OpenUrlTool,
    PasteClipboardTool,
    PressBackTool,
    PressKeyTool,
    SetClipboardTool,
    TakeSnapshotTool,
    WaitForChangeTool,
)
from .gestures import ScrollUntilTextIsVisibleTool, SwipeTool, SwipeWithRelativeCoordinatesTool
from .taps import (
    DragByPointsTool,
    LongPressTool,
    TapOnElementBySelectorTool,
    TapOnPointTool,
    TapOnTool,
    TapTool,
)
from .text_input import ClearTextTool, EraseTextTool, HideKeyboardTool, InputTextRandomTool, InputTextTool

TOOLS: list[type[Tool]] = [
    TapTool, LongPressTool, TapOnElementBySelectorTool, TapOnTool, TapOnPointTool, DragByPointsTool, SwipeTool,
    SwipeWithRelativeCoordinatesTool, ScrollUntilTextIsVisibleTool, InputTextTool, InputTextRandomTool,
    ClearTextTool, EraseTextTool, HideKeyboardTool, PressKeyTool, PressBackTool, LaunchAppTool, OpenUrlTool,
    WaitForChangeTool, TakeSnapshotTool, SetClipboardTool, PasteClipboardTool, ListInstalledAppsTool,
]
