"""A trail with actors through the outputs, without a browser: the lanes both reports draw
(``results.lanes.step_rows``), and a result written to a bundle and read back by ``merge-reports``'
reader gives the same summary actors, per-step actors and blocks, JUnit properties and log folders."""

from __future__ import annotations

from pathlib import Path

from trailblaze.errors import ExitCode
from trailblaze.memory import Redactor
from trailblaze.report.bundle import read_bundle, write_bundle
from trailblaze.report.junit_retries import trail_properties
from trailblaze.report.merge import run_result
from trailblaze.results.lanes import actor_label, step_rows
from trailblaze.results.model import ActorResult, RunResult, StepResult, TrailResult
from trailblaze.results.output_request import BundleContext
from trailblaze.session import SessionOutcome


def _step(index: int, actor: str, block: int | None = None, shot: str | None = None) -> StepResult:
    step = StepResult(index, "step", f"step {index} of {actor}", "replay", True, actor=actor, block=block,
                      screenshot=shot)
    step.number = index + 1
    return step


def _trail(root: Path) -> TrailResult:
    run_dir = root / "2026_01_01_00_00_00_Chat_1"
    trail = TrailResult(root / "chat.trail.yaml", "Chat", SessionOutcome.SUCCEEDED, ExitCode.SUCCESS,
                        session_id="2026_01_01_00_00_00_Chat_1_alice", log_dir=run_dir, driver="playwright-native",
                        platform="web", started_at=100.0, completed_at=104.0)
    trail.actors = [ActorResult(name, "web", "playwright-native", device="chromium-1", session_id=f"s-{name}",
                                log_dir=run_dir / name) for name in ("alice", "bob")]
    trail.steps = [_step(0, "alice"), _step(1, "alice", 1, "step_002.png"), _step(2, "bob", 1, "step_003.png"),
                   _step(3, "bob", 1), _step(4, "alice")]
    return trail


def test_step_rows_put_a_parallel_block_side_by_side_one_lane_per_actor(tmp_path: Path) -> None:
    rows = step_rows(_trail(tmp_path).steps)
    assert [(r.block, {name: [s.index for s in lane] for name, lane in r.lanes.items()}) for r in rows] == [
        (None, {"alice": [0]}), (1, {"alice": [1], "bob": [2, 3]}), (None, {"alice": [4]})]
    assert [r.parallel for r in rows] == [False, True, False]
    assert actor_label(_trail(tmp_path).actors[1]) == "bob: playwright-native on chromium-1"


def test_a_bundle_read_back_gives_the_plain_runs_actors_steps_and_properties(tmp_path: Path) -> None:
    out = tmp_path / "out"
    plain = RunResult(redactor=Redactor(), trails=[_trail(out)])
    write_bundle(plain, out, BundleContext(run_id="r1"), {})
    records = read_bundle(out).records
    assert len(records) == 1 and [a.log_dir for a in records[0].actors] == [
        "2026_01_01_00_00_00_Chat_1/alice", "2026_01_01_00_00_00_Chat_1/bob"]  # relative to the bundle
    merged = run_result(records, out)
    before, after = plain.summary()["results"][0], merged.summary()["results"][0]
    assert after["actors"] == before["actors"]
    assert after["steps"] == before["steps"]
    assert [(s["actor"], s.get("block")) for s in after["steps"]] == [
        ("alice", None), ("alice", 1), ("bob", 1), ("bob", 1), ("alice", None)]
    assert trail_properties(merged.trails[0]) == trail_properties(plain.trails[0])
    assert trail_properties(merged.trails[0])["trailblaze.actor.bob"] == "playwright-native on chromium-1"
    rebuilt = merged.trails[0]
    assert [s.screenshot for s in rebuilt.steps][1:3] == ["step_002.png", "step_003.png"]
    assert rebuilt.log_dir_of("bob") == out / "2026_01_01_00_00_00_Chat_1" / "bob"  # where bob's shots are
    assert rebuilt.log_dir_of(session="s-alice") == out / "2026_01_01_00_00_00_Chat_1" / "alice"
    assert rebuilt.log_dir_of("carol") == rebuilt.log_dir
