"""Setup trails: recorded steps replayed to reach a start state (signed in, say) before a command looks
or acts — ``snapshot``, ``session start`` and ``record`` — or before a trail's own steps run.

They come from ``--setup TRAIL`` (repeatable) or, when none is given, from the workspace's
``defaults.setup`` (paths relative to the workspace root); a trail's ``config: {setup: …}`` names the
ones ``trailblaze run`` replays before it (relative to the trail), and a setup trail's own ``setup``
runs before it. A setup trail replays its recordings only: it is a start state, never solved by a
model and never part of what the command saves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BadInputError, ConfigError, ToolFailure

if TYPE_CHECKING:
    from ..config import WorkspaceConfig
    from ..session import Session
    from ..tools.base import ToolCall
    from ..tools.codec import ToolCodec
    from ..trail.model import TrailStep

SETUP_START_LOG = "SetupStartLog"
SETUP_COMPLETE_LOG = "SetupCompleteLog"
"""The log entries around a setup's tool calls in the session's log (``report/log_steps.py`` reads them)."""

RunCalls = Callable[["TrailStep", "list[ToolCall]"], "str | None"]
"""Runs one setup step's calls on the device; returns None, or why the step failed."""


def setup_trails(given: Sequence[str | Path], workspace: WorkspaceConfig) -> list[Path]:
    """The setup trails to replay: the ones given on the command line, else the workspace's
    ``defaults.setup``, each checked to exist (a missing one names the config's file:line and key)."""
    if given:
        missing = [str(p) for p in given if not Path(p).is_file()]
        if missing:
            raise BadInputError(f"--setup: no trail file {', '.join(missing)}")
        return [Path(p).resolve() for p in given]
    configured = workspace.defaults.setup
    many = not isinstance((workspace.data.get("defaults") or {}).get("setup"), str)
    paths: list[Path] = []
    for i, name in enumerate(configured):
        path = (workspace.root / name).resolve()
        if not path.is_file():
            raise ConfigError(f"setup trail '{name}' does not exist (looked for {path})",
                              location=workspace.location("defaults", "setup", *([i] if many else [])),
                              key="defaults.setup",
                              hint="paths in defaults.setup are relative to the workspace root")
        paths.append(path)
    return paths


def replay_setup(path: Path, *, classifiers: list[str], run_calls: RunCalls, codec: ToolCodec,
                 chain: tuple[Path, ...] = ()) -> int:
    """Replay the setup trail at ``path`` (its own ``setup`` first); returns how many steps ran.

    A step with no recording for this device is bad input naming the step's file:line (a setup trail
    is meant to replay: record it first); a step that fails is a failure naming it; a setup that leads
    back to itself is refused."""
    from ..trail.parser import load_trail

    if path in chain:
        loop = " -> ".join(str(p) for p in (*chain, path))
        raise BadInputError(f"setup trails name each other in a loop: {loop}", key="setup")
    trail = load_trail(path, codec=codec)
    ran = sum(replay_setup(inner, classifiers=classifiers, run_calls=run_calls, codec=codec, chain=(*chain, path))
              for inner in trail.config.setup)
    for step in trail.steps:
        found = step.recording_for(classifiers)
        if found is None:
            raise BadInputError(f"setup trail: step '{step.text}' has no recording for this device",
                                location=step.location, key="recording",
                                hint="a setup trail replays: record it first (trailblaze run, session "
                                     "save or record)")
        problem = run_calls(step, list(found[1]))
        if problem is not None:
            raise ToolFailure(f"setup trail: step '{step.text}' failed: {problem}", location=step.location)
    return ran + len(trail.steps)


def replay_setups(paths: Sequence[Path], session: Session) -> int:
    """Replay ``paths`` on ``session``'s device, each call straight through its dispatcher (nothing is
    recorded as a step of what runs next); returns how many steps ran."""

    def run(step: TrailStep, calls: list[ToolCall]) -> str | None:
        ctx = session.context(replaying=True)
        for call in calls:
            result = session.dispatcher.call(call, ctx)
            if not result.success:
                return result.message or f"{call.name} failed"
        return None

    classifiers = list(session.device.classifiers)
    # Marked in the log, so the report shows these calls under a "setup" heading, not as the trail's own.
    session.log.write(SETUP_START_LOG, {"setup": [Path(p).name for p in paths]})
    try:
        ran = sum(replay_setup(path, classifiers=classifiers, run_calls=run, codec=session.codec) for path in paths)
    except BaseException as exc:
        session.log.write(SETUP_COMPLETE_LOG, {"successful": False, "message": str(exc)})
        raise
    session.log.write(SETUP_COMPLETE_LOG, {"successful": True, "steps": ran})
    return ran
