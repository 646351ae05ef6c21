"""``trail SAVE`` over MCP on a full disk is all-or-nothing (issue 22, MEDIUM 7), with a real MCP client, a
real ``trailblaze mcp`` process and a real tmpfs: the save fails with one line naming the file, the trail
file is left as it was, and the retry once there is room appends every recorded step exactly once."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).parent))
from full_disk import fill, tmpfs
from mcp_server_helpers import TRAILBLAZE, server_env, shop_workspace, text_of

pytestmark = [pytest.mark.browser]

EXISTING = "config:\n  title: Saved on a small disk\ntrail:\n  - step: already here\n"
STEP_TEXT = 150_000  # characters per recorded step: the disk has room for one more, not two


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    ws = shop_workspace(tmp_path / "shop")
    with tmpfs(ws / "trails" / "disk", "2m") as disk:
        yield ws, disk


@asynccontextmanager
async def mcp_session(ws: Path) -> AsyncIterator[ClientSession]:
    """A real ``trailblaze mcp`` over stdio, started in the workspace ``ws``."""
    params = StdioServerParameters(command=str(TRAILBLAZE), args=["mcp", "--output-dir", str(ws / "logs")],
                                   cwd=str(ws), env=server_env())
    with open(ws / "server.stderr", "w") as err:  # noqa: ASYNC230 - once, before the server starts
        async with stdio_client(params, errlog=err) as (read, write), \
                ClientSession(read, write, read_timeout_seconds=120) as session:
            await session.initialize()
            yield session


def test_a_save_that_does_not_fit_changes_nothing_and_its_retry_saves_each_step_once(small_disk: Any) -> None:
    ws, disk = small_disk
    trail = disk / "saved.trail.yaml"
    trail.write_text(EXISTING)
    steps = [f"Step {n} " + "x" * STEP_TEXT for n in (1, 2)]

    async def main() -> tuple[Any, Any]:
        async with mcp_session(ws) as session:
            assert not (await session.call_tool("device", {"action": "WEB"})).is_error
            for text in steps:
                done = await session.call_tool("web_navigate", {"url": "/"}, meta={"trailblaze/step": text})
                assert not done.is_error, text_of(done)
            filler = fill(disk, leave=len(EXISTING) + STEP_TEXT * 3 // 2)
            failed = await session.call_tool("trail", {"action": "SAVE", "file": "trails/disk/saved.trail.yaml"})
            assert trail.read_text() == EXISTING  # nothing of the two steps landed
            filler.unlink()
            retried = await session.call_tool("trail", {"action": "SAVE", "file": "trails/disk/saved.trail.yaml"})
            return failed, retried

    failed, retried = anyio.run(main)
    message = text_of(failed)
    assert failed.is_error and "No space left on device" in message and "internal error" not in message, message
    assert "\n" not in message.strip() and "saved.trail.yaml" in message, message
    assert not retried.is_error, text_of(retried)
    text = trail.read_text()
    assert text.startswith(EXISTING)
    assert text.count("- step: Step 1 ") == 1 and text.count("- step: Step 2 ") == 1
    assert sorted(p.name for p in disk.iterdir()) == ["saved.trail.yaml"]  # no temporary file left behind


def test_trail_runs_over_mcp_write_outputs_of_their_own(tmp_path: Path) -> None:
    """Issue 22, MEDIUM 8: two ``trail RUN``s within a second each keep their own summary."""
    ws = shop_workspace(tmp_path / "shop")
    (ws / "trails" / "wait.trail.yaml").write_text(
        "trail:\n  - step: open the shop\n    recording:\n      web:\n        - web_navigate: {url: /}\n")

    async def main() -> list[Any]:
        async with mcp_session(ws) as session:
            return [await session.call_tool("trail", {"action": "RUN", "file": "trails/wait.trail.yaml"})
                    for _ in range(2)]

    runs = anyio.run(main)
    for run in runs:
        assert not run.is_error, text_of(run)
    data = [r.structured_content.get("data", r.structured_content) for r in runs]
    summaries = {d["summary"] for d in data}
    assert len(summaries) == 2 and all(Path(p).is_file() for p in summaries), data
