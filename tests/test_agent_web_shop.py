"""The agent end to end on the example web shop in headless Chromium: a scripted model (over HTTP, through
the real openai client) solves an NL-only trail by reading the page snapshot; the recording is written back
(only the new slots change); a second run replays it with zero model requests; self-heal repairs a broken
recording."""

from __future__ import annotations

import difflib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from trailblaze.testing import run_cli
from trailblaze.testing.llm import RecordedRequest, Reply, ScriptedLlmServer, always, call, done, http_error

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "web-shop"
PASSWORD = "secret123"

pytestmark = pytest.mark.browser

NL_TRAIL = """\
# Written by hand: no recordings yet; the agent records them on the first run.
config:
  title: "Web shop: sign in (agent)"
  target: shop
  devices:
    web: PLAYWRIGHT_NATIVE
trail:
  - step: Open the shop's sign-in page
  - step: Sign in with the remembered email and password
  - verify: The header welcomes the user by email
"""


class ShopModel:
    """A scripted model for the shop: picks its next call from the step text and the calls made so far."""

    def __call__(self, request: RecordedRequest) -> Reply:
        objective = request.objective  # "Step 2 of 3: ..."
        done_so_far = len(request.tool_results())
        if "Open the shop's sign-in page" in objective:
            return [call("web_navigate", url="/"), done("the sign-in page is open")][min(done_so_far, 1)]
        if "Sign in with the remembered" in objective:
            plan = [lambda: call("web_type", ref=request.ref_on_screen('textbox "Email"'), text="{{email}}"),
                    lambda: call("web_fillSecret", ref=request.ref_on_screen('textbox "Password"'), value="{{password}}"),
                    lambda: call("web_click", ref=request.ref_on_screen('button "Sign in"')),
                    lambda: done("signed in")]
            return plan[min(done_so_far, 3)]()
        if "welcomes the user" in objective:
            return call("web_verifyTextVisible", text="Welcome, {{email}}")
        raise AssertionError(f"unexpected objective: {objective}")


def workspace(tmp_path: Path, server: ScriptedLlmServer, trails: dict[str, str]) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLE / "trails" / "config", root / "trails" / "config")
    shutil.copytree(EXAMPLE / "app", root / "app")  # the example plugin serves the shop from here
    shutil.copy(EXAMPLE / "server.py", root / "server.py")
    config = root / "trails" / "config" / "trailblaze.yaml"
    config.write_text(config.read_text() + llm_section(server))
    for name, text in trails.items():
        (root / "trails" / name).write_text(text)
    return root


def llm_section(server: ScriptedLlmServer) -> str:
    return (f"llm:\n  providers:\n    openai:\n      base_url: {server.openai_base_url}\n"
            f"      auth: {{required: false}}\n      retry_backoff_seconds: 0\n"
            f"      models: [{{id: gpt-4.1, vision: false}}]\n  defaults: {{model: openai/gpt-4.1}}\n")


def run(root: Path, *args: str) -> Any:
    return run_cli(["run", "trails", "--output-dir", str(root / "logs"), "--memory", "email=hiker@example.com",
                    "--secret", f"password={PASSWORD}", *args], cwd=root)


def last_summary(root: Path) -> dict[str, Any]:
    files = sorted((root / "logs" / "reports").glob("trailblaze_test_results_*.json"))
    return json.loads(files[-1].read_text())["results"][0]  # type: ignore[no-any-return]


@pytest.fixture
def server() -> Any:
    with ScriptedLlmServer(ShopModel()) as s:
        yield s


