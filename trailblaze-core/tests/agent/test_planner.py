"""``trailblaze plan`` on the in-memory app (no browser): which tools the read-only planner is offered (by
tool metadata, a plugin's tools included), what it answers a model that tries an action anyway, the
``--max-cost`` bound, and the bad-input exits. The web shop's end to end is tests/test_plan_web_shop.py."""

from __future__ import annotations

from pathlib import Path

from trailblaze.testing import run_cli
from trailblaze.testing.llm import RecordedRequest, Reply, call

PLAN_TOOLS = {"plan_step", "plan_done"}


def plan(root: Path, host: object, *args: str) -> object:
    return run_cli(["plan", "--goal", "Sign in as ann", "--driver", "screens", "--save",
                    str(root / "trails" / "signin.trail.yaml"), *args], host=host, cwd=root)


def test_read_only_offers_no_action_and_refuses_one_the_model_tries(app_host, workspace, llm_server,
                                                                     tb_llm_config) -> None:
    def model(request: RecordedRequest) -> Reply:
        results = request.tool_results()
        if not results:
            return call("app_tap", ref="Sign in")  # an action: not offered, so refused, the app unchanged
        if len(results) == 1:
            return call("plan_step", kind="step", text="Tap Sign in", why="the form is behind it")
        return call("plan_done", summary="home screen only")

    server = llm_server(model)
    root = workspace(tb_llm_config(server))
    result = plan(root, app_host)
    assert result.exit_code == 0, result.output
    offered = set(server.requests[0].tool_names)
    assert {"app_assertVisible", *PLAN_TOOLS} <= offered and not {"app_tap", "app_type"} & offered
    refused = server.requests[1].tool_results()[0]
    assert "unknown tool 'app_tap' (read-only" in refused
    screen = server.requests[1].last_user_text()  # nothing was tapped: still the home screen
    assert "Welcome" in screen and "Password" not in screen
    assert "- step: Tap Sign in" in (root / "trails" / "signin.trail.yaml").read_text()
    assert "devices:\n    memory: screens" in (root / "trails" / "signin.trail.yaml").read_text()


def test_allow_actions_offers_the_whole_toolbox(app_host, workspace, llm_server, tb_llm_config) -> None:
    def model(request: RecordedRequest) -> Reply:
        if not request.tool_results():
            return call("app_tap", ref="Sign in")
        if len(request.tool_results()) == 1:
            return call("plan_step", kind="verify", text="The sign-in form asks for an email")
        return call("plan_done", summary="opened the sign-in form")

    server = llm_server(model)
    root = workspace(tb_llm_config(server))
    result = plan(root, app_host, "--allow-actions")
    assert result.exit_code == 0, result.output
    assert {"app_tap", "app_type", "app_assertVisible"} <= set(server.requests[0].tool_names)
    assert "tapped 'Sign in'" in server.requests[1].tool_results()[0]
    assert "actions allowed" in (root / "trails" / "signin.plan.md").read_text()


def test_max_cost_stops_the_exploration_and_keeps_what_was_planned(app_host, workspace, llm_server,
                                                                   tb_llm_config) -> None:
    def model(request: RecordedRequest) -> Reply:
        if not request.tool_results():
            return call("plan_step", kind="step", text="Open the sign-in form")
        return call("app_assertVisible", text="Welcome")  # looks around for ever

    server = llm_server(model)  # each reply: 1000 tokens in at $1/M, 50 out at $2/M = $0.0011
    root = workspace(tb_llm_config(server))
    result = plan(root, app_host, "--max-cost", "0.002")
    assert result.exit_code == 1, result.output
    assert len(server.requests) == 2
    assert "spent $0.0022 of --max-cost $0.0020 before the model called plan_done" in result.output
    assert "- step: Open the sign-in form" in (root / "trails" / "signin.trail.yaml").read_text()
    markdown = (root / "trails" / "signin.plan.md").read_text()
    assert "stopped early: spent $0.0022" in markdown and "cost $0.0022" in markdown


def test_bad_input_exits_3_before_a_model_call(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([])
    root = workspace(tb_llm_config(server))
    bad_name = run_cli(["plan", "--goal", "x", "--driver", "screens", "--save", str(root / "plan.yaml")],
                       host=app_host, cwd=root)
    assert bad_name.exit_code == 3 and "not a trail file name" in bad_name.output
    unpriced = workspace(tb_llm_config(server).replace("cost: {input_per_million: 1.0, output_per_million: 2.0}",
                                                       "vision: false"))
    no_price = plan(unpriced, app_host, "--max-cost", "1")
    assert no_price.exit_code == 3 and "--max-cost needs the price of model fake/scripted" in no_price.output
    assert server.requests == []
