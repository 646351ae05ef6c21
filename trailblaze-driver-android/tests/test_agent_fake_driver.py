"""The agent on a phone screen, end to end: a real Appium server with the fake driver, the real
`anthropic` client against a scripted loopback model. The model reads the mobile snapshot, acts by ref
(`tap`), the recording written back holds the selector `tap` proved unique, and a second run replays
it without a single model request."""

from __future__ import annotations

from pathlib import Path

import pytest
from trailblaze.testing.llm import RecordedRequest, Reply, ScriptedLlmServer, call, done

pytestmark = pytest.mark.appium

NL_TRAIL = """\
config:
  title: "Fake Shop: sign in (agent)"
  devices:
    android: ANDROID_ONDEVICE_ACCESSIBILITY
trail:
  - step: Type ada@example.com into the Email field
  - step: Tap Sign in
  - verify: The first-order promotion is shown
"""


class PhoneModel:
    """A scripted model: its next call follows from the step and how many calls it has made."""

    def __call__(self, request: RecordedRequest) -> Reply:
        objective = request.objective
        steps_done = len(request.tool_results())
        if "Type ada@example.com" in objective:
            plan = [lambda: call("tap", ref=request.ref_on_screen('EditText "Email"')),
                    lambda: call("inputText", text="ada@example.com"), lambda: done("typed")]
            return plan[min(steps_done, 2)]()
        if "Tap Sign in" in objective:
            return [lambda: call("tap", ref=request.ref_on_screen('Button "Sign in"')), lambda: done("tapped")][
                min(steps_done, 1)]()
        if "promotion is shown" in objective:
            return call("assertVisible", ref=request.ref_on_screen('"$3.00 off your first order"'))
        raise AssertionError(f"unexpected objective: {objective[:200]}")


def test_the_agent_solves_a_phone_trail_and_the_recording_replays(appium_server, fake_workspace, run,
                                                                  tmp_path: Path) -> None:
    ws = fake_workspace(tmp_path / "ws", appium_server.url)
    with ScriptedLlmServer(PhoneModel()) as server:
        config = ws / "trails" / "config" / "trailblaze.yaml"
        config.write_text(config.read_text() + llm_section(server))
        trail = ws / "trails" / "agent.trail.yaml"
        trail.write_text(NL_TRAIL)

        first = run(["run", "trails/agent.trail.yaml", "--no-report"], cwd=ws)
        assert first.returncode == 0, first.stdout + first.stderr
        asked = len(server.requests)
        assert asked >= 5
        offered = set(server.requests[0].offered_tools)
        assert {"tap", "inputText", "swipe"} <= offered and not {n for n in offered if n.startswith("web_")}
        assert 'Button "Sign in"' in server.requests[0].last_user_text()  # the model saw the mobile snapshot

        text = trail.read_text()
        # tap(ref) is recorded as the selector it proved unique, not as the ref.
        assert "tapOnElementBySelector:" in text and "resourceIdRegex: com.example.fakeshop:id/email" in text
        assert "resourceIdRegex: com.example.fakeshop:id/sign_in" in text
        assert "inputText:" in text and "ada@example.com" in text
        assert "- tap:" not in text
        # assertVisible(ref) likewise records the assertVisibleBySelector it expanded to.
        assert "assertVisibleBySelector:" in text and "resourceIdRegex: com.example.fakeshop:id/promo" in text
        assert "assertVisible:" not in text and "ref:" not in text

        second = run(["run", "trails/agent.trail.yaml", "--no-report"], cwd=ws)
        assert second.returncode == 0, second.stdout + second.stderr
        assert len(server.requests) == asked, "the recorded trail replayed without the model"


def llm_section(server: ScriptedLlmServer) -> str:
    return (f"llm:\n  providers:\n    anthropic:\n      base_url: {server.anthropic_base_url}\n"
            f"      auth: {{required: false}}\n      retry_backoff_seconds: 0\n"
            f"      models: [{{id: scripted, vision: false}}]\n  defaults: {{model: anthropic/scripted}}\n")