def test_nl_trail_on_the_web_shop_is_recorded_then_replayed(tmp_path: Path, server: ScriptedLlmServer,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_HOME", str(tmp_path / "home"))
    root = workspace(tmp_path, server, {"agent.trail.yaml": NL_TRAIL})
    first = run(root)
    assert first.exit_code == 0, first.output
    assert len(server.requests) == 7
    assert last_summary(root)["llm_call_count"] == 7 and last_summary(root)["execution_mode"] == "AI_ONLY"
    # Written back only after the trail replayed from its start in a fresh browser context, without the model.
    assert last_summary(root)["heal_check"]["status"] == "proven" and len(server.requests) == 7
    # The model saw the compact snapshot and only the session's web tools (no Android tools, no exec).
    offered = set(server.requests[0].offered_tools)
    assert {"web_click", "web_type", "web_fillSecret", "web_navigate", "objectiveStatus"} <= offered
    assert not {n for n in offered if n.startswith(("mobile_", "android_", "ios_"))} and "exec" not in offered
    assert server.requests[-1].tool_names[-1] == "objectiveStatus"
    # A verify step offers only verifications (the memory assertions and assertWaypoint among them).
    assert all(n.startswith(("web_verify", "web_assert", "assert")) or n in ("objectiveStatus", "web_evaluate",
                                                                                   "toolDescriptor")
               or "verify" in n.lower() for n in server.requests[-1].tool_names)
    # Secrets: the password never reaches the model.
    assert PASSWORD not in server.bodies_text()

    text = (root / "trails" / "agent.trail.yaml").read_text()
    diff = list(difflib.ndiff(NL_TRAIL.splitlines(), text.splitlines()))
    assert not [d for d in diff if d.startswith("- ")], "existing lines changed"
    added = "\n".join(d[2:] for d in diff if d.startswith("+ "))
    assert added.count("recording:") == 3 and len(re.findall(r"^      web:$", added, re.MULTILINE)) == 3
    # Refs were turned into stable descriptors for the recording; memory tokens stay tokens.
    assert "ref: textbox \"Email\"" in added or "ref: 'textbox \"Email\"'" in added
    assert "text: '{{email}}'" in added and "value: '{{password}}'" in added and PASSWORD not in text
    assert not re.search(r"ref: [a-z]\d+", added)

    before = len(server.requests)
    second = run(root)
    assert second.exit_code == 0, second.output
    assert len(server.requests) == before  # zero LLM requests: every step replayed
    assert last_summary(root)["llm_call_count"] == 0 and last_summary(root)["execution_mode"] == "RECORDING_ONLY"
    assert (root / "trails" / "agent.trail.yaml").read_text() == text


BROKEN = """\
config:
  title: "Web shop: sign in (broken recording)"
  target: shop
  devices:
    web: PLAYWRIGHT_NATIVE
trail:
  - step: Open the shop's sign-in page
    recording:
      web:
        - web_navigate: {url: /}
  - step: Sign in with the remembered email and password
    recording:
      web:
        - web_type: {ref: 'textbox "Email"', text: "{{email}}"}
        - web_fillSecret: {ref: 'textbox "Password"', value: "{{password}}"}
        - web_click: {ref: 'button "Log me in"'}   # the button was renamed
  - verify: The header welcomes the user by email
    recording:
      web:
        - web_verifyTextVisible: {text: "Welcome, {{email}}"}
"""


def test_self_heal_on_the_web_shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_HOME", str(tmp_path / "home"))
    with ScriptedLlmServer(ShopModel()) as server:
        root = workspace(tmp_path, server, {"broken.trail.yaml": BROKEN})
        without = run(root, "-o", "timeout_ms=1500")
        assert without.exit_code == 1, without.output
        assert server.requests == [] and (root / "trails" / "broken.trail.yaml").read_text() == BROKEN
        healed = run(root, "--self-heal", "-o", "timeout_ms=1500")
        assert healed.exit_code == 0, healed.output
        assert last_summary(root)["execution_mode"] == "SELF_HEAL" and last_summary(root)["outcome"] == "HEALED"
        assert last_summary(root)["heal_check"]["status"] == "proven"
        # The agent redid the step from its text on the page as the failed replay left it.
        assert len(server.requests) == 4
        text = (root / "trails" / "broken.trail.yaml").read_text()
        assert "Log me in" not in text and 'button \\"Sign in\\"' in json.dumps(text)
        assert PASSWORD not in server.bodies_text() and PASSWORD not in text
        old_url = server.openai_base_url
    with ScriptedLlmServer(always(http_error(500, "must not be called"))) as idle:
        config = root / "trails" / "config" / "trailblaze.yaml"
        config.write_text(config.read_text().replace(old_url, idle.openai_base_url))
        again = run(root)
        assert again.exit_code == 0, again.output
        assert idle.requests == []
