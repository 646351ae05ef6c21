"""A package's names imported on first use: one ``__getattr__`` (PEP 562) for every core package that
defers its exports (``trailblaze``, ``trailblaze.agent``, ``trailblaze.llm``) and for the plugin modules
that keep the names of what moved out of them (``llm.openai_provider``, ``llm.anthropic_provider``), so that
loading a plugin module does not import what only a run needs (``merge-reports`` and ``--help`` load every
plugin and use few)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: ``where`` maps each deferred name to ``module`` or
    ``module:attribute`` (a leading dot: relative to ``package``). A name is imported once, then kept in the
    package's namespace, so later reads never come back here."""

    def __getattr__(name: str) -> Any:
        target = where.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name, _, attribute = target.partition(":")
        value = getattr(importlib.import_module(module_name, package), attribute or name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
