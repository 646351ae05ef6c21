"""The runner is an object made of parts, each built with what it needs and working alone: the session
factory, one trail's runner, the step loop with its agent hand-off, and the run's outputs."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from trailblaze import Tool, ToolResult, hookimpl
from trailblaze.errors import ExitCode
from trailblaze.llm.budget import BUDGET_KEY, CostBudget
from trailblaze.memory import Redactor
from trailblaze.results.model import RunResult, TrailResult
from trailblaze.runner.handoff import AgentHandoff, StepFailed
from trailblaze.runner.lifecycle import SessionFactory, SessionLifecycle
from trailblaze.runner.options import RunOptions
from trailblaze.runner.outputs import RunOutputs
from trailblaze.runner.progress import Progress
from trailblaze.runner.replay import StepLoop
from trailblaze.runner.run import Runner
from trailblaze.runner.trail_session import TrailRunner
from trailblaze.session import SessionOutcome
from trailblaze.testing import new_host
from trailblaze.trail.parser import parse_trail

RUNNER = Path(inspect.getfile(Runner)).parent


class Say(Tool):
    """Say something."""

    name = "say"
    text: str

    def execute(self, ctx):  # type: ignore[no-untyped-def]
        ctx.driver.act("say", text=self.text)
        return ToolResult(self.text != "fail", self.text)


class Plugin:
    @hookimpl
    def trailblaze_register_tools(self, registry):  # type: ignore[no-untyped-def]
        registry.add_tool(Say)


def _lines() -> tuple[Progress, list[str]]:
    lines: list[str] = []

    class Sink:
        def write(self, text: str) -> int:
            lines.append(text)
            return len(text)

        def flush(self) -> None:
            pass

    return Progress(stream=Sink(), live=False), lines  # type: ignore[arg-type]


def _factory(tmp_path: Path, **options: object) -> SessionFactory:
    host = new_host()
    host.register(Plugin(), "parts-test")
    return SessionFactory(RunOptions(driver="in-memory", output_dir=tmp_path / "out", report=False,
                                     history=False, **options), host=host)  # type: ignore[arg-type]


TRAIL = ("trail:\n  - step: greet\n    recording:\n      memory:\n        - say: {text: hello}\n"
         "  - step: answer\n    recording:\n      memory:\n        - say: {text: '%s'}\n")


# -- the shape ---------------------------------------------------------------------------------------
def test_the_runner_and_its_parts_inherit_nothing_of_the_runner_package() -> None:
    for cls in (Runner, SessionFactory, TrailRunner, StepLoop, AgentHandoff, RunOutputs):
        assert cls.__mro__ == (cls, object), cls.__mro__


def test_no_class_of_the_runner_is_over_300_lines_and_no_bare_annotation_stands_in_for_an_init() -> None:
    for path in sorted(RUNNER.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                assert node.end_lineno - node.lineno + 1 <= 300, f"{path.name}: {node.name}"
                is_data = any(isinstance(d, (ast.Name, ast.Call)) and "dataclass" in ast.unparse(d)
                              for d in node.decorator_list)
                bare = [ast.unparse(s.target) for s in node.body
                        if isinstance(s, ast.AnnAssign) and s.value is None]
                assert is_data or not bare, f"{path.name}: {node.name} declares {bare} for another class"


# -- each part alone ---------------------------------------------------------------------------------
def test_the_session_factory_puts_its_resources_and_the_run_options_into_every_session(tmp_path: Path) -> None:
    budget = CostBudget(1.0)
    factory = SessionFactory(RunOptions(output_dir=tmp_path, logging=False), host=new_host(),
                             resources={BUDGET_KEY: budget}, finding=lambda line: None)
    ws = factory.workspace_for(tmp_path, exact=True)
    session = factory.new_session(None, ws, extra={"listing": True, "acme": 1})
    assert session.resources[BUDGET_KEY] is budget
    assert session.options.run is factory.options and session.options.listing
    assert session.options.extra == {"acme": 1}


def test_the_step_loop_replays_a_trail_in_a_session_of_its_own(tmp_path: Path) -> None:
    factory = _factory(tmp_path)
    progress, lines = _lines()
    handoff = AgentHandoff(factory.options, progress, CostBudget(None), factory.host.llm_providers)
    steps = StepLoop(factory.options, progress, factory.redactor, handoff)
    trail = parse_trail(TRAIL % "fail", tmp_path / "t.trail.yaml")
    ws = factory.workspace_for(tmp_path, exact=True)
    result = TrailResult(trail.path, trail.name, SessionOutcome.ERROR, ExitCode.INFRASTRUCTURE)
    with factory.open(workspace=ws, trail=trail) as lifecycle:
        steps.prevalidate(trail, lifecycle.session, ["memory"])
        with pytest.raises(StepFailed, match="step 2 \"answer\": tool 'say' .* failed: fail") as failed:
            steps.run_steps(trail, lifecycle, ["memory"], result)
        assert lifecycle.session.driver.actions == [("say", {"text": "hello"}), ("say", {"text": "fail"})]  # type: ignore[union-attr]
    assert failed.value.code == ExitCode.TRAIL_FAILED
    assert [(s.mode, s.success) for s in result.steps] == [("replay", True), ("replay", False)]
    assert any("answer" in line for line in lines)


def test_the_agent_handoff_refuses_a_step_once_the_budget_is_spent(tmp_path: Path) -> None:
    factory = _factory(tmp_path)
    progress, _ = _lines()
    budget = CostBudget(0.01)
    budget.add(0.02, 100)
    handoff = AgentHandoff(factory.options, progress, budget, factory.host.llm_providers)
    trail = parse_trail("trail:\n  - step: do it\n", tmp_path / "t.trail.yaml")
    assert handoff.over_budget
    with factory.open(workspace=tmp_path, trail=trail) as lifecycle:
        with pytest.raises(StepFailed, match="not handed to the model") as refused:
            handoff.solve(lifecycle.session, trail.steps[0], trail, self_heal=False)
    assert refused.value.code == ExitCode.INFRASTRUCTURE


def test_the_trail_runner_runs_one_trail_file_to_its_result(tmp_path: Path) -> None:
    factory = _factory(tmp_path)
    progress, _ = _lines()
    handoff = AgentHandoff(factory.options, progress, CostBudget(None), factory.host.llm_providers)
    outputs = RunOutputs(factory, progress)
    trails = TrailRunner(factory, StepLoop(factory.options, progress, factory.redactor, handoff), outputs, progress)
    path = tmp_path / "ok.trail.yaml"
    path.write_text(TRAIL % "bye")
    result = trails.run_trail(path)
    assert result is not None and result.passed and result.execution_mode == "RECORDING_ONLY"
    assert (result.log_dir / "recording.trail.yaml").is_file()  # type: ignore[operator]


def test_the_run_outputs_write_the_summary_and_keep_the_run_id(tmp_path: Path) -> None:
    factory = _factory(tmp_path)
    progress, lines = _lines()
    outputs = RunOutputs(factory, progress)
    assert outputs.history is None  # history=False
    first = outputs.output_request()
    assert outputs.output_request().context.run_id == first.context.run_id
    result = RunResult(Redactor(), output_dir=factory.output_dir, trails=[TrailResult(
        tmp_path / "t.trail.yaml", "t", SessionOutcome.SUCCEEDED, ExitCode.SUCCESS)])
    outputs.write_outputs_once(result, "SIGTERM")
    assert result.interrupted == "SIGTERM"
    assert result.summary_path is not None and result.summary_path.is_file()
    assert lines  # the run's closing line


def test_the_runner_passes_the_public_calls_on_to_its_parts(tmp_path: Path) -> None:
    factory = _factory(tmp_path)
    progress, _ = _lines()
    runner = Runner(factory.options, host=factory.host, progress=progress)
    assert runner.redactor is runner.factory.redactor and runner.output_dir == factory.output_dir
    assert runner.history is runner.outputs.history and runner.options is runner.factory.options
    path = tmp_path / "ok.trail.yaml"
    path.write_text(TRAIL % "bye")
    assert runner.workspace_for(path) is runner.factory.workspace_for(path)
    with runner.open(workspace=tmp_path) as lifecycle:
        assert isinstance(lifecycle, SessionLifecycle)
        assert lifecycle.session.resources[BUDGET_KEY] is runner.llm_budget
    result = runner.run([str(path)])
    assert result.exit_code == ExitCode.SUCCESS and result.summary_path is not None
