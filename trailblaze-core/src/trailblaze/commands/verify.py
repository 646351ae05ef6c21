"""``trailblaze verify``: check one natural-language assertion on a fresh device with the agent (the
twin of ``trailblaze step``, built by ``step.one_shot_command``)."""

from __future__ import annotations

from .step import one_shot_command

command = one_shot_command("verify", """Check one natural-language ASSERTION on a fresh device with the LLM agent.

    Only verification tools are offered. Exit 0 when it holds, 1 when it does not. With --save FILE
    a `verify:` step with its recording is appended to a trail.

    \b
    Example:
      trailblaze verify "The cart shows 1 item" --driver playwright-native
    """)
