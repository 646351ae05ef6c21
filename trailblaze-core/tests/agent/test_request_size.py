"""What each agent request carries (issue 36): tools by name fetched on demand, the cached static prefix and
its tokens in the step's usage and cost, and the diff of a big screen with the whole tree on demand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trailblaze.testing import run_cli
from trailblaze.testing.llm import Reply, call, done

from .conftest import SCREENS, TRANSITIONS, ScreensDriver

ONE_STEP = """\
config:
  title: Open sign-in
  devices: {memory: SCREENS}
trail:
  - step: Open the sign-in screen
"""


def run(root: Path, host: Any) -> Any:
    return run_cli(["run", "trails", "--output-dir", str(root / "logs")], host=host, cwd=root)


def step_summary(root: Path) -> dict[str, Any]:
    files = sorted((root / "logs" / "reports").glob("trailblaze_test_results_*.json"))
    return json.loads(files[-1].read_text())["results"][0]["steps"][0]  # type: ignore[no-any-return]


def test_a_tool_listed_by_name_is_fetched_then_called(app_host, llm_server, workspace, tb_llm_config) -> None:
    server = llm_server([call("toolDescriptor", name="app_tap"), call("app_tap", ref="Sign in"), done()])
    root = workspace(tb_llm_config(server), {"open.trail.yaml": ONE_STEP})
    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    first, second, third = server.requests
    # app_tap is not in the likely set (no core toolset, not named, not recorded): listed by name only
    assert "app_tap" not in first.tool_names and "toolDescriptor" in first.tool_names
    assert "- app_tap: Tap an element" in first.system_text() and "app_tap" in first.offered_tools
    # the fetch answers with the compact descriptor, and from then on the tool is described in full
    descriptor = json.loads(second.tool_results()[0])
    assert descriptor["name"] == "app_tap" and "ref" in descriptor["parameters"]["properties"]
    assert "title" not in json.dumps(descriptor["parameters"])
    assert second.tool_names[-1] == "app_tap" and second.tool_names[:len(first.tool_names)] == first.tool_names
    assert third.tool_results()[1].startswith("tapped") or "Sign in" in third.tool_results()[1]
    assert ScreensDriver.instances[-1].screen == "login"
    # the fetch is the agent's own business: the recording holds the tap only
    assert "app_tap" in (root / "trails" / "open.trail.yaml").read_text()
    assert "toolDescriptor" not in (root / "trails" / "open.trail.yaml").read_text()


def test_anthropic_prefix_is_marked_and_cached_tokens_are_counted(app_host, llm_server, workspace,
                                                                    tb_llm_config) -> None:
    first, second = call("app_tap", ref="Sign in"), done()
    first.cache_write_tokens = 800      # the first request writes the prefix to the cache …
    second.cached_input_tokens = 800    # … the second reads it
    server = llm_server([first, second])
    config = tb_llm_config(server, wire="anthropic").replace(
        "cost: {input_per_million: 3.0, output_per_million: 15.0}",
        "cost: {input_per_million: 3.0, output_per_million: 15.0, cached_input_per_million: 0.3, "
        "cache_write_per_million: 3.75}")
    root = workspace(config, {"open.trail.yaml": ONE_STEP})
    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    bodies = [r.body for r in server.requests]
    # the real anthropic client sent the system block marked for the cache; tools and system byte-stable
    assert all(b["system"][-1]["cache_control"] == {"type": "ephemeral"} for b in bodies)
    assert bodies[0]["system"] == bodies[1]["system"] and bodies[0]["tools"] == bodies[1]["tools"]
    step = step_summary(root)
    assert step["tokens"] == {"input": 2000, "output": 100, "cached": 800}
    expected = (200 * 3.0 + 800 * 3.75 + 50 * 15.0) / 1e6 + (200 * 3.0 + 800 * 0.3 + 50 * 15.0) / 1e6
    assert step["llm_cost_usd"] == pytest.approx(expected, abs=1e-6)


def test_a_big_screen_is_sent_whole_once_then_as_changes(app_host, llm_server, workspace, tb_llm_config,
                                                         monkeypatch) -> None:
    maps = [f"Trail map {i}" for i in range(600)]
    monkeypatch.setitem(SCREENS, "home", [*maps, "Load more"])
    monkeypatch.setitem(SCREENS, "more", [*maps, "Trail map 600", "Load more"])
    monkeypatch.setitem(TRANSITIONS, ("home", "Load more"), "more")

    def script(request: Any) -> Reply:
        n = len(request.tool_results())
        return [lambda: call("app_tap", ref=request.ref_on_screen('"Load more"')),
                lambda: call("fullSnapshot"), lambda: done()][n]()

    server = llm_server(script)
    root = workspace(tb_llm_config(server), {"open.trail.yaml": ONE_STEP.replace("Open the sign-in screen",
                                                                                 "Load more trail maps")})
    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    first, second, third = server.requests
    assert '[e300] "Trail map 299"' in first.last_user_text()
    # the second look: the first screen stays in the conversation, the new turn holds only the change
    changes = second.last_user_text()
    assert changes.startswith("Screen changes since the last screen above")
    assert '+ [e601] "Trail map 600"' in changes and '+ [e602] "Load more"' in changes
    assert "Trail map 299" not in changes and len(changes) < len(first.last_user_text()) / 10
    kept = [m["content"] for m in second.body["messages"] if m["role"] == "user"]
    assert '[e300] "Trail map 299"' in kept[1]  # the earlier look, kept (after the step's turn)
    assert "fullSnapshot" in second.tool_names
    assert second.ref_on_screen('"Trail map 600"') == "e601"
    # fullSnapshot answers with the whole tree
    whole = third.tool_results()[-1]
    assert '[e1] "Trail map 0"' in whole and '[e601] "Trail map 600"' in whole and '[e602] "Load more"' in whole


def test_system_text_and_tools_are_the_same_bytes_on_every_request_of_a_trail(app_host, llm_server, workspace,
                                                                                tb_llm_config) -> None:
    trail = ONE_STEP + "  - step: Type the email\n"
    server = llm_server([call("app_tap", ref="Sign in"), done(), call("app_type", label="Email", value="a@b.c"),
                         done()])
    root = workspace(tb_llm_config(server, wire="openai"), {"open.trail.yaml": trail})
    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    prefixes = {json.dumps([r.body["tools"], r.body["messages"][0]]) for r in server.requests}
    assert len(server.requests) == 4 and len(prefixes) == 1  # an OpenAI-compatible prefix cache can serve it
    assert server.requests[2].objective == "Step 2 of 2: Type the email"
