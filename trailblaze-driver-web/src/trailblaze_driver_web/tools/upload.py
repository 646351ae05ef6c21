"""``web_uploadFile``: put files into an ``<input type=file>``, as a person picking them in the dialog.

Paths are read on the machine that runs the trail, so a trail (or an agent driving a live session)
could otherwise hand any file of that machine to the page under test: paths resolve relative to the
trail, must exist, and must lie inside the workspace or a directory the driver's ``upload_dirs``
setting allows.

One rule for where a path points: relative to the trail file. A call made without a trail file (a live
session, ``trailblaze mcp``, ``trailblaze step``) reads it relative to the working directory and
records the absolute file; the trail writer turns it relative to the trail it saves (``paths`` is a
``file_path`` parameter), so the saved trail replays from any directory.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field
from trailblaze import ToolFailure, ToolResult

from .common import REF_DESCRIPTION, TargetedTool, act, driver_for

if TYPE_CHECKING:
    from playwright.sync_api import Locator
    from trailblaze import ToolContext

    from ..driver import PlaywrightDriver


class WebUploadFile(TargetedTool):
    """Choose files in a file input (<input type=file>). Paths are relative to the trail file (else the
    working directory, and recorded absolute until a trail is saved) and must lie inside the workspace.
    An empty list clears the input."""

    name: ClassVar[str] = "web_uploadFile"
    ref: str | None = Field(None, description=REF_DESCRIPTION + " The file input (or its label).")
    paths: list[str] = Field(..., description="Files to choose, relative to the trail file, "
                                              "e.g. ['fixtures/a.pdf'].", json_schema_extra={"filePath": True})

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        trail = trail_file(ctx)
        base = trail.parent if trail is not None else Path.cwd()
        files = [checked_upload(drv, self.name, raw, base, ctx.session.workspace.root) for raw in self.paths]

        def choose(loc: Locator) -> None:
            loc.set_input_files(files)

        names = ", ".join(f.name for f in files) or "no files"
        result = act(ctx, self, "choose files in", choose, done=f"Chose {names} in")
        if trail is not None:
            return result
        # No trail file to be relative to: the recording keeps the files themselves, and the trail they are
        # saved into writes them relative to itself.
        return dataclasses.replace(result, recorded_args={**(result.recorded_args or {}),
                                                          "paths": [str(f) for f in files]})


def trail_file(ctx: ToolContext) -> Path | None:
    """The trail file this session runs, when it runs one from a file (not ``<trailblaze step>``)."""
    path = getattr(ctx.session.trail, "path", None)
    if not path or not Path(path).is_file():
        return None
    return Path(path).resolve()


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
