"""Healed (and agent-solved) recordings are proven before they are saved: the trail is replayed once more
from its start in a fresh session without the model, and only a replay that passes lets the recordings
into the trail file; otherwise they go to ``<name>.healed.trail.yaml`` beside it. Against the in-memory
app (a new driver per session: ``ScreensDriver.instances`` counts the sessions) and a scripted model
served over HTTP (stopped by its fixture)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from trailblaze import hookimpl
from trailblaze.testing import installed_host, new_host
from trailblaze.runner.discovery import expand, is_trail_file
from trailblaze.runner.heal_check import proposal_path
from trailblaze.testing import run_cli
from trailblaze.testing.llm import call, done
from trailblaze.trail.parser import load_trail

from .conftest import AppAssertVisible, AppTap, ScreensConfig, ScreensDriver
from .test_step_status import ACCOUNT, HEAL, SIGN_IN

# Step 1's recording opens the sign-in page, then taps a button that is called "Log in" now. The model,
# handed the step where the broken recording left the screen (the sign-in page), taps "Log in": that only
# works mid-flow, because from the step's start (the home screen) there is no "Log in".
MID_FLOW = """\
config:
  id: shop/greeting
  devices: {memory: SCREENS}   # the in-memory app
trail:
  - step: Open the account page
    recording:
      memory:
        - app_tap: {ref: Sign in}
        - app_tap: {ref: Continue}   # the button is called "Log in" now
  - verify: The greeting for ann is shown
    recording:
      memory:
        - app_assertVisible: {text: "Hello, ann"}
"""
MID_FLOW_HEAL = [call("app_tap", ref="Log in"), done("on the account page")]


def result_of(out: Path) -> dict[str, Any]:
    files = sorted((out / "reports").glob("trailblaze_test_results_*.json"))
    return json.loads(files[-1].read_text())["results"][0]  # type: ignore[no-any-return]


def recording(path: Path, number: int) -> list[tuple[str, dict[str, Any]]]:
    """Step ``number``'s recording for the in-memory app, as the file now reads."""
    found = next(s for s in load_trail(path).steps if s.number == number).recording_for(["memory"])
    assert found is not None
    return [(c.name, dict(c.args)) for c in found[1]]


