"""Per-step status: which steps replayed and which went to the model, and why, in the JSON summary, the
result bundle (so ``merge-reports`` says the same), the console, the HTML report, JUnit and the run
history — against the in-memory app and a scripted model served over HTTP."""

from __future__ import annotations

import json
import re
import shlex
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from trailblaze.errors import ExitCode
from trailblaze.memory import Redactor
from trailblaze.report.bundle import StepRecord
from trailblaze.results.model import RunResult, StepResult, TrailResult
from trailblaze.session import SessionOutcome
from trailblaze.testing import run_cli
from trailblaze.testing.llm import Reply, call, done, give_up

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "docs" / "agent.md"

ACCOUNT = """\
config:
  id: shop/account
  devices: {memory: SCREENS}   # the in-memory app
trail:
  - step: Open the sign-in page
    recording:
      memory:
        - app_tap: {ref: Sign in}
  - step: Sign in as ann
  - step: Sign out
    recording:
      memory:
        - app_tap: {ref: Log out}   # the button is called "Sign out" now
"""


def cached(reply: Reply, tokens: int) -> Reply:
    reply.cached_input_tokens = tokens
    return reply


SIGN_IN = [call("app_type", label="Email", value="ann@example.com"), call("app_type", label="Password", value="pw"),
           call("app_tap", ref="Log in"), done("signed in")]
HEAL = [cached(call("app_tap", ref="Sign out"), 600), cached(done("signed out"), 600)]


def summary(out: Path) -> dict[str, Any]:
    files = sorted((out / "reports").glob("trailblaze_test_results_*.json"))
    return json.loads(files[-1].read_text())["results"][0]  # type: ignore[no-any-return]


class StepModes(HTMLParser):
    """The report's per-step mode badges, the reasons and the token counts, in page order."""

    def __init__(self) -> None:
        super().__init__()
        self.modes: list[str] = []
        self.reasons: list[str] = []
        self.tokens: list[str] = []
        self._into: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("data-mode"):
            self.modes.append(str(found["data-mode"]))
        if found.get("class") in ("reason", "tokens"):
            self._into = self.reasons if found["class"] == "reason" else self.tokens
            self._into.append("")

    def handle_data(self, data: str) -> None:
        if self._into is not None:
            self._into[-1] += data

    def handle_endtag(self, tag: str) -> None:
        self._into = None


