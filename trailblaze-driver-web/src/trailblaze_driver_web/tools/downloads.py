"""``web_verifyDownload``: a file the page downloaded arrived, with the expected name and content."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field
from trailblaze import ToolFailure, ToolResult

from .common import driver_for, timeout_field, timeout_of
from .verification import WebVerification, poll

if TYPE_CHECKING:
    from trailblaze import ToolContext

    from ..downloads import KeptDownload

MAX_READ = 8 * 1024 * 1024
"""How much of a download ``contains`` searches (its first 8 MiB)."""


def _last(downloads: list[KeptDownload]) -> KeptDownload | None:
    return downloads[-1] if downloads else None


class WebVerifyDownload(WebVerification):
    """Verify the last download started in this step (or the step before it; when there was none, wait for
    the next one up to timeoutMs): it completed, its file name is fileName, and its text contains
    'contains'."""

    name: ClassVar[str] = "web_verifyDownload"
    fileName: str | None = Field(None, description="The file name the download suggested, e.g. 'expenses.csv'.")
    contains: str | None = Field(None, description="Text the downloaded file contains, e.g. 'Taxi,Travel,32.00'.")
    timeoutMs: int | None = timeout_field()

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        timeout = timeout_of(drv, self.timeoutMs)
        found: KeptDownload | None = poll(drv, lambda: _last(drv.downloads.recent()), timeout)
        if found is None:
            raise ToolFailure(f"web_verifyDownload: expected a download, but none started in this step or the one "
                              f"before it, nor within {timeout} ms")
        kept = drv.downloads.settle(found)
        name = json.dumps(kept.file_name, ensure_ascii=False)
        if self.fileName is not None and kept.file_name != self.fileName:
            raise ToolFailure(f"web_verifyDownload: expected the download to be named "
                              f"{json.dumps(self.fileName, ensure_ascii=False)}, but it is {name} ({kept.url})")
        if kept.path is None:
            raise ToolFailure(f"web_verifyDownload: the download {name} was not kept: {kept.failure}")
        if kept.failure and self.contains is not None:
            raise ToolFailure(f"web_verifyDownload: the download {name} cannot be read: {kept.failure}")
        if self.contains is not None:
            with kept.path.open("rb") as handle:
                text = handle.read(MAX_READ).decode("utf-8", errors="replace")
            if self.contains not in text:
                first = text.strip().splitlines()[:3]
                raise ToolFailure(f"web_verifyDownload: expected {name} to contain "
                                  f"{json.dumps(self.contains, ensure_ascii=False)}; it starts with "
                                  f"{json.dumps(' / '.join(first)[:300], ensure_ascii=False)} ({kept.size} bytes)")
        what = f" containing {json.dumps(self.contains, ensure_ascii=False)}" if self.contains is not None else ""
        return ToolResult(True, f"Downloaded {name} ({kept.size} bytes){what}",
                          data={"fileName": kept.file_name, "url": kept.url, "size": kept.size,
                                "path": str(kept.path)})