def test_replayed_agent_and_healed_steps_are_proven_from_the_start_then_written_back(
        app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([*SIGN_IN, *HEAL])
    root = workspace(tb_llm_config(server), {"account.trail.yaml": ACCOUNT})
    path = root / "trails" / "account.trail.yaml"
    result = run_cli(["run", "trails", "--self-heal", "--output-dir", str(root / "logs")], host=app_host, cwd=root)
    assert result.exit_code == 0, result.output
    assert server.remaining == 0  # the proving replay asked the model nothing

    trail = result_of(root / "logs")
    assert [s["mode"] for s in trail["steps"]] == ["replayed", "agent", "healed"]
    check = trail["heal_check"]
    assert (check["status"], check["written"], check["proposal"], check["step"]) == ("proven", True, None, None)
    assert len(ScreensDriver.instances) == 2  # the run's session and the proving replay's, a fresh one
    assert check["log_dir"] and Path(check["log_dir"]).is_dir() and check["log_dir"] != trail["log_dir"]
    assert "heal check: replaying account.trail.yaml from its start without the model" in result.output
    assert "✓ heal check: proven" in result.output

    # The trail file has the recordings: the agent's step and the healed one (the whole slot replaced).
    assert recording(path, 2) == [("app_type", {"label": "Email", "value": "ann@example.com"}),
                                  ("app_type", {"label": "Password", "value": "pw"}), ("app_tap", {"ref": "Log in"})]
    assert recording(path, 3) == [("app_tap", {"ref": "Sign out"})]
    assert "# the in-memory app" in path.read_text()  # a round-trip edit: comments survive
    assert not proposal_path(path).exists()


def test_a_heal_that_only_works_mid_flow_leaves_the_trail_alone_and_writes_a_proposal(
        app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server(MID_FLOW_HEAL)
    root = workspace(tb_llm_config(server), {"greeting.trail.yaml": MID_FLOW})
    path = root / "trails" / "greeting.trail.yaml"
    before = path.read_bytes()
    result = run_cli(["run", "trails", "--self-heal", "--output-dir", str(root / "logs"), "--junit-xml",
                      str(root / "junit.xml")], host=app_host, cwd=root)

    # The trail passed this run (healed); only the write-back was refused, and the run says why.
    assert result.exit_code == 0, result.output
    trail = result_of(root / "logs")
    assert trail["outcome"] == "HEALED"
    # The model was told to redo the step whole: its calls become the step's recording from its start.
    assert "What you do now becomes this step's whole recording" in server.requests[0].text
    assert [s["mode"] for s in trail["steps"]] == ["healed", "replayed"]
    check = trail["heal_check"]
    assert (check["status"], check["written"], check["step"], check["tool"]) == ("not_proven", False, 1, "app_tap")
    assert "no element 'Log in' on screen 'home'" in check["message"]
    proposal = root / "trails" / "greeting.healed.trail.yaml"
    assert root / check["proposal"] == proposal  # as the run names the trail (relative to where it ran)
    assert "! heal check not proven: step 1 \"Open the account page\": tool 'app_tap'" in result.output
    assert f"trails/greeting.trail.yaml is unchanged; the new recordings are in {check['proposal']}" in result.output

    # The HTML report, JUnit and a merge of the run's bundle say the same.
    html = next((root / "logs" / "reports").glob("*.html")).read_text()
    shown = re.search(r"<div class=meta data-heal-check='not_proven'>(.*?)</div>", html)
    assert shown is not None and "not proven, the trail is unchanged" in shown.group(1)
    assert "greeting.healed.trail.yaml</code>" in shown.group(1)
    case = ET.parse(root / "junit.xml").getroot().find(".//testcase")
    assert case is not None
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert (props["trailblaze.heal_check"], props["trailblaze.heal_proposal"]) == ("not_proven", check["proposal"])
    merged = run_cli(["merge-reports", str(root / "logs"), "--output-dir", str(root / "merged")], host=app_host, cwd=root)
    assert merged.exit_code == 0, merged.output
    again = json.loads((root / "merged" / "summary.json").read_text())["results"][0]["heal_check"]
    assert Path(again.pop("log_dir")).name == Path(check.pop("log_dir")).name  # placed as the trail's log_dir is
    assert again == check

    assert path.read_bytes() == before
    # The proposal is the trail with the step's new recording: the agent's calls only, never spliced
    # onto the broken recording's first calls; the rest of the file (comments too) as it was.
    assert recording(proposal, 1) == [("app_tap", {"ref": "Log in"})]
    assert recording(proposal, 2) == [("app_assertVisible", {"text": "Hello, ann"})]
    assert "# the in-memory app" in proposal.read_text()
    # A proposal is not a trail of the suite: a directory never yields it (named, it runs like any).
    assert not is_trail_file(proposal) and expand([str(root / "trails")]) == [path]


def test_no_heal_check_writes_back_without_a_second_replay(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server(MID_FLOW_HEAL)
    root = workspace(tb_llm_config(server), {"greeting.trail.yaml": MID_FLOW})
    path = root / "trails" / "greeting.trail.yaml"
    result = run_cli(["run", "trails", "--self-heal", "--no-heal-check", "--output-dir", str(root / "logs")],
                     host=app_host, cwd=root)
    assert result.exit_code == 0, result.output
    assert len(ScreensDriver.instances) == 1  # no proving replay
    check = result_of(root / "logs")["heal_check"]
    assert (check["status"], check["written"], check["proposal"]) == ("skipped", True, None)
    assert "--no-heal-check" in check["message"]
    assert recording(path, 1) == [("app_tap", {"ref": "Log in"})]
    assert not proposal_path(path).exists() and "heal check" not in result.output


FAILS_LATER = """\
config:
  devices: {memory: SCREENS}
trail:
  - step: Sign in as ann
  - verify: The cart is shown
    recording:
      memory:
        - app_assertVisible: {text: "Cart (1)"}
"""


def test_a_trail_that_fails_after_the_agent_solved_a_step_proposes_instead_of_writing(
        app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([call("app_tap", ref="Sign in"), *SIGN_IN])
    root = workspace(tb_llm_config(server), {"cart.trail.yaml": FAILS_LATER})
    path = root / "trails" / "cart.trail.yaml"
    before = path.read_bytes()
    result = run_cli(["run", "trails", "--output-dir", str(root / "logs")], host=app_host, cwd=root)
    assert result.exit_code == 1, result.output
    check = result_of(root / "logs")["heal_check"]
    assert check["status"] == "skipped" and check["message"].startswith("the trail did not pass (failed)")
    assert path.read_bytes() == before and len(ScreensDriver.instances) == 1
    assert [name for name, _ in recording(proposal_path(path), 1)] == ["app_tap", "app_type", "app_type", "app_tap"]


def test_a_proving_replay_never_asks_the_model(app_host, workspace, llm_server, tb_llm_config) -> None:
    """A step the model solves on every run (``recordable: false``) cannot be replayed: the proof fails
    there, without a model call, and the recordings become a proposal."""
    server = llm_server([call("app_tap", ref="Sign in"), done("open"), done("looked")])
    root = workspace(tb_llm_config(server), {"look.trail.yaml": """\
        config:
          devices: {memory: SCREENS}
        trail:
          - step: Open the sign-in page
          - step: Look around
            recordable: false
        """})
    result = run_cli(["run", "trails", "--output-dir", str(root / "logs")], host=app_host, cwd=root)
    assert result.exit_code == 0, result.output
    assert server.remaining == 0 and len(server.requests) == 3  # two for step 1, one for step 2, none after
    check = result_of(root / "logs")["heal_check"]
    assert (check["status"], check["step"]) == ("not_proven", 2)
    assert "no recording to replay (recordable: false); a proving replay runs without the model" in check["message"]
    assert proposal_path(root / "trails" / "look.trail.yaml").is_file()


def test_the_pytest_plugin_proves_through_the_same_decision(app_host, workspace, llm_server, tb_llm_config,
                                                             pytester: pytest.Pytester) -> None:
    server = llm_server([*MID_FLOW_HEAL, *MID_FLOW_HEAL])
    root = workspace(tb_llm_config(server), {"greeting.trail.yaml": MID_FLOW})
    path = root / "trails" / "greeting.trail.yaml"
    before = path.read_bytes()
    args = ["-p", "no:cacheprovider", "--trails", str(path), "--trailblaze-self-heal",
            "--trailblaze-output-dir", str(root / "logs")]
    pytester.runpytest_inprocess(*args).assert_outcomes(passed=1)
    assert path.read_bytes() == before and recording(proposal_path(path), 1) == [("app_tap", {"ref": "Log in"})]
    assert result_of(root / "logs")["heal_check"]["status"] == "not_proven"

    pytester.runpytest_inprocess(*args, "--trailblaze-no-heal-check").assert_outcomes(passed=1)
    assert recording(path, 1) == [("app_tap", {"ref": "Log in"})] and server.remaining == 0


RETRIED = """\
config:
  devices: {memory: SCREENS}
trail:
  - step: Open the sign-in page
  - verify: The sign-in form is shown
    recording:
      memory:
        - app_assertVisible: {text: Email}
"""


def test_a_retry_that_is_proven_replaces_the_earlier_attempt_s_proposal(app_host, workspace, llm_server,
                                                                         tb_llm_config) -> None:
    # Attempt 1: the model opens the catalog (the verify fails: a proposal). Attempt 2: the sign-in page.
    server = llm_server([call("app_tap", ref="Browse"), done("open"), call("app_tap", ref="Sign in"), done("open")])
    root = workspace(tb_llm_config(server), {"form.trail.yaml": RETRIED})
    path = root / "trails" / "form.trail.yaml"
    result = run_cli(["run", "trails", "--retries", "1", "--output-dir", str(root / "logs")], host=app_host, cwd=root)
    assert result.exit_code == 0, result.output
    assert f"the new recordings are in {Path('trails/form.healed.trail.yaml')}" in result.output  # attempt 1
    trail = result_of(root / "logs")
    assert trail["outcome"] == "FLAKY" and trail["heal_check"]["status"] == "proven"
    assert recording(path, 1) == [("app_tap", {"ref": "Sign in"})]
    assert not proposal_path(path).exists()  # the earlier attempt's proposal, superseded by the proven one


class TabletConfig(ScreensConfig):
    classifiers: list[str] = ["tablet"]


class TabletDriver(ScreensDriver):
    """The in-memory app on a second kind of device: its recordings go to the ``tablet:`` slot."""

    key = "tablets"
    aliases = ("TABLETS",)
    platform = "tablet"
    config_model = TabletConfig
    default_classifiers = ("tablet",)


class TwoDevicesPlugin:
    @hookimpl
    def trailblaze_register_drivers(self, registry: Any) -> None:
        registry.add_driver(ScreensDriver)
        registry.add_driver(TabletDriver)

    @hookimpl
    def trailblaze_register_tools(self, registry: Any) -> None:
        for cls in (AppTap, AppAssertVisible):
            registry.add(replace(cls.definition(), drivers=frozenset({"screens", "tablets"})))


def test_two_devices_not_proven_at_once_keep_both_recordings_in_one_proposal(workspace, llm_server,
                                                                              tb_llm_config) -> None:
    """``-d`` with two devices runs them at once, each healing into its own slot: one proposal holds both
    (before, the last device's proposal replaced the first's and its recordings were lost)."""
    ScreensDriver.instances.clear()
    host = new_host()
    host.register(TwoDevicesPlugin(), name="two-devices")
    both = MID_FLOW.replace("devices: {memory: SCREENS}", "devices: {memory: SCREENS, tablet: TABLETS}")
    both = both.replace("        - app_tap: {ref: Continue}   # the button is called \"Log in\" now\n",
                        "        - app_tap: {ref: Continue}   # the button is called \"Log in\" now\n"
                        "      tablet:\n        - app_tap: {ref: Sign in}\n        - app_tap: {ref: Continue}\n")
    both += "      tablet:\n        - app_assertVisible: {text: \"Hello, ann\"}\n"
    # Each device asks on its own thread: the answer depends on the request (has it tapped yet?).
    server = llm_server(lambda request: done("on the account page") if "tapped 'Log in'" in request.text
                        else call("app_tap", ref="Log in"))
    root = workspace(tb_llm_config(server), {"greeting.trail.yaml": both})
    path = root / "trails" / "greeting.trail.yaml"
    before = path.read_bytes()
    with installed_host(host):
        result = run_cli(["run", "trails", "--self-heal", "-d", "memory/s1", "-d", "tablet/t1", "--output-dir",
                          str(root / "logs")], host=host, cwd=root)
    assert result.exit_code == 0, result.output
    assert result.output.count("! heal check not proven") == 2, result.output
    assert path.read_bytes() == before
    proposal = root / "trails" / "greeting.healed.trail.yaml"
    for classifier in ("memory", "tablet"):
        step = next(s for s in load_trail(proposal).steps if s.number == 1)
        found = step.recording_for([classifier])
        assert found is not None and found[0] == classifier
        assert [(c.name, dict(c.args)) for c in found[1]] == [("app_tap", {"ref": "Log in"})], classifier
