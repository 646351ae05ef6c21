"""Every hook in hookspecs.py appears in docs/hooks.md with its exact argument list, and vice versa."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from trailblaze import hookspecs

DOC = Path(__file__).resolve().parents[2] / "docs" / "hooks.md"


def spec_signatures() -> dict[str, str]:
    out = {}
    for name, fn in vars(hookspecs).items():
        if name.startswith("trailblaze_") and callable(fn):
            params = ", ".join(inspect.signature(fn).parameters)
            out[name] = f"{name}({params})"
    return out


def test_every_hook_is_documented_with_its_signature() -> None:
    text = DOC.read_text()
    documented = set(re.findall(r"^### `(trailblaze_\w+\([^)]*\))`", text, flags=re.M))
    expected = set(spec_signatures().values())
    assert expected - documented == set(), "hooks missing from docs/hooks.md (or with another signature)"
    assert documented - expected == set(), "docs/hooks.md documents hooks that do not exist"


def test_every_hook_has_a_real_docstring() -> None:
    for name in spec_signatures():
        doc = inspect.getdoc(getattr(hookspecs, name)) or ""
        assert len(doc) > 60, f"{name} needs a docstring that explains when and why it is called"


def test_the_contract_version_is_the_documented_one() -> None:
    import trailblaze

    assert trailblaze.CONTRACT_VERSION == hookspecs.CONTRACT_VERSION
    major, minor = hookspecs.CONTRACT_VERSION
    assert f"currently `({major}, {minor})`" in DOC.read_text()
