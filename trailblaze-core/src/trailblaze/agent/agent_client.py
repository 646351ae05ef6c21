"""Core plugin: close the agent's provider client when the session that opened it ends."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..contract.markers import hookimpl

if TYPE_CHECKING:
    from ..session import Session, SessionOutcome


@hookimpl
def trailblaze_session_finished(session: Session, outcome: SessionOutcome) -> None:
    from .model_calls import STATE_KEY

    state = session.resources.pop(STATE_KEY, None)
    if state is not None:
        state.close()
