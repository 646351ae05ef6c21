"""A public name is a promise: every name of contract 1.1's public surface keeps importing from the module
it was public in for one more minor version, either silently or with a ``DeprecationWarning`` that names
its replacement. ``data/public_surface_1_1.json`` is that surface as commit 1a274b9 published it
(``trailblaze.__all__`` and the ``__all__`` of the 33 submodules its docstring declared public); a name
that disappears, or moves without its warning period, fails here."""

from __future__ import annotations

import importlib
import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

SURFACE = json.loads((Path(__file__).parent / "data" / "public_surface_1_1.json").read_text(encoding="utf-8"))
MODULES: dict[str, list[str]] = SURFACE["modules"]


def _resolve(module: str, name: str) -> Any:
    found = importlib.import_module(module)
    if hasattr(found, name):
        return getattr(found, name)
    return importlib.import_module(f"{module}.{name}")  # a submodule listed in a package's __all__


def _unexplained(caught: list[warnings.WarningMessage], module: str, name: str) -> list[str]:
    """The warnings that are not a deprecation naming a replacement: a dotted ``trailblaze.`` path other
    than the old one, or a codec method (``session.codec.describe``)."""
    bad = []
    for warning in caught:
        message = str(warning.message)
        named = set(re.findall(r"trailblaze(?:\.\w+)+", message)) - {module, f"{module}.{name}"}
        if not issubclass(warning.category, DeprecationWarning) or not named:
            bad.append(f"{warning.category.__name__}: {message}")
    return bad


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_name_of_the_previous_surface_still_imports(module: str) -> None:
    missing, unexplained = [], []
    for name in MODULES[module]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                _resolve(module, name)
            except (ImportError, AttributeError) as exc:
                missing.append(f"{module}.{name}: {exc}")
                continue
        unexplained += [f"{module}.{name}: {w}" for w in _unexplained(caught, module, name)]
    assert missing == [], "gone without a deprecation period: " + "; ".join(missing)
    assert unexplained == [], "a warning that names no replacement: " + "; ".join(unexplained)


def test_the_surface_file_is_contract_1_1_and_whole() -> None:
    assert SURFACE["contract"] == [1, 1]
    assert len([m for m in MODULES if m != "trailblaze"]) == 33
    assert {"describe", "decode_yaml_item"}.isdisjoint(MODULES["trailblaze.tools.descriptors"]
                                                      + MODULES["trailblaze.tools.serialization"])


def test_the_current_public_api_resolves_without_a_warning() -> None:
    """``trailblaze.__all__`` points at where each name lives now: a lazy entry left at a deprecated
    module path would warn every plugin that imports the name."""
    import trailblaze

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name in trailblaze.__all__:
            assert getattr(trailblaze, name) is not None
    assert [str(w.message) for w in caught] == []

