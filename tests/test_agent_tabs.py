"""The agent follows the tab a click opened: a scripted model (over HTTP, through the real openai client)
clicks a target=_blank link, and the very next screen it is sent is the new tab, with the open tabs listed;
the recording it leaves replays green with no model."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_agent_web_shop import run, workspace
from trailblaze.testing.llm import RecordedRequest, Reply, ScriptedLlmServer, call, done

pytestmark = pytest.mark.browser

TRAIL = """\
config:
  title: "Web shop: the expense policy (agent)"
  target: shop
  devices:
    web: PLAYWRIGHT_NATIVE
trail:
  - step: Open the help page and then the expense policy
  - verify: The policy caps taxi rides at $40
"""


class TabsModel:
    def __init__(self) -> None:
        self.screens: list[str] = []

    def __call__(self, request: RecordedRequest) -> Reply:
        made = len(request.tool_results())
        self.screens.append(request.last_user_text())
        if "expense policy" in request.objective:
            plan = [lambda: call("web_navigate", url="/account/help.html"),
                    lambda: call("web_click", ref=request.ref_on_screen('link "Expense policy"')),
                    lambda: done("the policy is open")]
            return plan[min(made, 2)]()
        if "caps taxi rides" in request.objective:
            return call("web_verifyTextVisible", text="Taxis are reimbursed up to $40 a ride.")
        raise AssertionError(f"unexpected objective: {request.objective}")


def test_the_agent_sees_the_tab_its_click_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_HOME", str(tmp_path / "home"))
    model = TabsModel()
    with ScriptedLlmServer(model) as server:
        root = workspace(tmp_path, server, {"policy.trail.yaml": TRAIL})
        first = run(root)
        assert first.exit_code == 0, first.output
        after_click = model.screens[2]  # the screen sent with the click's result
        assert 'heading "Expense policy"' in after_click and "policy.html  (current)" in after_click, after_click
        asked = len(server.requests)
        second = run(root)
        assert second.exit_code == 0, second.output
        assert len(server.requests) == asked  # replayed from the recording, no model
    saved = (root / "trails" / "policy.trail.yaml").read_text()
    assert "web_click" in saved and 'link "Expense policy"' in saved, saved
