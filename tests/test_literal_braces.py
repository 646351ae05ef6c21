"""Page text that looks like a template is recorded as text (issue 22, MEDIUM 11).

A button on the example shop is literally named ``{{shopUrl}}``, and ``shopUrl`` is a memory value the
shop's plugin sets. The agent clicks it by ref; the recording must say ``\\{{shopUrl}}`` (the trail
format's escape for literal braces), so the replay looks for the button, not for the shop's URL.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from trailblaze.testing import run_cli
from trailblaze.testing.llm import RecordedRequest, Reply, ScriptedLlmServer, call, done

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "web-shop"

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><title>Braces</title></head><body>
<button onclick="document.getElementById('out').textContent='pressed the literal one'">{{shopUrl}}</button>
<button onclick="document.getElementById('out').textContent='pressed the other one'">Other</button>
<p id=out></p></body></html>
"""

TRAIL = """\
config:
  title: Literal braces
  target: shop
  devices:
    web: PLAYWRIGHT_NATIVE
trail:
  - step: Open the braces page
  - step: Press the button whose label is written in double braces
  - verify: The page says the literal one was pressed
"""


class Model:
    def __call__(self, request: RecordedRequest) -> Reply:
        objective = request.objective
        so_far = len(request.tool_results())
        if "Open the braces page" in objective:
            return [call("web_navigate", url="{{shopUrl}}/braces.html"), done("open")][min(so_far, 1)]
        if "double braces" in objective:
            plan = [lambda: call("web_click", ref=request.ref_on_screen('button "{{shopUrl}}"')),
                    lambda: done("pressed")]
            return plan[min(so_far, 1)]()
        return call("web_verifyTextVisible", text="pressed the literal one")


def test_a_button_named_like_a_token_is_recorded_escaped_and_replayed_as_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_HOME", str(tmp_path / "home"))
    with ScriptedLlmServer(Model()) as server:
        root = tmp_path / "shop"
        shutil.copytree(EXAMPLE / "trails" / "config", root / "trails" / "config")
        shutil.copytree(EXAMPLE / "app", root / "app")
        shutil.copy(EXAMPLE / "server.py", root / "server.py")
        (root / "app" / "braces.html").write_text(PAGE)
        config = root / "trails" / "config" / "trailblaze.yaml"
        config.write_text(config.read_text() + (
            f"llm:\n  providers:\n    openai:\n      base_url: {server.openai_base_url}\n"
            "      auth: {required: false}\n      retry_backoff_seconds: 0\n"
            "      models: [{id: gpt-4.1, vision: false}]\n  defaults: {model: openai/gpt-4.1}\n"))
        trail = root / "trails" / "braces.trail.yaml"
        trail.write_text(TRAIL)

        first = _run(root)
        assert first.exit_code == 0, first.output
        text = trail.read_text()
        assert "\\{{shopUrl}}" in text, text  # the page's text, escaped; the navigation keeps its token
        assert "url: '{{shopUrl}}/braces.html'" in text or 'url: "{{shopUrl}}/braces.html"' in text
        requests = len(server.requests)

        second = _run(root)
        assert second.exit_code == 0, second.output
        assert len(server.requests) == requests  # replayed from the recording, no model
        log = next((root / "logs").glob("*/recording.trail.yaml"))
        assert "\\{{shopUrl}}" in log.read_text()  # the session log's recording writes the escape too


def _run(root: Path) -> Any:
    return run_cli(["run", "trails", "--output-dir", str(root / "logs")], cwd=root)
