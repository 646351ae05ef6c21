"""Tabs and downloads through the MCP server (stdio, a real subprocess): a page a click opened is the page
the next call — the ``snapshot`` tool included — sees, and a download is checked and kept in the server's
output directory."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import shop_workspace, text_of
from test_mcp_server import stdio_session

pytestmark = [pytest.mark.browser]


def test_the_mcp_server_follows_a_new_tab_and_checks_a_download(tmp_path: Path) -> None:
    ws = shop_workspace(tmp_path / "shop")

    async def main() -> dict[str, str]:
        seen: dict[str, str] = {}
        async with stdio_session(ws) as session:
            await session.initialize()

            async def call(name: str, args: dict[str, Any]) -> str:
                result = await session.call_tool(name, args, meta={"trailblaze/step": "Read the policy"})
                assert not result.is_error, f"{name}: {text_of(result)}"
                return text_of(result)

            await call("device", {"action": "WEB"})
            await call("web_navigate", {"url": "/account/help.html"})
            await call("web_click", {"ref": 'link "Expense policy"'})
            seen["snapshot"] = await call("snapshot", {})
            seen["closed"] = await call("web_closeTab", {})
            await call("web_navigate", {"url": "/account/reports.html"})
            await call("web_click", {"ref": 'link "Download expenses (CSV)"'})
            seen["download"] = await call("web_verifyDownload", {"fileName": "expenses.csv", "contains": "Taxi"})
        return seen

    seen = anyio.run(main)
    assert 'heading "Expense policy"' in seen["snapshot"] and "policy.html  (current)" in seen["snapshot"]
    assert "help.html" in seen["closed"]
    assert seen["download"].startswith('Downloaded "expenses.csv" (')
    kept = list((ws / "logs").glob("*/downloads/expenses.csv"))
    assert len(kept) == 1 and "2026-11-02,Taxi,Travel,32.00" in kept[0].read_text()