def test_replayed_agent_and_healed_steps_with_reasons_and_tokens_everywhere(app_host, workspace, llm_server,
                                                                           tb_llm_config) -> None:
    server = llm_server([*SIGN_IN, *HEAL])
    root = workspace(tb_llm_config(server), {"account.trail.yaml": ACCOUNT})
    out = root / "logs"
    result = run_cli(["run", "trails", "--self-heal", "--output-dir", str(out), "--junit-xml", str(root / "junit.xml")],
                     host=app_host, cwd=root)
    assert result.exit_code == 0, result.output
    assert server.remaining == 0

    trail = summary(out)
    steps = trail["steps"]
    assert [(s["index"], s["kind"], s["mode"]) for s in steps] == [(1, "step", "replayed"), (2, "step", "agent"),
                                                                   (3, "step", "healed")]
    replayed, agent, healed = steps
    assert replayed["reason"] is None and replayed["llm_call_count"] == 0 and replayed["text"] == "Open the sign-in page"
    assert replayed["tool_calls"] == [{"name": "app_tap", "args": {"ref": "Sign in"}}]
    assert agent["reason"] == "no recording for this device"
    assert healed["reason"].startswith("recording failed: tool 'app_tap' (") and "no element 'Log out'" in healed["reason"]
    assert (agent["llm_call_count"], agent["llm_tokens"], agent["tokens"]) == (
        4, 4200, {"input": 4000, "output": 200, "cached": 0})
    assert (healed["llm_call_count"], healed["llm_tokens"], healed["tokens"]) == (
        2, 2100, {"input": 2000, "output": 100, "cached": 1200})
    assert agent["llm_cost_usd"] > 0 and healed["llm_cost_usd"] > 0
    assert sum(s["llm_cost_usd"] for s in steps) == pytest.approx(trail["llm_cost_usd"])
    assert [c["name"] for c in agent["tool_calls"]] == ["app_type", "app_type", "app_tap"]
    assert agent["tool_calls"][2] == {"name": "app_tap", "args": {"ref": "Log in"}}
    assert healed["tool_calls"] == [{"name": "app_tap", "args": {"ref": "Sign out"}}]
    assert all(s["duration_ms"] >= 0 and s["message"] is None for s in steps)
    assert trail["step_modes"] == {"replayed": 1, "agent": 1, "healed": 1, "skipped": 0, "failed": 0}

    # The console marks the steps the model ran, and the Results line counts them.
    assert "[agent: no recording for this device · 4 LLM calls, 4,200 tokens]" in result.output
    assert "[healed: recording failed · 2 LLM calls, 2,100 tokens]" in result.output
    assert "      recording failed: tool 'app_tap'" in result.output
    assert result.output.strip().splitlines()[-1] == (
        "Results: 1 passed, 0 failed, 0 skipped (1 healed); steps: 1 replayed, 2 by the model (1 agent, 1 healed)")

    # JUnit carries the counts as properties.
    case = ET.parse(root / "junit.xml").getroot().find(".//testcase")
    assert case is not None
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert (props["trailblaze.steps_replayed"], props["trailblaze.steps_agent"], props["trailblaze.steps_healed"]) == \
        ("1", "1", "1")
    assert (props["trailblaze.llm_calls"], props["trailblaze.llm_tokens"]) == ("6", "6300")

    # The HTML report shows each step's mode, why the model ran it and its tokens.
    page = StepModes()
    page.feed(next((out / "reports").glob("*.html")).read_text())
    assert page.modes == ["replayed", "agent", "healed"]
    assert page.reasons[0] == "the model ran this step: no recording for this device"
    assert page.reasons[1].startswith("the model ran this step: recording failed: tool 'app_tap'")
    assert page.tokens == ["4,000 in / 200 out / 0 cached tokens", "2,000 in / 100 out / 1,200 cached tokens"]

    # The bundle keeps the steps: a merge of it lists them as the run did (one model, decided once).
    merged = run_cli(["merge-reports", str(out), "--output-dir", str(root / "merged"), "--junit-xml",
                      str(root / "merged" / "junit.xml")], host=app_host, cwd=root)
    assert merged.exit_code == 0, merged.output
    assert json.loads((root / "merged" / "summary.json").read_text())["results"][0]["steps"] == steps
    assert "steps: 1 replayed, 2 by the model (1 agent, 1 healed)" in merged.output
    merged_case = ET.parse(root / "merged" / "junit.xml").getroot().find(".//testcase")
    assert merged_case is not None
    assert {p.get("name"): p.get("value") for p in merged_case.iter("property")}["trailblaze.steps_healed"] == "1"

    # The healed recording was written back: the next run replays every step and says nothing more.
    again = run_cli(["run", "trails", "--output-dir", str(root / "again")], host=app_host, cwd=root)
    assert again.exit_code == 0, again.output
    assert [s["mode"] for s in summary(root / "again")["steps"]] == ["replayed"] * 3
    assert again.output.strip().splitlines()[-1] == "Results: 1 passed, 0 failed, 0 skipped"
    history = run_cli(["results", "shop/account", "--json"], host=app_host, cwd=root)
    assert json.loads(history.output)[0]["agent_step_rate"] == round(2 / 6, 4)


FAILING = """\
config:
  devices: {memory: SCREENS}
trail:
  - step: Open the sign-in page
    recording:
      memory:
        - app_tap: {ref: Sign in}
  - step: Sign in with the one-time code
    recordable: false
  - verify: The greeting for ann is shown
"""


