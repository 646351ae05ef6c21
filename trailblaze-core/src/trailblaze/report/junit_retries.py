"""Retries and run facts in JUnit XML, the way Maven Surefire writes them.

Surefire's rerun elements are what Jenkins' JUnit plugin and GitLab read: a test that passed on a
rerun keeps no ``failure`` but one ``flakyFailure`` (or ``flakyError``) per failed attempt; a test
that failed every attempt keeps its ``failure``/``error`` (the last attempt) and one ``rerunFailure``
(or ``rerunError``) per earlier attempt. Each carries the attempt's message, ``stackTrace`` and a
``system-out`` with where that attempt's logs and evidence are. Plain parsers (junitparser, the
GitHub test reporters) ignore these elements, so a flaky test reads as passed there — the
``trailblaze.status`` property says FLAKY for those that look.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..results.model import step_counts
from ..session import SessionOutcome

if TYPE_CHECKING:
    from ..results.model import TrailResult
    from .xml_stream import XmlStream


def trail_properties(trail: TrailResult) -> dict[str, str]:
    """What a CI test tab can show beside pass/fail: the outcome people act on, attempts, quarantine,
    how many steps replayed and how many the model solved (``steps_replayed``, ``steps_agent``,
    ``steps_healed``), whether the recordings the agent made were proven (``heal_check``: ``proven``,
    ``not_proven``, ``skipped``; ``heal_proposal``: where they went instead), the model's calls, tokens
    and cost, the actors of a trail with several devices,
    and the endpoint (a pool's Playwright server, Appium server or Grid hub) it ran on."""
    props = {"trailblaze.status": trail.status, "trailblaze.attempts": str(trail.attempt)}
    if trail.endpoint:
        props["trailblaze.endpoint"] = trail.endpoint
    if trail.quarantined:
        props["trailblaze.quarantined"] = "true"
    if trail.steps:
        modes = step_counts(trail.steps)
        for mode in ("replayed", "agent", "healed"):
            props[f"trailblaze.steps_{mode}"] = str(modes[mode])
    if trail.heal_check is not None:
        props["trailblaze.heal_check"] = trail.heal_check.status
        if trail.heal_check.proposal is not None:
            props["trailblaze.heal_proposal"] = str(trail.heal_check.proposal)
    if trail.llm_call_count:
        props["trailblaze.llm_calls"] = str(trail.llm_call_count)
        props["trailblaze.llm_tokens"] = str(trail.llm_tokens)
        props["trailblaze.llm_cost_usd"] = f"{trail.llm_cost_usd:.6f}"
    for actor in trail.actors:  # a trail with several devices: what each actor ran on
        props[f"trailblaze.actor.{actor.name}"] = f"{actor.driver}" + (f" on {actor.device}" if actor.device else "")
    return props


def write_properties(xml: XmlStream, properties: Mapping[str, str], clean: Callable[[str], str]) -> None:
    """``<properties>``, written as the testcase's first child (where the JUnit schema and Jenkins expect them)."""
    if not properties:
        return
    xml.open("properties")
    xml.bare_leaves("property", [(("name", name), ("value", clean(value))) for name, value in properties.items()])
    xml.close()


def write_retries(xml: XmlStream, trail: TrailResult, clean: Callable[[str], str],
                  artifacts: Callable[[TrailResult], Mapping[str, str]]) -> None:
    """One Surefire rerun element per earlier attempt of ``trail`` (see the module docstring)."""
    prefix = "flaky" if trail.passed else "rerun"
    for number, attempt in enumerate(trail.attempts, start=1):
        kind = "Error" if attempt.outcome is SessionOutcome.ERROR else "Failure"
        message = clean(attempt.message or attempt.outcome.value)
        first = message.strip().splitlines()[0] if message.strip() else ""
        xml.open(f"{prefix}{kind}", [("message", first), ("type", clean(attempt.failure_kind or "")
                                                          or ("Error" if kind == "Error" else "TrailFailed"))])
        xml.leaf("stackTrace", body=message)
        lines = [f"attempt: {number}"]
        if attempt.session_id:
            lines.append(f"session: {attempt.session_id}")
        lines.extend(f"{key}: {value}" for key, value in artifacts(attempt).items())
        xml.leaf("system-out", body=clean("\n".join(lines)))
        xml.close()
