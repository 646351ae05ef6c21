"""Core plugin that claims the ``llm:`` and ``providers:`` sections of ``trails/config/trailblaze.yaml``.

``llm:`` is validated up front with ``LlmSection`` (errors name file, line and key); ``providers:`` is a
list (``{ref: providers/p.yaml}`` or inline providers) and is read, with its files, only when a run
actually needs a model (``config.workspace_provider_files``).
"""

from __future__ import annotations

from typing import Any

from ..contract.markers import hookimpl


@hookimpl
def trailblaze_config_sections() -> dict[str, type[Any]]:
    from .specs import LlmSection  # here: loading every plugin (merge-reports, --help) does not pay for it

    return {"llm": LlmSection, "providers": list}
