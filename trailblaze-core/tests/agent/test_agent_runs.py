"""``trailblaze run`` with the agent, end to end on the in-memory app, against a scripted model served
over HTTP to the real ``openai``/``anthropic`` clients."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import pytest

from trailblaze.logs import read_log
from trailblaze.testing import run_cli
from trailblaze.testing.llm import Reply, always, call, done, give_up, http_error, text_only

NL_TRAIL = """\
# A trail written by hand: no recordings yet.
config:
  title: Sign in
  devices: {memory: SCREENS}   # the in-memory app
trail:
  - step: Sign in as ann with the saved email and password
  - verify: The greeting for ann is shown
"""

SIGN_IN = [
    call("app_tap", ref="e2"),                                   # "Sign in" by ref
    call("app_type", label="Email", value="{{email}}"),
    call("app_type", label="Password", value="{{password}}"),
    call("app_tap", ref="Log in"),
    done("signed in"),
]
VERIFY = [call("app_assertVisible", text="Hello, ann")]
SECRET = "s3cret-pw-771"


def run(root: Path, host: Any, *args: str) -> Any:
    return run_cli(["run", "trails", "--output-dir", str(root / "logs"), "--memory", "email=ann@example.com",
                    "--secret", f"password={SECRET}", *args], host=host, cwd=root)


def summary(root: Path) -> dict[str, Any]:
    files = sorted((root / "logs" / "reports").glob("trailblaze_test_results_*.json"))
    return json.loads(files[-1].read_text())["results"][0]  # type: ignore[no-any-return]


def logs(root: Path, kind: str) -> list[dict[str, Any]]:
    found = []
    for session_dir in sorted(p for p in (root / "logs").iterdir() if p.name != "reports"):
        found += [e for e in read_log(session_dir) if e["class"].endswith(f".{kind}")]
    return found


def added_lines(before: str, after: str) -> list[str]:
    diff = list(difflib.ndiff(before.splitlines(), after.splitlines()))
    assert not [d for d in diff if d.startswith("- ")], "save-back removed or changed existing lines"
    return [d[2:] for d in diff if d.startswith("+ ")]


def test_nl_trail_is_solved_saved_back_and_then_replayed_without_the_model(app_host, workspace, llm_server,
                                                                              tb_llm_config) -> None:
    server = llm_server([*SIGN_IN, *VERIFY])
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": NL_TRAIL})
    trail_file = root / "trails" / "sign-in.trail.yaml"

    first = run(root, app_host)
    assert first.exit_code == 0, first.output
    assert len(server.requests) == 6 and server.remaining == 0
    result = summary(root)
    assert result["outcome"] == "PASSED" and result["execution_mode"] == "AI_ONLY"
    assert result["llm_call_count"] == 6
    assert result["llm_cost_usd"] == pytest.approx(6 * (1000 * 1.0 + 50 * 2.0) / 1e6)
    assert "LLM: 6 requests" in first.output

    # The file gained exactly the two recording slots; every original line (comments included) is intact.
    after = trail_file.read_text()
    assert added_lines(NL_TRAIL, after) == [
        "    recording:", "      memory:", "        - app_tap:", "            ref: Sign in", "        - app_type:",
        "            label: Email", "            value: '{{email}}'", "        - app_type:",
        "            label: Password", "            value: '{{password}}'", "        - app_tap:",
        "            ref: Log in",
        "    recording:", "      memory:", "        - app_assertVisible:", "            text: Hello, ann"]

    # What the model was offered: the driver's LLM tools (+ objectiveStatus); on verify, verification only.
    step_tools = set(server.requests[0].offered_tools)
    assert {"app_tap", "app_type", "app_assertVisible", "objectiveStatus"} <= step_tools
    assert not {"exec", "rememberValue"} & step_tools  # surface_to_llm: false
    # a verify step offers verification tools only (the app's, and the memory toolset's assertions)
    assert server.requests[-1].tool_names == ["app_assertVisible", "assertEquals", "assertMath", "assertNotEquals",
                                              "assertWaypoint", "assertWithAi", "objectiveStatus"]

    # Secrets never leave the process: not in any request body (even though the app shows the typed
    # password on screen), not in the trail file, not in the logs.
    assert SECRET not in server.bodies_text()
    assert "password (secret" in server.requests[0].last_user_text() or "password (secret" in server.requests[0].text
    assert '"Password" value="***"' in server.requests[3].last_user_text()
    assert SECRET not in after
    for path in (root / "logs").rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path

    # Each request is logged with its messages, offered tools, response, usage and cost.
    llm_logs = logs(root, "TrailblazeLlmRequestLog")
    assert len(llm_logs) == 6
    first_log = llm_logs[0]
    assert first_log["llmModel"] == {"provider": "fake", "modelId": "scripted", "type": "openai_compatible"}
    assert "app_tap" in first_log["toolOptions"] and first_log["toolDescriptors"]
    assert first_log["actions"] == [{"name": "app_tap", "args": {"ref": "e2"}}]
    assert first_log["usage"] == {"inputTokens": 1000, "outputTokens": 50, "cachedInputTokens": 0}
    assert first_log["costUsd"] == pytest.approx(0.0011)
    assert [m["role"] for m in first_log["messages"]] == ["user", "user"]
    # The session's recording.trail.yaml is generated from the logs and matches what was saved.
    recording_file = next((root / "logs").glob("*/recording.trail.yaml")).read_text()
    assert "ref: Sign in" in recording_file and "value: '{{password}}'" in recording_file

    # Second run: everything replays, the model is never asked.
    replay_server = llm_server(always(http_error(500, "must not be called")))
    (root / "trails" / "config" / "trailblaze.yaml").write_text(tb_llm_config(replay_server))
    second = run(root, app_host)
    assert second.exit_code == 0, second.output
    assert replay_server.requests == []
    assert summary(root)["llm_call_count"] == 0 and summary(root)["execution_mode"] == "RECORDING_ONLY"
    assert trail_file.read_text() == after


def test_anthropic_wire_end_to_end(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([*SIGN_IN, *VERIFY])
    root = workspace(tb_llm_config(server, wire="anthropic"), {"sign-in.trail.yaml": NL_TRAIL})
    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    assert all(r.path == "/v1/messages" for r in server.requests) and len(server.requests) == 6
    assert SECRET not in server.bodies_text()
    # Earlier calls and their results travel as tool_use / tool_result blocks.
    assert any("tapped 'Sign in'" in r for r in server.requests[1].tool_results())
    assert summary(root)["llm_cost_usd"] == pytest.approx(6 * (1000 * 3.0 + 50 * 15.0) / 1e6)


def test_openai_builtin_provider_pointed_at_loopback(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([*SIGN_IN, *VERIFY])
    root = workspace(tb_llm_config(server, wire="openai"), {"sign-in.trail.yaml": NL_TRAIL})
    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    assert "max_completion_tokens" in server.requests[0].body


BROKEN = """\
config:
  devices: {memory: SCREENS}
