"""``web_uploadFile``: put files into an ``<input type=file>``, as a person picking them in the dialog.

Paths are read on the machine that runs the trail, so a trail (or an agent driving a live session)
could otherwise hand any file of that machine to the page under test: paths resolve relative to the
trail, must exist, and must lie inside the workspace or a directory the driver's ``upload_dirs``
setting allows.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field
from trailblaze import ToolFailure, ToolResult

from .actions import trail_dir
from .common import REF_DESCRIPTION, TargetedTool, act, driver_for

if TYPE_CHECKING:
    from playwright.sync_api import Locator
    from trailblaze import ToolContext

    from ..driver import PlaywrightDriver


class WebUploadFile(TargetedTool):
    """Choose files in a file input (<input type=file>). Paths are relative to the trail file (else the
    working directory) and must lie inside the workspace. An empty list clears the input."""

    name: ClassVar[str] = "web_uploadFile"
    ref: str | None = Field(None, description=REF_DESCRIPTION + " The file input (or its label).")
    paths: list[str] = Field(..., description="Files to choose, relative to the trail file, "
                                              "e.g. ['fixtures/a.pdf'].")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        base = trail_dir(ctx) or Path.cwd()
        files = [checked_upload(drv, self.name, raw, base, ctx.session.workspace.root) for raw in self.paths]

        def choose(loc: Locator) -> None:
            loc.set_input_files(files)

        names = ", ".join(f.name for f in files) or "no files"
        return act(ctx, self, "choose files in", choose, done=f"Chose {names} in")


def checked_upload(drv: PlaywrightDriver, tool: str, raw: str, base: Path, workspace: Path) -> Path:
    """The absolute file for ``raw``, or a ``ToolFailure`` saying which rule it broke and how to allow it."""
    path = (base / Path(raw).expanduser()).resolve()
    if not path.is_file():
        what = "is a directory" if path.is_dir() else "does not exist"
        raise ToolFailure(f"{tool}: '{raw}' {what} (looked for {path}, relative to {base})")
    allowed = [workspace.resolve(), *(Path(d).expanduser().resolve() for d in drv.cfg.upload_dirs)]
    if not any(path.is_relative_to(root) for root in allowed):
        raise ToolFailure(f"{tool}: '{raw}' ({path}) is outside the workspace ({workspace.resolve()}); "
                          "to allow it, add its directory to drivers.playwright-native.upload_dirs in "
                          "trails/config/trailblaze.yaml")
    return path
