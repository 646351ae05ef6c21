"""A ref from an iframe (``f2e6``), used through ``trailblaze mcp`` as a coding agent would, is saved in
the trail as the element's descriptor plus ``frame:`` - never as the ref - and the trail replays with
``trailblaze run`` in a fresh process. The MCP server's recording, ``session save`` and the agent's
write-back all keep what the tool returned as its recorded form (``ExecutedCall.recordable_form``), so
this one path covers them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from trailblaze import load_yaml

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import EMAIL, PASSWORD, TRAILBLAZE, ref, server_env, shop_workspace, text_of  # noqa: E402
from test_mcp_server import stdio_session  # noqa: E402

pytestmark = [pytest.mark.browser]

SAVED = "trails/mcp-approve.trail.yaml"


def test_a_frame_ref_is_saved_as_descriptor_and_frame_and_replays(tmp_path: Path) -> None:
    ws = shop_workspace(tmp_path / "shop")

    async def main() -> str:
        async with stdio_session(ws, "--secret", f"password={PASSWORD}") as session:
            await session.initialize()

            async def call(name: str, args: dict[str, Any], step: str | None = None) -> Any:
                result = await session.call_tool(name, args, meta={"trailblaze/step": step} if step else None)
                assert not result.is_error, f"{name}: {text_of(result)}"
                return result

            await call("device", {"action": "WEB"})
            sign_in = "Sign in and open the approvals"
            await call("web_navigate", {"url": "/"}, sign_in)
            await call("web_type", {"ref": 'textbox "Email"', "text": EMAIL}, sign_in)
            await call("web_fillSecret", {"ref": 'textbox "Password"', "value": "{{password}}"}, sign_in)
            await call("web_click", {"ref": 'button "Sign in"'}, sign_in)
            await call("web_waitForUrl", {"pattern": r"/products\.html$"}, sign_in)
            await call("web_navigate", {"url": "/account/approvals.html"}, sign_in)
            await call("web_verifyTextVisible", {"text": "Partner review by Summit Logistics"}, sign_in)
            snapshot = text_of(await call("snapshot", {}))
            approve = "Approve the expense and confirm the partner review"
            await call("web_type", {"ref": ref(snapshot, 'textbox "Comment"'), "text": "Late flight"}, approve)
            await call("web_click", {"ref": ref(snapshot, 'button "Approve"')}, approve)
            await call("web_type", {"ref": ref(snapshot, 'textbox "Reviewer"'), "text": "Ada"}, approve)
            await call("web_click", {"ref": ref(snapshot, 'button "Confirm review"')}, approve)
            await call("web_click", {"ref": ref(snapshot, 'button "Show receipt"')}, approve)
            await call("verify", {"assertion": "Both frames say it is done",
                                  "tools": [{"web_verifyTextVisible": {"text": "Approved with comment: Late flight"}},
                                            {"web_verifyTextVisible": {"text": "Review confirmed by Ada"}},
                                            {"web_verifyTextVisible": {"text": "Receipt R-1042"}}]})
            await call("trail", {"action": "SAVE", "file": SAVED})
            return (ws / SAVED).read_text()

    saved = anyio.run(main)
    assert "ref: f" not in saved and "ref: e" not in saved, saved
    step = next(s for s in load_yaml(saved)["trail"] if s.get("step", "").startswith("Approve"))
    calls = [(c[name]["ref"], c[name].get("frame")) for c in step["recording"]["web"] for name in c]
    assert calls == [('textbox "Comment"', 'iframe "Approval frame"'), ('button "Approve"', 'iframe "Approval frame"'),
                     ('textbox "Reviewer"', 'iframe "Partner frame"'),
                     ('button "Confirm review"', 'iframe "Partner frame"'),
                     ('button "Show receipt"', 'iframe "Receipt frame"')], saved
    replay = subprocess.run([str(TRAILBLAZE), "run", SAVED, "--output-dir", str(ws / "replay-logs"),
                             "--secret", f"password={PASSWORD}"], cwd=ws, capture_output=True, text=True,
                            env=server_env(), timeout=300, check=False)
    assert replay.returncode == 0 and "1 passed" in replay.stdout, replay.stdout + replay.stderr