def test_a_step_the_model_failed_and_the_steps_after_it(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([give_up("no field for a one-time code")])
    root = workspace(tb_llm_config(server), {"code.trail.yaml": FAILING})
    result = run_cli(["run", "trails", "--output-dir", str(root / "logs")], host=app_host, cwd=root)
    assert result.exit_code == 1, result.output
    steps = summary(root / "logs")["steps"]
    assert [(s["index"], s["kind"], s["mode"], s["reason"]) for s in steps] == [
        (1, "step", "replayed", None), (2, "step", "failed", "recordable: false"), (3, "verify", "skipped", None)]
    assert "gave up: no field for a one-time code" in steps[1]["message"] and steps[1]["llm_call_count"] == 1
    assert "[agent: recordable: false · 1 LLM call, 1,050 tokens]" in result.output


def test_tool_calls_in_the_summary_pass_the_run_s_one_redaction() -> None:
    secret = "s3cret-pw-771"
    step = StepResult(1, "step", "Sign in", "ai", True, reason="no recording for this device",
                      tool_calls=[call_of("app_type", label="Password", value=secret)])
    step.number = 1
    trail = TrailResult(Path("t.trail.yaml"), "t", SessionOutcome.SUCCEEDED, ExitCode.SUCCESS, steps=[step])
    run = RunResult(redactor=Redactor([secret]), trails=[trail])
    shown = run.summary()["results"][0]["steps"][0]
    assert shown["tool_calls"] == [{"name": "app_type", "args": {"label": "Password", "value": "***"}}]
    assert secret not in json.dumps(run.summary())
    # A bundle record rebuilds the same step (its calls as entries) for merges.
    rebuilt = StepRecord.of(step).result()
    assert (rebuilt.summary(), rebuilt.status) == (step.summary(), "agent")


def call_of(name: str, **args: Any) -> Any:
    from trailblaze.tools.base import ToolCall

    return ToolCall(name, args)


# -- docs/agent.md -------------------------------------------------------------------------------------
DOC_EXPECTED = {  # command → (exit code, text its output contains)
    "trailblaze run trails --self-heal --junit-xml junit.xml": (
        0, "steps: 1 replayed, 2 by the model (1 agent, 1 healed)"),
    "trailblaze results shop/account": (0, "AGENT STEPS"),
    "trailblaze results shop/account --json": (0, '"agent_step_rate": 0.6667'),
    "trailblaze run trails --self-heal --no-heal-check": (0, "Results: 1 passed, 0 failed, 0 skipped"),
}


def doc_commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_the_agent_page_s_commands_run_and_its_summary_example_has_the_summary_s_keys(
        app_host, workspace, llm_server, tb_llm_config) -> None:
    assert doc_commands() == list(DOC_EXPECTED)
    server = llm_server([*SIGN_IN, *HEAL])
    root = workspace(tb_llm_config(server), {"account.trail.yaml": ACCOUNT})
    for command in doc_commands():
        words = shlex.split(command)
        assert words[0] == "trailblaze"
        done_ = run_cli(words[1:], host=app_host, cwd=root)
        code, text = DOC_EXPECTED[command]
        assert done_.exit_code == code and text in done_.output, f"{command}\n{done_.output}"
    assert "33%" in run_cli(["results", "shop/account"], host=app_host, cwd=root).output  # 2 of 6 after a replay
    documented = json.loads(re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)[0])
    first = sorted((root / "logs" / "reports").glob("trailblaze_test_results_*.json"))[0]  # the run that healed
    real = json.loads(first.read_text())["results"][0]["steps"][1]
    assert set(documented) == set(real) and set(documented["tokens"]) == set(real["tokens"])
    assert documented["mode"] == real["mode"] and documented["reason"] == real["reason"]


# -- a prompt for every failure ------------------------------------------------------------------------
LOGIN = """\
config:
  id: shop/login
  devices: {memory: SCREENS}
trail:
  - step: Sign in as ann
    recording:
      memory:
        - app_tap: {ref: Sign in}
        - app_type: {label: Email, value: '{{email}}'}
        - app_type: {label: Password, value: '{{password}}'}
        - app_tap: {ref: Log in}
"""
SECRET = "s3cret-pw-771"


class PromptText(HTMLParser):
    """The report's Copy prompt buttons and the text each copies."""

    def __init__(self) -> None:
        super().__init__()
        self.buttons: list[str] = []
        self.prompts: list[str] = []
        self._into: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs).get("class")
        if found in ("copy-prompt", "prompt-text"):
            self._into = self.buttons if found == "copy-prompt" else self.prompts
            self._into.append("")

    def handle_data(self, data: str) -> None:
        if self._into is not None:
            self._into[-1] += data

    def handle_endtag(self, tag: str) -> None:
        self._into = None