trail:
  - step: Sign in as ann with the saved email and password
    recording:
      web:                       # another device's recording: never touched
        - web_click: {ref: 'link "Sign in"'}
      memory:
        - app_tap: {ref: Sign up}     # broken: there is no such button any more
        - app_type: {label: Email, value: '{{email}}'}
  - verify: The greeting for ann is shown
    recording:
      memory:
        - app_assertVisible: {text: 'Hello, ann'}
"""


def test_self_heal_off_by_default_fails_the_trail(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([*SIGN_IN])
    root = workspace(tb_llm_config(server), {"broken.trail.yaml": BROKEN})
    result = run(root, app_host)
    assert result.exit_code == 1, result.output
    assert "no element 'Sign up'" in result.output and server.requests == []
    assert (root / "trails" / "broken.trail.yaml").read_text() == BROKEN


@pytest.mark.parametrize("how", ["flag", "env"])
def test_self_heal_re_solves_the_step_and_updates_the_recording(app_host, workspace, llm_server, tb_llm_config,
                                                                monkeypatch, how: str) -> None:
    server = llm_server([*SIGN_IN])
    root = workspace(tb_llm_config(server), {"broken.trail.yaml": BROKEN})
    if how == "env":
        monkeypatch.setenv("TRAILBLAZE_SELF_HEAL_ENABLED", "true")
        result = run(root, app_host)
    else:
        result = run(root, app_host, "--self-heal")
    assert result.exit_code == 0, result.output
    out = summary(root)
    assert out["outcome"] == "HEALED" and out["execution_mode"] == "SELF_HEAL" and out["llm_call_count"] == 5
    # The run's session (the heal check's proving replay has a session of its own, without self-heal).
    ended = [e for e in read_log(root / out["log_dir"]) if e["class"].endswith(".TrailblazeSessionStatusChangeLog")
             and "Ended" in e["sessionStatus"]["status"]]
    assert ended[0]["sessionStatus"]["status"] == "Ended.SucceededWithSelfHeal"
    assert out["heal_check"]["status"] == "proven"
    assert logs(root, "SelfHealInvokedLog")[0]["reason"].startswith("tool 'app_tap'")
    # The agent was told what failed; the verify step replayed its own recording (no model call).
    assert "A previous attempt at this step failed" in server.requests[0].text
    healed = (root / "trails" / "broken.trail.yaml").read_text()
    assert "- web_click: {ref: 'link \"Sign in\"'}" in healed and "# another device's recording" in healed
    assert "Sign up" not in healed and "ref: Log in" in healed
    assert healed.count("app_assertVisible: {text: 'Hello, ann'}") == 1


def test_self_heal_that_fails_is_failed_with_self_heal(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([give_up("there is no sign-in button")])
    root = workspace(tb_llm_config(server), {"broken.trail.yaml": BROKEN})
    result = run(root, app_host, "--self-heal")
    assert result.exit_code == 1, result.output
    ended = [e for e in logs(root, "TrailblazeSessionStatusChangeLog") if "Ended" in e["sessionStatus"]["status"]]
    assert ended[0]["sessionStatus"]["status"] == "Ended.FailedWithSelfHeal"
    assert (root / "trails" / "broken.trail.yaml").read_text() == BROKEN


def test_verify_steps_are_never_self_healed(app_host, workspace, llm_server, tb_llm_config) -> None:
    trail = BROKEN.replace("app_tap: {ref: Sign up}", "app_tap: {ref: Sign in}").replace(
        "- app_type: {label: Email, value: '{{email}}'}", "- app_tap: {ref: Log in}").replace(
        "'Hello, ann'}", "'Hello, bob'}")
    server = llm_server([call("app_assertVisible", text="Hello, ann")])
    root = workspace(tb_llm_config(server), {"v.trail.yaml": trail})
    result = run(root, app_host, "--self-heal")
    assert result.exit_code == 1, result.output
    assert server.requests == [] and "'Hello, bob' is not visible" in result.output


def test_call_cap_ends_the_step_with_max_calls_reached(app_host, workspace, llm_server, tb_llm_config) -> None:
    counter = iter(range(1000))
    server = llm_server(lambda request: call("objectiveStatus", status="IN_PROGRESS",
                                             explanation=f"still looking {next(counter)}"))
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": NL_TRAIL})
    result = run(root, app_host, "--max-llm-calls", "3")
    assert result.exit_code == 1, result.output
    assert len(server.requests) == 3
    out = summary(root)
    assert out["outcome"] == "MAX_CALLS_REACHED" and "limit of 3 LLM calls" in out["failure_reason"]
    assert (root / "trails" / "sign-in.trail.yaml").read_text() == NL_TRAIL


def test_stuck_loop_is_told_to_the_model_then_ends_the_step(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server(always(call("app_tap", ref="Welcome")))  # tapping the title does nothing
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": NL_TRAIL})
    result = run(root, app_host)
    assert result.exit_code == 1, result.output
    assert len(server.requests) == 6
    assert "same arguments 3 times" not in server.requests[2].last_user_text()
    assert "same arguments 3 times" in server.requests[3].last_user_text()
    assert "stuck: called app_tap 6 times" in summary(root)["failure_reason"]


def test_stale_and_unknown_refs_are_not_run_and_the_model_is_told(app_host, workspace, llm_server,
                                                                 tb_llm_config) -> None:
    server = llm_server([
        call("app_tap", ref="e9"),                       # never on screen
        call("app_tap", ref="e2"), call("app_type", label="Email", value="a"), call("app_tap", ref="e3"),
        call("app_tap", ref="e3"),                       # the account screen has only e1, e2: stale
        done(), *VERIFY])
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": NL_TRAIL})
    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    results = server.requests[5].tool_results()
    assert "ref 'e9' is not on the current screen; the call was not run" in results[0]
    assert "ref 'e3' came from an earlier screen and is stale" in results[4]
    assert "(e1, e2)" in results[4]


def test_invalid_tool_calls_go_back_to_the_model_and_the_run_goes_on(app_host, workspace, llm_server,
                                                                     tb_llm_config) -> None:
    server = llm_server([
        call("app_fly", to="moon"),
        call("app_type", label="Email"),                     # missing 'value'
        Reply(tool_calls=[("app_tap", '{"ref": "e2"')]),     # truncated JSON
        call("exec", argv=["true"]),                          # real tool, not offered to models
        text_only("I think I am done"),                       # no tool call at all
        *SIGN_IN, *VERIFY])
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": NL_TRAIL})
    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    results = server.requests[5].tool_results()
    assert results[0].startswith("unknown tool 'app_fly'; available tools: ") and "app_tap" in results[0]
    assert "missing required argument 'value'" in results[1]
    assert "invalid call to 'app_tap': arguments are not valid JSON" in results[2]
    assert results[3].startswith("unknown tool 'exec'")
    assert "Your last answer called no tool" in server.requests[5].last_user_text()
    recording = (root / "trails" / "sign-in.trail.yaml").read_text()
    assert "app_fly" not in recording and "exec" not in recording


def test_429_then_success(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([http_error(429, "rate limited", retry_after=0), http_error(503, "busy"), *SIGN_IN, *VERIFY])
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": NL_TRAIL})
    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    assert len(server.requests) == 8 and summary(root)["llm_call_count"] == 6
    errors = [e for e in logs(root, "TrailblazeLlmRequestLog") if "error" in e]
    assert [e["retry"] for e in errors] == [0, 1] and "HTTP 429: rate limited" in errors[0]["error"]


def test_provider_that_keeps_failing_is_infrastructure_exit_2(app_host, workspace, llm_server,
                                                              tb_llm_config) -> None:
    server = llm_server(always(http_error(500, "the model melted")))
    config = tb_llm_config(server).replace("retry_backoff_seconds: 0", "retry_backoff_seconds: 0\n      max_retries: 2")
    root = workspace(config, {"sign-in.trail.yaml": NL_TRAIL})
    result = run(root, app_host)
    assert result.exit_code == 2, result.output
    assert len(server.requests) == 3
    assert "LLM provider 'fake' returned HTTP 500: the model melted after 3 attempts" in result.output
    assert summary(root)["outcome"] == "ERROR"


def test_non_retryable_provider_error_fails_at_once(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server(always(http_error(401, "invalid api key")))
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": NL_TRAIL})
    result = run(root, app_host)
    assert result.exit_code == 2 and len(server.requests) == 1
    assert "HTTP 401: invalid api key" in result.output


def test_no_model_configured_is_exit_3_with_how_to_configure(app_host, workspace) -> None:
    root = workspace("", {"sign-in.trail.yaml": NL_TRAIL})
    result = run(root, app_host)
    assert result.exit_code == 3, result.output
    assert "sign-in.trail.yaml:5:5: step 0" not in result.output
    assert "has no recording for 'memory' and needs an LLM to run; configure one with --llm provider/model" \
        in result.output


def test_llm_flag_selects_the_model(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([*SIGN_IN, *VERIFY])
    config = tb_llm_config(server).split("  defaults:")[0]  # providers only, no default model
    root = workspace(config, {"sign-in.trail.yaml": NL_TRAIL})
    assert run(root, app_host).exit_code == 3
    result = run(root, app_host, "--llm", "fake/scripted")
    assert result.exit_code == 0, result.output


def test_recordable_false_always_uses_the_model_and_is_never_written(app_host, workspace, llm_server,
                                                                     tb_llm_config) -> None:
    trail = NL_TRAIL.replace("  - step: Sign in as ann with the saved email and password\n",
                             "  - step: Sign in as ann with the saved email and password\n    recordable: false\n")
    server = llm_server([*SIGN_IN, *VERIFY, *SIGN_IN])
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": trail})
    # A replay without the model cannot prove a trail with a step the model solves on every run
    # (test_heal_check.py): the verify's recording is written back unproven.
    assert run(root, app_host, "--no-heal-check").exit_code == 0
    text = (root / "trails" / "sign-in.trail.yaml").read_text()
    assert "recordable: false\n  - verify" in text and "app_tap" not in text and "app_assertVisible" in text
    second = run(root, app_host)
    assert second.exit_code == 0, second.output
    assert len(server.requests) == 11 and (root / "trails" / "sign-in.trail.yaml").read_text() == text


def test_no_save_recording_leaves_the_trail_alone(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([*SIGN_IN, *VERIFY])
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": NL_TRAIL})
    assert run(root, app_host, "--no-save-recording").exit_code == 0
    assert (root / "trails" / "sign-in.trail.yaml").read_text() == NL_TRAIL


def test_use_recorded_steps_flags(app_host, workspace, llm_server, tb_llm_config) -> None:
    healthy = BROKEN.replace("app_tap: {ref: Sign up}", "app_tap: {ref: Sign in}").replace(
        "- app_type: {label: Email, value: '{{email}}'}", "- app_tap: {ref: Log in}")
    server = llm_server([*SIGN_IN, *VERIFY])
    root = workspace(tb_llm_config(server), {"ok.trail.yaml": healthy, "nl.trail.yaml": NL_TRAIL})
    forced_ai = run_cli(["run", "trails/ok.trail.yaml", "--output-dir", str(root / "logs"), "--memory",
                         "email=a@b.c", "--secret", "password=x", "--no-use-recorded-steps"], host=app_host, cwd=root)
    assert forced_ai.exit_code == 0, forced_ai.output
    assert len(server.requests) == 6  # the model solved both steps although they have recordings ...
    assert (root / "trails" / "ok.trail.yaml").read_text() == healthy  # ... and the recordings stay as they were
    forced_replay = run_cli(["run", "trails/nl.trail.yaml", "--output-dir", str(root / "logs"),
                             "--use-recorded-steps"], host=app_host, cwd=root)
    assert forced_replay.exit_code == 3 and "--use-recorded-steps forbids the agent" in forced_replay.output
    assert len(server.requests) == 6


def test_max_retries_bounds_attempts(app_host, workspace, llm_server, tb_llm_config) -> None:
    trail = NL_TRAIL.replace("  - step: Sign in as ann with the saved email and password\n",
                             "  - step: Sign in as ann with the saved email and password\n    maxRetries: 1\n")
    server = llm_server([give_up("the page looks wrong"), *SIGN_IN, *VERIFY])
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": trail})
    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    assert "A previous attempt at this step failed: the agent gave up: the page looks wrong" in server.requests[1].text
    server2 = llm_server([give_up("no"), give_up("still no")])
    (root / "trails" / "config" / "trailblaze.yaml").write_text(tb_llm_config(server2))
    (root / "trails" / "sign-in.trail.yaml").write_text(trail)
    again = run(root, app_host)
    assert again.exit_code == 1 and len(server2.requests) == 2 and "still no" in again.output


def test_vision_models_get_a_screenshot(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([*SIGN_IN, *VERIFY])
    config = tb_llm_config(server).replace("- id: scripted", "- id: scripted\n          vision: true")
    root = workspace(config, {"sign-in.trail.yaml": NL_TRAIL})
    assert run(root, app_host).exit_code == 0
    content = server.requests[0].body["messages"][-1]["content"]
    assert [part["type"] for part in content] == ["text", "image_url"]
    assert list((root / "logs").glob("*/llm_001_001.png"))  # step 1, first model call


def test_context_and_target_prompts_reach_the_system_prompt(app_host, workspace, llm_server, tb_llm_config) -> None:
    from trailblaze import hookimpl

    class TargetPrompt:
        @hookimpl
        def trailblaze_target_info(self, target: str) -> Any:
            from trailblaze.targets import TargetInfo

            return TargetInfo(id=target, system_prompt="Shop accounts end in @example.com.")

    app_host.register(TargetPrompt(), name="target-prompt")
    trail = NL_TRAIL.replace("  title: Sign in\n", "  title: Sign in\n  target: shop\n  context: Use the staging account.\n")
    server = llm_server([*SIGN_IN, *VERIFY])
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": trail})
    assert run(root, app_host).exit_code == 0
    system = server.requests[0].body["messages"][0]["content"]
    assert "Shop accounts end in @example.com." in system and system.endswith("Use the staging account.")
    # said in the step's turn, not the system text: the system text is the same for every step (a cached prefix)
    assert "This step is a verification" in server.requests[-1].body["messages"][1]["content"]
    assert "This step is a verification" not in server.requests[-1].body["messages"][0]["content"]


def test_the_html_report_shows_the_model_transcript_per_step(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([http_error(429, "slow down", retry_after=0), *SIGN_IN, *VERIFY])
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": NL_TRAIL})
    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    report = next((root / "logs" / "reports").glob("trailblaze_report_*.html")).read_text()
    assert "model fake/scripted: 5 requests, $0.0055" in report and "model fake/scripted: 1 request, $0.0011" in report
    assert "provider error" in report and "HTTP 429: slow down" in report
    assert "app_assertVisible" in report and SECRET not in report
