"""The core plugin that registers the provider types ``openai`` and ``openai_compatible``.

The providers live in ``openai_chat``, imported when the registry asks for them: loading every plugin
(``merge-reports``, ``--help``, the ``-n`` controller) does not pay for their model specs and wire types.
Their names stay importable from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..contract.markers import hookimpl

if TYPE_CHECKING:
    from .openai_chat import (OPENAI_MODELS, OpenAICompatibleProvider,  # noqa: F401 - kept here
                              OpenAIProvider, error_text, from_openai, status_error, to_openai_messages)
    from .registry import LlmProviderRegistry


@hookimpl
def trailblaze_register_llm_providers(registry: LlmProviderRegistry) -> None:
    from .openai_chat import OpenAICompatibleProvider, OpenAIProvider

    registry.add_provider(OpenAIProvider)
    registry.add_provider(OpenAICompatibleProvider)


if not TYPE_CHECKING:  # hidden from type checkers, as in the lazy packages: the names are imported above
    from .._lazy import lazy_attributes

    __getattr__ = lazy_attributes(__name__, dict.fromkeys(
        ("OPENAI_MODELS", "OpenAIProvider", "OpenAICompatibleProvider", "to_openai_messages", "from_openai",
         "error_text", "status_error"), "trailblaze.llm.openai_chat"))
