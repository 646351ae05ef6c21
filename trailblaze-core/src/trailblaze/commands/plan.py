"""``trailblaze plan [URL] --goal "…"``: the agent explores the app and drafts a trail (the planner).

The device starts as ``trailblaze snapshot`` starts it (``open_screen``: same driver choice, ``-d``,
``-o``, setup trails, plugin hooks); the model comes from where ``run``'s agent finds it (``--llm``,
``TRAILBLAZE_DEFAULT_MODEL``, the workspace's ``llm:`` settings). The exploration is
``agent/planner.py``, the files it writes ``agent/plan_files.py``. Exit codes: 0 the plan is written,
1 a bound (``--max-steps``, ``--max-cost``) stopped the exploration first (what was planned is written),
2 the model or the device is down, 3 bad input (no goal, no model, a file in the way).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from .session_options import session_options, session_values
from .shared import CONTEXT_SETTINGS, handle_errors

DEFAULT_SAVE = Path("trails") / "draft.trail.yaml"


@dataclass(frozen=True)
class _ModelChoice:
    """What ``agent_state`` reads of a run's options: the ``--llm`` given, no per-step call cap."""

    llm: str | None
    max_llm_calls: int | None = None


@click.command("plan", context_settings=CONTEXT_SETTINGS)
@click.argument("url", required=False)
@click.option("--goal", required=True, metavar="TEXT",
              help="What the test should prove, in plain words (the draft's title).")
@click.option("--save", "save", type=click.Path(path_type=Path, dir_okay=False), default=str(DEFAULT_SAVE),
              show_default=True, metavar="PATH",
              help="The draft trail to write (NAME.trail.yaml); the Markdown plan goes beside it as NAME.plan.md.")
@click.option("--force", is_flag=True, help="Replace the draft and its plan when they exist (refused otherwise).")
@click.option("--max-steps", type=click.IntRange(min=1), default=30, show_default=True, metavar="N",
              help="At most N model calls while exploring; reaching it writes what was planned and exits 1.")
@click.option("--max-cost", type=click.FloatRange(min=0), metavar="USD",
              help="Stop exploring once the model calls cost this much (needs the model's price in the llm: "
                   "settings); reaching it writes what was planned and exits 1.")
@click.option("--allow-actions", is_flag=True,
              help="Also offer tools that change the app (taps, typing). Default: only tools marked read-only "
                   "(snapshot, scroll, navigate, back, wait) and verifications.")
@session_options("plan")
@handle_errors
def command(url: str | None, goal: str, save: Path, force: bool, max_steps: int, max_cost: float | None,
            allow_actions: bool, **session: Any) -> None:
    """Let the agent explore the app and write a draft trail of steps and checks for GOAL.

    URL opens first (web: relative to the configured base_url); -d explores a device instead. The draft
    has natural-language step:/verify: items and no recordings; `trailblaze run` on it has the agent
    carry out and record each step, and `--self-heal` keeps it working. A Markdown test plan (goal,
    what was explored, each step and why) is written beside it.

    \b
    Examples:
      trailblaze plan http://127.0.0.1:8000/ --goal "sign in and see the welcome"
      trailblaze plan -d android/emulator-5554 --goal "add a contact" --max-steps 20
      trailblaze plan / --goal "check out one item" --allow-actions --save trails/co.trail.yaml
    """
    from ..agent.plan_files import check_targets
    from ..agent.planner import normalized_goal
    from ..errors import BadInputError
    from ..runner.discovery import is_trail_file

    normalized_goal(goal)  # before a browser starts or a token is spent
    values = session_values("plan", session)
    llm = values.pop("llm")
    save = save.expanduser()
    if not is_trail_file(save):
        raise BadInputError(f"'{save.name}' is not a trail file name",
                            hint="use NAME.trail.yaml, e.g. --save trails/draft.trail.yaml")
    check_targets(save, force=force)
    sys.exit(make_plan(goal, url=url, save=save, force=force, max_steps=max_steps, max_cost=max_cost,
                       allow_actions=allow_actions, llm=llm, session=values))


def make_plan(goal: str, *, url: str | None, save: Path, force: bool, max_steps: int, max_cost: float | None,
              allow_actions: bool, llm: str | None, session: dict[str, Any]) -> int:
    """Open the device, explore, write the draft and the plan; returns the exit code (0, or 1 when a
    bound stopped the exploration)."""
    from ..agent.model_calls import agent_state
    from ..agent.plan_files import DraftDevice, write_plan
    from ..agent.planner import PlanBounds, Planner
    from ..errors import BadInputError, ExitCode
    from ..session import SessionOutcome
    from .snapshot import SnapshotRequest, open_screen

    def say(line: str) -> None:
        click.echo(line, err=True)

    request = SnapshotRequest(**session, url=url)
    with open_screen(request, test_name="plan") as lifecycle:
        s = lifecycle.session
        state = agent_state(s, _ModelChoice(llm))
        if state is None:
            raise BadInputError("trailblaze plan needs a model to explore with",
                                hint="configure one with --llm provider/model, TRAILBLAZE_DEFAULT_MODEL, or "
                                     "llm.defaults.model in trails/config/trailblaze.yaml (see docs/agent.md)")
        planner = Planner(s, state, goal, bounds=PlanBounds(max_steps, max_cost), allow_actions=allow_actions,
                          progress=say)
        device = DraftDevice(classifier=s.device.classifiers[0] if s.device.classifiers else s.device.driver,
                             driver=s.device.driver, platform=s.device.platform,
                             target=s.target or s.workspace.defaults.target, start_url=url)
        mode = "read-only" if planner.report.read_only else "actions allowed"
        say(f"Planning on {device.classifier} ({device.driver}) with {state.model.ref}, {mode}, at most "
            f"{max_steps} model calls: {planner.goal}")
        report = planner.run()
        lifecycle.outcome = SessionOutcome.SUCCEEDED
    if report.stopped:
        say(f"trailblaze plan: {report.stopped}")
    if not report.items:
        say("trailblaze plan: the model planned no step; nothing was written (raise --max-steps, or make the "
            "goal more concrete)")
        return int(ExitCode.TRAIL_FAILED)
    trail_path, markdown_path = write_plan(report, device, save, force=force)
    steps = len(report.items) + (1 if url else 0)
    click.echo(f"Wrote {trail_path} ({steps} step{'s' if steps != 1 else ''}) and {markdown_path}; "
               f"record it with: trailblaze run {trail_path}")
    return int(ExitCode.SUCCESS if report.finished else ExitCode.TRAIL_FAILED)
