"""Record by demonstration: what a driver hands back when a person has clicked through the app.

A driver that can watch a person (the web driver) implements ``Driver.record_actions``; it returns the
person's actions as the same tool calls the agent records (stable role + name selectors, secrets as
``{{tokens}}``), already grouped into steps. ``trailblaze record`` writes them with the same trail writer
as ``trailblaze mcp`` and ``session save``. The types are contract types and live in
``trailblaze.contract.recording``; this is the name drivers and plugins import them by.
"""

from __future__ import annotations

from .contract.recording import RecordedStepDraft, RecordOptions

__all__ = ["RecordOptions", "RecordedStepDraft"]
