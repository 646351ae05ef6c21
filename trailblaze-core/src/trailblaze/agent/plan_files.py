"""What ``trailblaze plan`` writes: the draft trail (natural-language ``step:``/``verify:`` items, no
recordings) and the Markdown test plan beside it (``NAME.plan.md``: the goal, what was explored, the
steps with why).

The draft is a trail like any other: ``trailblaze check`` reads it, and ``trailblaze run`` hands each of
its steps to the agent, which records them into it (the generator); ``--self-heal`` keeps them working
(the healer). Both files are written atomically, and neither overwrites a file unless asked to: a
plan is a draft, an existing trail is someone's work.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BadInputError
from .planner import PlanItem, PlanReport


@dataclass(frozen=True)
class DraftDevice:
    """The device the plan was made on, as the draft's ``config`` names it."""

    classifier: str
    driver: str
    platform: str
    target: str | None = None
    start_url: str | None = None
    """The page the planner was started on: the draft's first step opens it."""


def plan_path(trail_path: Path) -> Path:
    """``checkout.trail.yaml`` → ``checkout.plan.md`` (``trail.yaml`` → ``plan.md``), beside it."""
    name = trail_path.name
    stem = name[: -len(".trail.yaml")] if name.endswith(".trail.yaml") else ""
    return trail_path.with_name(f"{stem}.plan.md" if stem else "plan.md")


def check_targets(trail_path: Path, *, force: bool) -> None:
    """Refuse when a file is in the way (before anything runs, and again before writing). Whether the
    name is a trail file's is the command's to check (``commands/plan.py``), with the runner's rule."""
    if force:
        return
    for path in (trail_path, plan_path(trail_path)):
        if path.exists():
            raise BadInputError(f"{path} already exists; the plan would overwrite it",
                                hint="choose another --save path, or pass --force to replace it")


def draft_steps(report: PlanReport, device: DraftDevice) -> list[PlanItem]:
    """The draft's steps: opening the start page first (when the plan was started on one), then the plan."""
    items = list(report.items)
    if device.start_url:
        items.insert(0, PlanItem("step", f"Open {device.start_url}", "the page the plan was made from"))
    return items


def draft_trail_yaml(report: PlanReport, device: DraftDevice) -> str:
    from ruamel.yaml import YAML

    config: dict[str, Any] = {"title": _title(report.goal)}
    if device.target:
        config["target"] = device.target
    config["devices"] = {device.classifier: device.driver}
    trail = [{item.kind: item.text} for item in draft_steps(report, device)]
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)  # as trails are written by hand: "  - step: …"
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    buf = io.StringIO()
    buf.write("# Drafted by `trailblaze plan` (see the .plan.md beside it) without recordings: `trailblaze run`\n"
              "# has the agent carry out each step and records it here; `--self-heal` keeps it working.\n")
    yaml.dump({"config": config, "trail": trail}, buf)
    return buf.getvalue()


def plan_markdown(report: PlanReport, device: DraftDevice, trail_path: Path) -> str:
    mode = "read-only (looking and navigating only)" if report.read_only else "actions allowed (--allow-actions)"
    status = "finished: the model called plan_done" if report.finished else f"stopped early: {report.stopped}"
    cost = f"${report.cost_usd:.4f}" if report.cost_usd is not None else "not priced"
    lines = [f"# Test plan: {_md(report.goal)}", "",
             f"- **Goal:** {_md(report.goal)}",
             f"- **Device:** {device.classifier} ({device.driver})" + (f", started on {device.start_url}"
                                                                       if device.start_url else ""),
             f"- **Exploration:** {mode}; {status}",
             f"- **Model:** {report.llm_calls} calls, {report.input_tokens} input and {report.output_tokens} "
             f"output tokens, cost {cost}",
             f"- **Draft trail:** `{trail_path.name}`", "",
             "## What was explored", ""]
    if report.summary:
        lines += [_md(report.summary), ""]
    if report.explored:
        lines += [f"{i}. `{_code(line)}`" for i, line in enumerate(report.explored, 1)]
    else:
        lines.append("The model planned from the first screen without moving around.")
    lines += ["", f"Tools offered: {', '.join(f'`{n}`' for n in report.offered)}", "", "## Steps", "",
              "| # | Kind | Step | Why |", "|---|---|---|---|"]
    for i, item in enumerate(draft_steps(report, device), 1):
        lines.append(f"| {i} | {item.kind} | {_cell(item.text)} | {_cell(item.why)} |")
    given = trail_path.as_posix()  # as the author named it: the commands below run from where plan ran
    lines += ["", "## Next", "",
              f"1. Read and edit `{given}`; `trailblaze check {given}` validates it.",
              f"2. `trailblaze run {given}` — the agent carries out each step and records it into the trail.",
              f"3. `trailblaze run {given} --self-heal` in CI — a recording that breaks is re-solved.", ""]
    return "\n".join(lines)


def write_plan(report: PlanReport, device: DraftDevice, trail_path: Path, *, force: bool) -> tuple[Path, Path]:
    """Write the draft trail and its plan (each atomically); returns both paths. The draft is parsed
    before it is written, so a file ``trailblaze check`` would refuse is never left behind."""
    from ..files import write_atomic
    from ..trail.parser import parse_trail

    if not report.items:
        raise BadInputError("the model planned no step, so there is nothing to write")
    check_targets(trail_path, force=force)  # again: a file may have appeared while exploring
    text = draft_trail_yaml(report, device)
    parse_trail(text, trail_path)
    markdown_path = plan_path(trail_path)
    write_atomic(trail_path, text)
    write_atomic(markdown_path, plan_markdown(report, device, trail_path))
    return trail_path, markdown_path


def _title(goal: str, limit: int = 120) -> str:
    return goal if len(goal) <= limit else goal[: limit - 1] + "…"


def _md(text: str) -> str:
    return text.replace("<", "&lt;")


def _cell(text: str) -> str:
    return _md(text).replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return text.replace("`", "'")


__all__ = ["DraftDevice", "check_targets", "draft_steps", "draft_trail_yaml", "plan_markdown", "plan_path",
           "write_plan"]
