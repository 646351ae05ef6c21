"""Several devices in one trail: the actors a trail declares (``config.actors``) and how its steps group
into what runs one after the other and what runs at the same time (``parallel:``).

This is our extension of the trail format; upstream Trailblaze does not read ``actors``, ``actor`` or
``parallel``. A trail without ``actors:`` is the case of one implicit actor, so the runner has one code
path: ``model.actors_of`` gives that actor, ``model.step_groups`` each step as a group of its own.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["PLATFORM_WORD", "Actor", "platform_of_key"]

PLATFORM_WORD = re.compile(r"^[a-z][a-z0-9]*$")
"""A platform is written with the words recording keys start with: ``web``, ``android``, ``ios``."""


class Actor(BaseModel):
    """One named device of a trail: its platform and, optionally, the driver and the driver's settings.

    ``alice: web`` is ``Actor(name="alice", platform="web")``; the long form adds ``driver`` (a driver key
    or alias) and ``options`` (settings of that driver, over the workspace's and the trail's ``drivers:``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    platform: str
    driver: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)


def platform_of_key(key: str) -> str:
    """The platform a recording key is for: its first segment (``android-phone`` → ``android``)."""
    return key.split("-", 1)[0].lower()
