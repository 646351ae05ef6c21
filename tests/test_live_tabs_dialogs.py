"""Tabs, dialogs and downloads in a live session: each ``tool``/``snapshot``/``verify --session`` is its own
process, so a page a click opened must be current when the click's command returns (the rule in
docs/web.md), not whenever the browser reports it; ``session save`` writes a trail that replays green."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import shop_workspace
from test_live_sessions import session_dir, tb

__all__ = ["session_dir"]  # the fixture, shared with tests/test_live_sessions.py


def test_a_session_follows_the_tab_a_click_opened_answers_dialogs_and_saves_a_trail_that_replays(
        tmp_path: Path, session_dir: Path) -> None:
    ws = shop_workspace(tmp_path / "shop")
    code, out = tb(ws, session_dir, "session", "start", "--name", "t", "--url", "/account/help.html")
    assert code == 0, out
    try:
        code, out = tb(ws, session_dir, "tool", "web_click", "ref=link \"Expense policy\"", "--session", "t",
                       "--step", "Open the expense policy")
        assert code == 0, out
        code, out = tb(ws, session_dir, "snapshot", "--session", "t")  # right after the click: the new tab
        assert code == 0 and 'heading "Expense policy"' in out, out
        assert "Tabs (2 open;" in out and "policy.html  (current)" in out, out
        code, out = tb(ws, session_dir, "verify", "The policy caps taxi rides", "--session", "t",
                       "--tools", "[{web_verifyTextVisible: {text: 'Taxis are reimbursed up to $40 a ride.'}}]")
        assert code == 0, out
        code, out = tb(ws, session_dir, "tool", "web_closeTab", "--session", "t", "--step", "Close the policy")
        assert code == 0 and "now at" in out and "help.html" in out, out
        code, out = tb(ws, session_dir, "tool", "web_navigate", "url=/account/reports.html", "--session", "t",
                       "--step", "Keep the taxi ride")
        assert code == 0, out
        code, out = tb(ws, session_dir, "tool", "web_handleDialog", "action=dismiss", "--session", "t",
                       "--step", "Keep the taxi ride")
        assert code == 0, out
        code, out = tb(ws, session_dir, "tool", "web_click", "ref=button \"Delete Taxi\"", "--session", "t",
                       "--step", "Keep the taxi ride")
        assert code == 0, out
        code, out = tb(ws, session_dir, "verify", "The app asked and kept the ride", "--session", "t",
                       "--tools", "[{web_verifyDialog: {message: 'Delete Taxi?'}}, "
                                  "{web_verifyTextVisible: {text: Kept Taxi}}]")
        assert code == 0, out
        code, out = tb(ws, session_dir, "session", "save", "--name", "t", "trails/tabs.trail.yaml")
        assert code == 0, out
    finally:
        code, out = tb(ws, session_dir, "session", "stop", "--name", "t")
    saved = (ws / "trails" / "tabs.trail.yaml").read_text()
    assert "web_closeTab" in saved and "web_handleDialog" in saved and "web_verifyDialog" in saved, saved
    code, out = tb(ws, session_dir, "run", "trails/tabs.trail.yaml")
    assert code == 0 and "1 passed" in out, out + saved
