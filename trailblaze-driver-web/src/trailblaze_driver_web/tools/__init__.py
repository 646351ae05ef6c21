"""The ``web_*`` tools (upstream reference §4.5)."""

from __future__ import annotations

from trailblaze import Tool


def all_tools() -> list[type[Tool]]:
    from .absence import WebVerifyElementNotVisible, WebVerifyTextNotVisible
    from .actions import (
        WebApplyCookies,
        WebClick,
        WebCurrentUrl,
        WebFillSecret,
        WebGetStorageState,
        WebHover,
        WebNavigate,
        WebPressKey,
        WebRequestDetails,
        WebResize,
        WebScroll,
        WebSelectOption,
        WebSnapshot,
        WebType,
        WebWait,
        WebWaitForUrl,
    )
    from .dialogs import WebHandleDialog, WebVerifyDialog
    from .downloads import WebVerifyDownload
    from .tabs import WebCloseTab, WebSwitchTab
    from .upload import WebUploadFile
    from .verification import (
        WebAssertNetworkEvent,
        WebEvaluate,
        WebVerifyElementVisible,
        WebVerifyListVisible,
        WebVerifyTextVisible,
        WebVerifyValue,
    )

    return [WebNavigate, WebClick, WebType, WebHover, WebPressKey, WebSelectOption, WebScroll, WebWait,
            WebWaitForUrl, WebCurrentUrl, WebSnapshot, WebRequestDetails, WebResize, WebApplyCookies,
            WebGetStorageState, WebFillSecret, WebUploadFile, WebVerifyTextVisible, WebVerifyElementVisible,
            WebVerifyTextNotVisible, WebVerifyElementNotVisible, WebVerifyValue, WebVerifyListVisible,
            WebAssertNetworkEvent, WebEvaluate, WebSwitchTab, WebCloseTab, WebHandleDialog, WebVerifyDialog,
            WebVerifyDownload]


UPSTREAM_CLASSES: dict[str, str] = {
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeNavigateTool": "web_navigate",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeClickTool": "web_click",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeTypeTool": "web_type",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeHoverTool": "web_hover",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativePressKeyTool": "web_pressKey",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeSelectOptionTool": "web_selectOption",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeScrollTool": "web_scroll",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeWaitTool": "web_wait",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeWaitForUrlTool": "web_waitForUrl",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeCurrentUrlTool": "web_currentUrl",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeSnapshotTool": "web_snapshot",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeRequestDetailsTool": "web_requestDetails",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeResizeTool": "web_resize",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeApplyCookiesTool": "web_applyCookies",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeGetStorageStateTool": "web_getStorageState",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeFillSecretTool": "web_fillSecret",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeVerifyTextVisibleTool": "web_verifyTextVisible",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeVerifyElementVisibleTool": "web_verifyElementVisible",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeVerifyValueTool": "web_verifyValue",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeVerifyListVisibleTool": "web_verifyListVisible",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeAssertNetworkEventTool": "web_assertNetworkEvent",
    "xyz.block.trailblaze.playwright.tools.PlaywrightNativeEvaluateTool": "web_evaluate",
}
"""Upstream's Kotlin class for each of these tools (the class its ``web_*.tool.yaml`` file names), so a call
written in upstream's legacy ``{"class": "<FQCN>", ...}`` form, or an upstream ``class:`` tool file,
resolves to the tool here (this plugin's ``trailblaze_decode_tool``). Tools upstream defines in YAML
have no class and are not listed."""
