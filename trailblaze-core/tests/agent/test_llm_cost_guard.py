"""``--max-llm-cost``: the run stops handing steps to the model once its calls cost the cap, with a clear
message; tokens and cost are in the summary, the JUnit properties and the run history."""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET
from pathlib import Path

from trailblaze.testing import run_cli
from trailblaze.testing.llm import done

from .conftest import reply_usage
from .test_agent_runs import NL_TRAIL, SECRET, SIGN_IN, VERIFY, summary


def test_the_cap_stops_the_agent_reports_error_and_is_not_retried(app_host, workspace, llm_server,
                                                                  tb_llm_config) -> None:  # type: ignore[no-untyped-def]
    # 5,000 tokens in and 500 out at $1 / $2 per million: $0.006 a request, so the cap of $0.01 is spent
    # after the second request.
    server = llm_server([reply_usage(dataclasses.replace(r), 5000, 500) for r in [*SIGN_IN, *VERIFY]])
    root = workspace(tb_llm_config(server), {"a-sign-in.trail.yaml": NL_TRAIL,
                                             "b-again.trail.yaml": NL_TRAIL.replace("Sign in", "Again")})
    junit = root / "junit.xml"
    result = run_cli(["run", "trails", "--output-dir", str(root / "logs"), "--memory", "email=ann@example.com",
                      "--secret", f"password={SECRET}", "--max-llm-cost", "0.01", "--retries", "2",
                      "--junit-xml", str(junit), "--no-save-recording"], host=app_host, cwd=root)
    assert result.exit_code == 2, result.output
    assert len(server.requests) == 2  # no third request, no retry, nothing for the second trail
    assert "stopped before LLM call 3 of this step: the run's LLM budget is spent: $0.0120 of --max-llm-cost " \
           "$0.0100" in result.output
    assert "step 2 not run" in result.output and "step 1 not handed to the model" in result.output
    assert "↻" not in result.output
    assert "LLM: 2 requests, 11,000 tokens, $0.0120" in result.output
    reports = sorted((root / "logs" / "reports").glob("trailblaze_test_results_*.json"))
    document = json.loads(reports[-1].read_text())
    first = document["results"][0]
    assert first["outcome"] == "ERROR" and first["failure_kind"] == "LlmCostLimit"
    assert first["llm_tokens"] == 11000 and first["llm_cost_usd"] == 0.012
    assert first["llm_steps"] == [{"step": 1, "llm_call_count": 2, "llm_tokens": 11000, "llm_cost_usd": 0.012}]
    assert document["metadata"]["llm_cost_usd"] == 0.012 and document["metadata"]["llm_tokens"] == 11000
    case = ET.parse(junit).getroot().find(".//testcase")
    assert case is not None
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["trailblaze.llm_tokens"] == "11000" and props["trailblaze.llm_cost_usd"] == "0.012000"
    shown = run_cli(["results", "--json"], host=app_host, cwd=root)
    assert {r["last_statuses"][0] for r in json.loads(shown.output)} == {"ERROR"}
    assert SECRET not in (root / "logs" / "reports").joinpath(reports[-1].name).read_text()


def test_under_the_cap_nothing_changes(app_host, workspace, llm_server, tb_llm_config) -> None:  # type: ignore[no-untyped-def]
    server = llm_server([*SIGN_IN, *VERIFY])
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": NL_TRAIL})
    result = run_cli(["run", "trails", "--output-dir", str(root / "logs"), "--memory", "email=ann@example.com",
                      "--secret", f"password={SECRET}", "--max-llm-cost", "1"], host=app_host, cwd=root)
    assert result.exit_code == 0, result.output
    assert summary(root)["llm_tokens"] == 6 * 1050


ASK_TRAIL = """\
config:
  title: Greeting
  devices: {memory: SCREENS}
trail:
  - verify: The sign-in page is shown
    recording:
      memory:
        - assertWithAi:
            prompt: the page offers to sign in
"""


def test_memory_tools_questions_are_charged_to_the_same_cap(app_host, workspace, llm_server,
                                                            tb_llm_config) -> None:  # type: ignore[no-untyped-def]
    # A recorded assertWithAi replays without the agent but still asks the model: $0.012 a question
    # (10,000 tokens in, 1,000 out), so a cap of $0.01 is spent by the first trail's question and the
    # second trail's question is never sent.
    from trailblaze.testing.llm import call

    answer = call("booleanAssertion", result=True, reason="a Sign in button")
    server = llm_server([reply_usage(answer, 10000, 1000), reply_usage(dataclasses.replace(answer), 10000, 1000)])
    root = workspace(tb_llm_config(server), {"a.trail.yaml": ASK_TRAIL, "b.trail.yaml": ASK_TRAIL})
    result = run_cli(["run", "trails", "--output-dir", str(root / "logs"), "--max-llm-cost", "0.01",
                      "--retries", "1", "--no-save-recording"], host=app_host, cwd=root)
    assert result.exit_code == 2, result.output
    assert len(server.requests) == 1, result.output  # the second question was refused, and not retried
    assert "tool 'assertWithAi'" in result.output and "the run's LLM budget is spent: $0.0120" in result.output
    reports = sorted((root / "logs" / "reports").glob("trailblaze_test_results_*.json"))
    results = {Path(r["trail_source"]).name: r for r in json.loads(reports[-1].read_text())["results"]}
    assert results["a.trail.yaml"]["outcome"] == "PASSED", results
    assert results["b.trail.yaml"]["outcome"] == "ERROR" and results["b.trail.yaml"]["failure_kind"] == "LlmCostLimit"
    assert "↻" not in result.output


def test_the_cap_is_the_runs_across_n_workers(workspace, llm_server, tb_llm_config, trailblaze_cmd) -> None:  # type: ignore[no-untyped-def]
    # $0.006 a request, a cap of $0.01: spent after two requests, whichever workers sent them. Each worker
    # counting alone would send two each (four); together they stop at two, or three when the other worker
    # had one in flight as the cap was reached.
    server = llm_server(lambda request: reply_usage(done("looked"), 5000, 500))
    trails = {f"t{i}.trail.yaml": f"config:\n  id: t{i}\ntrail:\n  - step: look at the screen\n" for i in range(6)}
    root = workspace(tb_llm_config(server), trails)
    result = trailblaze_cmd(["run", "trails", "-n", "2", "--driver", "host", "--max-llm-cost", "0.01",
                             "--no-save-recording", "--output-dir", "logs"], cwd=root)
    assert result.returncode == 2, result.stdout + result.stderr
    assert 2 <= len(server.requests) <= 3
    assert "of --max-llm-cost $0.0100 (all workers together" in result.stdout
    assert not list((root / "logs").glob(".llm-spend-*"))  # the workers' running total goes with the run
    # The closing lines are a plain run's: what the model cost, then the results.
    calls = len(server.requests)
    assert f"LLM: {calls} requests, {calls * 5500:,} tokens, ${calls * 0.006:.4f}" in result.stdout.splitlines()[-2:-1]
