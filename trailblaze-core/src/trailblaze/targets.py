"""Targets: the app under test, as the core and every plugin see it.

A trail names a target (``config.target``, or the workspace's ``defaults.target``); what that target
*is* — its app ids per platform, its web base URL, the system prompt the agent gets for it — is
supplied by whichever plugin knows (``trailblaze-yaml-tools`` reads it from trailmaps) through the
``trailblaze_target_info`` hook. Drivers and the agent read ``session.target_info``; they never reach
into the plugin that found it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class PlatformTarget(BaseModel):
    """One platform of a target: how a driver finds the app there."""

    model_config = ConfigDict(frozen=True)

    app_ids: list[str] = Field(default_factory=list)
    """Package names / bundle ids, most preferred first."""
    base_url: str | None = None
    """Web: the URL relative paths are resolved against."""


class TargetInfo(BaseModel):
    """The app under test, as a plugin describes it (``trailblaze_target_info``)."""

    model_config = ConfigDict(frozen=True)

    id: str
    display_name: str | None = None
    platforms: dict[str, PlatformTarget] = Field(default_factory=dict)
    """By lower-case platform: ``web``, ``android``, ``ios``..."""
    system_prompt: str | None = None
    """Extra system-prompt text for the LLM agent when it works on this target."""
    validation_exempt: str | None = None
    """Upstream's ``trail_validation.exempt`` reason: ``check`` still reports what is wrong with the tool
    calls this target's trails record (unknown tools, bad arguments), but as warnings that never fail it."""

    def platform(self, name: str) -> PlatformTarget:
        """The settings for ``name`` (empty when the target says nothing about that platform)."""
        return self.platforms.get(name.lower()) or PlatformTarget()


__all__ = ["PlatformTarget", "TargetInfo"]