def test_a_failed_step_has_a_prompt_in_the_report_and_in_trailblaze_results(app_host, workspace) -> None:
    root = workspace("", {"login.trail.yaml": LOGIN})
    args = ["--memory", "email=ann@example.com", "--secret", f"password={SECRET}"]
    passed = run_cli(["run", "trails", "--output-dir", str(root / "ok"), *args], host=app_host, cwd=root)
    assert passed.exit_code == 0, passed.output
    trail_file = root / "trails" / "login.trail.yaml"
    trail_file.write_text(LOGIN.replace("{ref: Log in}", "{ref: Log on}"))  # the app renamed nothing: a bad edit
    failed = run_cli(["run", "trails", "--output-dir", str(root / "bad"), *args], host=app_host, cwd=root)
    assert failed.exit_code == 1, failed.output

    page = PromptText()
    page.feed(next((root / "bad" / "reports").glob("*.html")).read_text())
    assert page.buttons == ["Copy prompt"]
    (prompt,) = page.prompts
    line = LOGIN.splitlines().index("  - step: Sign in as ann") + 1
    assert re.search(rf"^Trail file: \S*trails/login\.trail\.yaml:{line} \(step 1\)$", prompt, re.M), prompt
    assert "  Sign in as ann" in prompt and "Device: memory (driver screens)" in prompt
    assert '  - app_tap: {"ref": "Log on"}' in prompt and '  - app_type: {"label": "Password", "value": "{{password}}"}' \
        in prompt
    assert "no element 'Log on' on screen 'login'" in prompt.split("The error:")[1]
    screen = prompt.split("The screen at the failure:")[1].split("The last run that passed:")[0]
    assert '"Password" value="***"' in screen and '"Log in"' in screen  # the app shows the typed password
    assert SECRET not in prompt
    assert re.search(r"The last run that passed: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(.*session \S+\)", prompt), prompt
    assert "fix the recording" in prompt and "report an app bug" in prompt

    shown = run_cli(["results", "shop/login", "--prompt"], host=app_host, cwd=root)
    assert shown.exit_code == 0 and shown.output == prompt, shown.output
    none = run_cli(["results", "shop/other", "--prompt"], host=app_host, cwd=root)
    assert none.exit_code == 0 and none.output.strip() == "No failed run of shop/other in the run history."
    bare = run_cli(["results", "--prompt"], host=app_host, cwd=root)
    assert bare.exit_code == 3 and "--prompt needs the trail" in bare.output


PROMPT_DOC = REPO / "docs" / "failure-prompt.md"
PROMPT_DOC_EXPECTED = {  # command → (exit code, text its output contains)
    f"trailblaze run trails --memory email=ann@example.com --secret password={SECRET}": (1, "no element 'Log on'"),
    "trailblaze results shop/login --prompt": (0, "The screen at the failure:"),
}


def test_the_failure_prompt_page_s_commands_run(app_host, workspace) -> None:
    blocks = re.findall(r"```bash\n(.*?)```", PROMPT_DOC.read_text(encoding="utf-8"), re.S)
    commands = [line.strip() for block in blocks for line in block.splitlines() if line.strip()]
    assert commands == list(PROMPT_DOC_EXPECTED)
    root = workspace("", {"login.trail.yaml": LOGIN.replace("{ref: Log in}", "{ref: Log on}")})
    for command in commands:
        ran = run_cli(shlex.split(command)[1:], host=app_host, cwd=root)
        code, text = PROMPT_DOC_EXPECTED[command]
        assert ran.exit_code == code and text in ran.output, f"{command}\n{ran.output}"
    assert "The last run that passed: none in the run history" in ran.output and SECRET not in ran.output


def test_the_copy_prompt_button_copies_the_prompt_in_chromium(app_host, workspace) -> None:
    """The report opened in a real Chromium: the button copies the prompt (the page's clipboard is
    watched), and the text has the trail file:line, the error and the screen, and no secret."""
    from playwright.sync_api import sync_playwright
    from trailblaze_driver_web.browser import CONTAINER_ARGS, find_chromium
    from trailblaze_driver_web.config import WebDriverConfig

    root = workspace("", {"login.trail.yaml": LOGIN.replace("{ref: Log in}", "{ref: Log on}")})
    failed = run_cli(["run", "trails", "--output-dir", str(root / "logs"), "--memory", "email=ann@example.com",
                      "--secret", f"password={SECRET}"], host=app_host, cwd=root)
    assert failed.exit_code == 1, failed.output
    report = next((root / "logs" / "reports").glob("*.html"))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_chromium(WebDriverConfig(), pw).path,
                                     args=list(CONTAINER_ARGS))
        try:
            page = browser.new_page()
            page.add_init_script("window.__copied = null; Object.defineProperty(navigator, 'clipboard', {value: "
                                 "{writeText: function (t) { window.__copied = t; return Promise.resolve(); }}});")
            page.goto(report.as_uri())
            page.get_by_role("button", name="Copy prompt").click()  # a failed trail and its failed step open
            page.wait_for_function("document.querySelector('.copy-prompt').textContent === 'Copied'")
            copied = page.evaluate("window.__copied")
        finally:
            browser.close()
    line = LOGIN.splitlines().index("  - step: Sign in as ann") + 1
    assert f"login.trail.yaml:{line} (step 1)" in copied
    assert "no element 'Log on' on screen 'login'" in copied and '[e2] "Password" value="***"' in copied
    assert SECRET not in copied and SECRET not in report.read_text()
    assert copied == run_cli(["results", "shop/login", "--prompt"], host=app_host, cwd=root).output
