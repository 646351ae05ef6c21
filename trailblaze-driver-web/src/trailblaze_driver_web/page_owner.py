"""What finding elements and recording ask of the web driver, as a protocol.

``targets``, ``element_names`` and the recorder work on the driver's current page, its context, its
settings and its last snapshot; the driver in turn uses them (it finds elements through ``targets`` and
records through the recorder). Typing them against this protocol, not against ``PlaywrightDriver``, keeps
them below the driver in the import graph; ``PlaywrightDriver`` is the one implementation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

    from .config import WebDriverConfig
    from .snapshot import PageSnapshot


class PageOwner(Protocol):
    @property
    def page(self) -> Page:
        """The page tools act on now."""

    @property
    def context(self) -> BrowserContext | None:
        """The browser context of the session's pages, None before the browser starts."""

    @property
    def cfg(self) -> WebDriverConfig:
        """The driver's settings."""

    @property
    def last_snapshot(self) -> PageSnapshot | None:
        """The snapshot the refs of the last ``snapshot`` came from."""

    def base_url(self) -> str | None:
        """What relative URLs are resolved against."""

    def take_snapshot(self) -> PageSnapshot:
        """A new snapshot of the current page (it becomes ``last_snapshot``)."""
