"""The core plugin that registers the provider type ``anthropic`` (the Messages API).

The provider lives in ``anthropic_messages``, imported when the registry asks for it: loading every plugin
(``merge-reports``, ``--help``, the ``-n`` controller) does not pay for its model specs and wire types.
Its names stay importable from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..contract.markers import hookimpl

if TYPE_CHECKING:
    from .anthropic_messages import (ANTHROPIC_MODELS, AnthropicProvider,  # noqa: F401 - kept here
                                     from_anthropic, to_anthropic_messages)
    from .registry import LlmProviderRegistry


@hookimpl
def trailblaze_register_llm_providers(registry: LlmProviderRegistry) -> None:
    from .anthropic_messages import AnthropicProvider

    registry.add_provider(AnthropicProvider)


if not TYPE_CHECKING:  # hidden from type checkers, as in the lazy packages: the names are imported above
    from .._lazy import lazy_attributes

    __getattr__ = lazy_attributes(__name__, dict.fromkeys(
        ("ANTHROPIC_MODELS", "AnthropicProvider", "to_anthropic_messages", "from_anthropic"),
        "trailblaze.llm.anthropic_messages"))
