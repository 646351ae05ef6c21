"""The ``web_*`` tools (upstream reference §4.5)."""

from __future__ import annotations

from trailblaze.tools.base import Tool


def all_tools() -> list[type[Tool]]:
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
            WebGetStorageState, WebFillSecret, WebVerifyTextVisible, WebVerifyElementVisible, WebVerifyValue,
            WebVerifyListVisible, WebAssertNetworkEvent, WebEvaluate]
