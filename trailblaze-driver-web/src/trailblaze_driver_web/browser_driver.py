"""Deprecated module: ``BrowserDriver`` was the browser layer of ``PlaywrightDriver``.

The driver now holds its parts: ``browser_session.BrowserSession`` (browser, context, current page) and
``page_events.PageEvents`` (console, requests, dialogs). ``BrowserDriver`` names the driver itself for one
minor version, with a ``DeprecationWarning``; ``SentRequest`` and the capture limits live in
``page_events``.
"""

from __future__ import annotations

import warnings
from typing import Any

from .page_events import MAX_CAPTURED_BODY, MAX_CAPTURED_REQUESTS, SentRequest


def __getattr__(name: str) -> Any:
    if name == "BrowserDriver":
        warnings.warn("trailblaze_driver_web.browser_driver.BrowserDriver is deprecated: use "
                      "trailblaze_driver_web.driver.PlaywrightDriver", DeprecationWarning, stacklevel=2)
        from .driver import PlaywrightDriver

        return PlaywrightDriver
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["MAX_CAPTURED_BODY", "MAX_CAPTURED_REQUESTS", "SentRequest"]
