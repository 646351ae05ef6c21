"""The recordings the agent made in a run (healed steps, steps it solved) are proven before they are
written back: the trail, with them spliced in, is replayed once more from its start in a fresh session
without the model. Only a replay that passes lets them into the trail file; otherwise the file stays as
it was and they are saved beside it as a proposal, ``<name>.healed.trail.yaml``. A recording that only
works from the middle of a step (where a broken recording's first calls left the screen) is caught here,
not in the next CI run. ``--no-heal-check`` writes them back unproven (the behaviour before the proof).

The decision is made here only (``RecordingSaveBack.settle``), for the plain run, ``-n`` workers and the
pytest plugin alike: they all run trails through ``TrailRunner``/``ActorCrew``, which call it once per
attempt."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import TrailblazeError
from ..results.model import HealCheck, TrailResult
from ..session import Session, SessionOutcome
from ..tools.base import ToolCall
from .discovery import proposal_path
from .handoff import AgentHandoff

if TYPE_CHECKING:
    from ..trail.model import Trail
    from .options import RunOptions
    from .progress import Progress

Saves = list[tuple[int, str, "list[ToolCall] | None"]]
Prove = Callable[["Trail"], TrailResult]
"""Replays a trail (the new recordings spliced in) from its start without the model; its result."""


class RecordingSaveBack:
    """Decides, once per trail attempt, what becomes of the recordings the agent made: proven and
    written back, or left as a proposal (``options.heal_check`` off: written back as they are). The
    writing itself is ``handoff``'s (only each step's device slot changes); lines go to ``progress``."""

    def __init__(self, options: RunOptions, progress: Progress, handoff: AgentHandoff) -> None:
        self.options = options
        self.progress = progress
        self.handoff = handoff
        self._proposed: dict[Path, set[str]] = {}
        """Proposals this run wrote, each with the device classifiers whose recordings it holds: trails run
        on several devices at once (``-d a -d b``) add their recordings to one proposal instead of the last
        device's replacing the others'; a device whose retry is proven leaves it, and the last one to leave
        removes it."""

    def settle(self, trail: "Trail", session: Session, result: TrailResult, saves: Saves,
               prove: Prove | None, *, unprovable: str | None = None) -> None:
        """The one write-back decision. ``result``: the attempt as it ended (only a passed one is worth
        proving); ``prove``: the proving replay (None, or ``unprovable`` given: it cannot be run for this
        trail, and ``unprovable`` says why). Records the decision as ``result.heal_check``."""
        writable = self.handoff.writable(trail, saves)
        if not writable or not trail.path.is_file():
            return
        if not self.options.heal_check:
            written = self.handoff.write_back(trail, session, writable)
            result.heal_check = HealCheck("skipped", "--no-heal-check: written back without a proving replay",
                                          written=written)
            return
        from ..trail.parser import parse_trail
        from ..trail.saveback import spliced_recordings

        try:
            text, placed, refused = spliced_recordings(trail.path, writable, codec=session.codec, original=trail)
        except TrailblazeError as exc:
            self.progress.note(f"  ! could not save recordings into {trail.path}: {exc}")
            result.heal_check = HealCheck("skipped", f"could not place the recordings: {exc}")
            return
        if refused:  # the file was edited while the run went: those recordings have no step to go to
            self.progress.note(f"  ! could not save recordings into {trail.path}: {'; '.join(refused)}")
        if not placed:
            return
        # ``writable`` stays as the run read the trail: ``write_back`` places it again against the file.
        reason = unprovable
        if not result.passed:
            reason = f"the trail did not pass ({result.status.lower()}), so it cannot be replayed to prove them"
        elif prove is None:
            reason = reason or "no proving replay for this trail"
        check: HealCheck
        if reason is not None:
            check = HealCheck("skipped", reason)
        else:
            assert prove is not None
            self.progress.note(f"  ↻ heal check: replaying {trail.path.name} from its start without the model")
            try:
                proof = prove(parse_trail(text, trail.path, codec=session.codec))
            except KeyboardInterrupt as exc:
                result.heal_check = self._propose(trail, session, writable, text,
                                                  HealCheck("skipped", "interrupted during the proving replay"))
                exc.trail_result = result  # type: ignore[attr-defined]  # the trail's result, not the proof's
                raise
            except TrailblazeError as exc:
                proof = TrailResult(trail.path, trail.name, SessionOutcome.ERROR, exc.exit_code, message=str(exc))
            if proof.passed:
                written = self.handoff.write_back(trail, session, writable)
                result.heal_check = HealCheck("proven", written=written, log_dir=proof.log_dir)
                if written:
                    self._leave_proposal(trail, session, writable)
                self.progress.note("  ✓ heal check: proven (the trail passed from its start on the new recordings)")
                return
            failed = next((s for s in proof.steps if not s.success and s.mode != "skipped"), None)
            check = HealCheck("not_proven", proof.message or "the proving replay failed",
                              step=failed.number if failed is not None else None,
                              tool=failed.tool if failed is not None else None, log_dir=proof.log_dir)
        result.heal_check = self._propose(trail, session, writable, text, check)

    def _propose(self, trail: "Trail", session: Session, writable: Saves, text: str,
                 check: HealCheck) -> HealCheck:
        """Save the recordings beside the trail, the trail file untouched; say so. ``text`` is the trail
        with them spliced in; a proposal this run already wrote for another device gets them added."""
        from ..files import write_atomic
        from ..trail.saveback import spliced_recordings, trail_lock

        proposal = proposal_path(trail.path)
        classifier = writable[0][1]
        try:
            with trail_lock(proposal):
                devices = self._proposed.get(proposal)
                if devices is not None and devices - {classifier} and proposal.is_file():
                    text = spliced_recordings(proposal, writable, codec=session.codec, original=trail)[0]
                write_atomic(proposal, text)
                self._proposed.setdefault(proposal, set()).add(classifier)
        except (OSError, TrailblazeError) as exc:
            self.progress.note(f"  ! heal check: could not write the proposal {proposal}: {exc}")
            return check
        check.proposal = proposal
        why = "not proven: " if check.status == "not_proven" else "not replayed: "
        self.progress.note(f"  ! heal check {why}{check.message}")
        self.progress.note(f"    {trail.path} is unchanged; the new recordings are in {proposal}")
        return check

    def _leave_proposal(self, trail: "Trail", session: Session, writable: Saves) -> None:
        """This device's recordings were proven and written back: an earlier attempt's proposal for it is
        superseded. Removed when no other device's recordings are in it; else it gets the proven ones, so
        it never offers a recording the trail already has a better one for."""
        from ..files import write_atomic
        from ..trail.saveback import spliced_recordings, trail_lock

        proposal = proposal_path(trail.path)
        classifier = writable[0][1]
        if classifier not in self._proposed.get(proposal, ()):
            return
        try:
            with trail_lock(proposal):  # (the devices' threads share this object)
                devices = self._proposed[proposal]
                devices.discard(classifier)
                if not devices:
                    del self._proposed[proposal]
                    proposal.unlink(missing_ok=True)
                elif proposal.is_file():
                    write_atomic(proposal, spliced_recordings(proposal, writable, codec=session.codec,
                                                              original=trail)[0])
        except (OSError, TrailblazeError) as exc:
            self.progress.note(f"  ! heal check: could not update the proposal {proposal}: {exc}")
