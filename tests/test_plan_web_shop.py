"""``trailblaze plan`` on the example web shop, in real CLI processes with headless Chromium and the scripted
model server: the planner writes a draft that ``check`` accepts and a plan that names the goal, offers the
model no action tool unless ``--allow-actions``, stops at ``--max-steps``; ``run`` on the draft records it
(the generator) and ``--self-heal`` repairs it (the healer). Every shell line of docs/plan.md runs here."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_agent_web_shop import workspace
from trailblaze.testing import CliProcess
from trailblaze.testing.llm import RecordedRequest, Reply, ScriptedLlmServer, always, call, calls, done, http_error

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "plan.md"
PASSWORD = "secret123"
SIGN_IN = "Sign in with the remembered email and password"
WELCOME = "The header welcomes the user by email"
ACTIONS = {"web_click", "web_type", "web_fillSecret", "web_selectOption", "web_pressKey", "web_uploadFile"}

pytestmark = pytest.mark.browser


class ShopPlanner:
    """Plays the planner's model (``Goal: …`` requests) and then the run's agent (``Step N of M: …``)."""

    def __call__(self, request: RecordedRequest) -> Reply:
        objective = request.objective
        done_so_far = len(request.tool_results())
        if objective.startswith("Goal: Sign in"):
            if done_so_far == 0:
                return call("web_navigate", url="/")
            if done_so_far == 1:
                request.ref_on_screen('button "Sign in"')  # it planned from what the page shows
                return calls(("plan_step", {"kind": "step", "text": SIGN_IN, "why": "the goal needs a user"}),
                             ("plan_step", {"kind": "verify", "text": WELCOME, "why": "proves the sign-in"}))
            return call("plan_done", summary="The start page is the sign-in form; signing in shows a welcome.")
        if objective.startswith("Goal: Find the blue mug"):  # never finishes: --max-steps stops it
            if done_so_far == 0:
                return call("plan_step", kind="step", text="Search for the blue mug")
            return call("web_currentUrl")
        if objective.endswith(": Open /"):
            return [call("web_navigate", url="/"), done("the sign-in page is open")][min(done_so_far, 1)]
        if SIGN_IN in objective:
            plan = [lambda: call("web_type", ref=request.ref_on_screen('textbox "Email"'), text="{{email}}"),
                    lambda: call("web_fillSecret", ref=request.ref_on_screen('textbox "Password"'),
                                 value="{{password}}"),
                    lambda: call("web_click", ref=request.ref_on_screen('button "Sign in"')),
                    lambda: done("signed in")]
            return plan[min(done_so_far, 3)]()
        if WELCOME in objective:
            return call("web_verifyTextVisible", text="Welcome, {{email}}")
        raise AssertionError(f"unexpected objective: {objective}")


def doc_lines() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [ln.strip() for b in blocks for ln in b.splitlines() if ln.strip() and not ln.strip().startswith("#")]


def cli(root: Path, args: list[str]) -> tuple[int, str]:
    env = {"TRAILBLAZE_HOME": str(root.parent / "home"), "SHOP_PASSWORD": PASSWORD}
    return CliProcess(args, cwd=root, env=env).finish(timeout=300)


def doc(root: Path, line: str) -> tuple[int, str]:
    words = shlex.split(line)
    assert words[0] == "trailblaze", line
    return cli(root, words[1:])


def plan_requests(server: ScriptedLlmServer, start: int = 0) -> list[RecordedRequest]:
    return [r for r in server.requests[start:] if r.objective.startswith("Goal:")]


def test_plan_then_check_run_and_heal_the_draft_as_the_docs_say(tmp_path: Path) -> None:
    lines = doc_lines()
    assert [ln.split()[1] for ln in lines] == ["plan", "plan", "check", "run", "run"]
    with ScriptedLlmServer(ShopPlanner()) as server:
        root = workspace(tmp_path, server, {})
        draft = root / "trails" / "draft.trail.yaml"

        code, out = doc(root, lines[0])  # the planner
        assert code == 0, out
        assert "+ step: " + SIGN_IN in out and "web_navigate {url: /}" in out
        text = draft.read_text()
        assert "title: Sign in and see the welcome" in text and "recording:" not in text
        assert f"trail:\n  - step: Open /\n  - step: {SIGN_IN}\n  - verify: {WELCOME}\n" in text
        assert "devices:\n    web: playwright-native" in text and "target: shop" in text
        plan_md = (root / "trails" / "draft.plan.md").read_text()
        assert plan_md.startswith("# Test plan: Sign in and see the welcome")
        assert "| 3 | verify | The header welcomes the user by email | proves the sign-in |" in plan_md
        assert "read-only" in plan_md and "finished" in plan_md
        # Read-only: no request offered a tool that changes the app; it could look and move around.
        planning = plan_requests(server)
        assert len(planning) == 3
        for request in planning:
            names = set(request.tool_names)
            assert not names & ACTIONS, names & ACTIONS
            assert {"web_navigate", "web_scroll", "plan_step", "plan_done"} <= names
            assert "objectiveStatus" not in names

        code, out = cli(root, ["tools", "--json"])  # the metadata the choice was made from
        listed = {t["name"]: t["isReadOnly"] for t in json.JSONDecoder().raw_decode(out[out.index("["):])[0]}
        assert listed["web_navigate"] and listed["web_scroll"] and not listed["web_click"], listed

        before = len(server.requests)  # a bound: the model never calls plan_done
        code, out = doc(root, lines[1])
        assert code == 1, out
        assert "reached --max-steps 3 before the model called plan_done" in out
        bounded = plan_requests(server, before)
        assert len(bounded) == 3 and "web_click" in bounded[0].tool_names  # --allow-actions offers actions
        assert "Search for the blue mug" in (root / "trails" / "mug.trail.yaml").read_text()
        assert "stopped early: reached --max-steps 3" in (root / "trails" / "mug.plan.md").read_text()
        (root / "trails" / "mug.trail.yaml").unlink()  # the run below runs the draft alone

        code, out = doc(root, lines[2])  # check accepts the draft
        assert code == 0, out

        code, out = doc(root, lines[3])  # the generator: the agent solves and records every step
        assert code == 0, out
        recorded = draft.read_text()
        assert recorded.count("recording:") == 3 and "web_fillSecret" in recorded
        assert PASSWORD not in recorded and PASSWORD not in server.bodies_text()

        # The healer: the app renamed its button; the broken recording is re-solved and written back.
        broken = recorded.replace('ref: button "Sign in"', 'ref: button "Log me in"').replace(
            "ariaNameRegex: Sign in", "ariaNameRegex: Log me in")
        assert broken.count("Log me in") == 2
        draft.write_text(broken)
        code, out = doc(root, lines[4])
        assert code == 0 and "healed" in out, out
        assert "Log me in" not in draft.read_text() and 'ref: button "Sign in"' in draft.read_text()


def test_plan_refuses_to_overwrite_and_needs_a_goal_and_a_model(tmp_path: Path) -> None:
    with ScriptedLlmServer(ShopPlanner()) as server:
        root = workspace(tmp_path, server, {"draft.trail.yaml": "trail:\n  - step: Mine\n"})
        code, out = cli(root, ["plan", "/", "--goal", "Sign in"])
        assert code == 3 and "trails/draft.trail.yaml already exists" in out and "--force" in out, out
        code, out = cli(root, ["plan", "/", "--goal", "  ", "--save", "trails/new.trail.yaml"])
        assert code == 3 and "the goal is empty" in out, out
        code, out = cli(root, ["plan", "/", "--goal", "Sign in", "--save", "trails/new.trail.yaml",
                               "--llm", "none"])
        assert code == 3 and "needs a model" in out, out
        assert server.requests == []
        assert (root / "trails" / "draft.trail.yaml").read_text() == "trail:\n  - step: Mine\n"
        assert not (root / "trails" / "new.trail.yaml").exists()


def test_plan_with_the_model_down_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    with ScriptedLlmServer(always(http_error(500, "the model is down"))) as server:
        root = workspace(tmp_path, server, {})
        code, out = cli(root, ["plan", "/", "--goal", "Sign in"])
        assert code == 2 and "the model is down" in out, out
        assert not (root / "trails" / "draft.trail.yaml").exists()
        assert len(server.requests) >= 1

