"""A descriptor plugin: adjusts tool descriptions for one model provider.

OpenAI rejects a function whose description is longer than 1024 characters; Anthropic takes longer
ones. This wrapper around ``trailblaze_tool_descriptor`` shortens, for OpenAI-type providers only,
whatever description the tool's own plugin produced, and leaves every other consumer (Anthropic,
``trailblaze tools``, MCP clients) the full text::

    [project.entry-points.trailblaze]
    acme_openai_descriptions = "trailblaze_acme.provider_descriptions"
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from typing import Any

from trailblaze import ToolDescriptor, hookimpl

OPENAI_TYPES = frozenset({"openai", "openai_compatible"})
OPENAI_DESCRIPTION_LIMIT = 1024


@hookimpl(wrapper=True)
def trailblaze_tool_descriptor(provider: str | None) -> Generator[None, Any, Any]:
    descriptor: ToolDescriptor | None = yield
    if descriptor is None or provider not in OPENAI_TYPES or len(descriptor.description) <= OPENAI_DESCRIPTION_LIMIT:
        return descriptor
    cut = descriptor.description[: OPENAI_DESCRIPTION_LIMIT - 1].rsplit(" ", 1)[0]
    return replace(descriptor, description=cut + "…")
