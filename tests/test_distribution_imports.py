"""What each distribution may import: only the siblings it declares as dependencies, and of the core only
its public API. Checked over every import in the sources (lazy ones inside functions included), so a
plugin cannot quietly depend on another plugin's modules or on core internals that may change."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = sorted(p.parent for p in [*REPO.glob("trailblaze-*/pyproject.toml"), *REPO.glob("examples/*/pyproject.toml")])


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _meta(dist: Path) -> tuple[str, set[str], list[str]]:
    """(distribution name, declared dependency names, top-level packages it ships)."""
    data = tomllib.loads((dist / "pyproject.toml").read_text())
    packages = data["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    return (data["project"]["name"].lower(), {_name(r) for r in data["project"].get("dependencies", [])},
            [Path(p).name for p in packages])


def _sources(dist: Path) -> Iterator[Path]:
    for path in sorted((dist / "src").rglob("*.py")):
        yield path


def _imports(path: Path) -> Iterator[tuple[int, str, list[str]]]:
    """(line, module, imported names) for every absolute import in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []


OWNER = {pkg: name for name, _, pkgs in map(_meta, DISTRIBUTIONS) for pkg in pkgs}


@pytest.mark.parametrize("dist", DISTRIBUTIONS, ids=lambda d: d.name)
def test_no_distribution_imports_a_sibling_it_does_not_declare(dist: Path) -> None:
    name, declared, own = _meta(dist)
    wrong = []
    for path in _sources(dist):
        for line, module, _ in _imports(path):
            owner = OWNER.get(module.split(".")[0])
            if owner is not None and owner != name and owner not in declared:
                wrong.append(f"{path.relative_to(REPO)}:{line}: imports {module} from {owner}, not a dependency of {name}")
    assert wrong == []


PUBLIC_MODULES = ("trailblaze", "trailblaze.testing", "trailblaze.pytest_plugin")
"""The core's public surface, as ``trailblaze/__init__.py`` documents it: ``trailblaze.__all__``, plus the
test kit and the pytest plugin, each through its ``__all__`` (a submodule of ``trailblaze.testing`` is the
kit too). Everything else is internal: the submodules contract 1.1 called public still import, with a
deprecation warning where a name moved (``trailblaze-core/tests/test_public_surface.py``)."""

EXAMPLE_SOURCES = sorted(p for p in (REPO / "examples").rglob("*.py")
                         if "tests" not in p.parts and "node_modules" not in p.parts)
EXAMPLE_PLUGIN_TESTS = sorted((REPO / "examples" / "trailblaze-acme" / "tests").rglob("*.py"))
"""The example plugin's tests are what a third party copies, so they keep to the public surface too. The
in-repo plugins' own tests (and the other examples' integration tests) may reach internals: they ship and
change with the core, in one commit."""


def _public_module(module: str) -> str | None:
    for public in PUBLIC_MODULES:
        if module == public or (public == "trailblaze.testing" and module.startswith("trailblaze.testing.")):
            return module
    return None


def _off_the_surface(path: Path, shown: str) -> list[str]:
    wrong = []
    for line, module, names in _imports(path):
        if module.split(".")[0] != "trailblaze":
            continue
        where = f"{shown}:{line}"
        if _public_module(module) is None:
            wrong.append(f"{where}: imports {', '.join(names) or module} from the internal module {module}"
                         f" (import it from trailblaze)")
            continue
        public = set(importlib.import_module(module).__all__)
        wrong += [f"{where}: {module}.{n} is not public" for n in names
                  if n not in public and _public_module(f"{module}.{n}") is None]
    return wrong


def test_every_public_module_declares_its_surface() -> None:
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        assert isinstance(getattr(module, "__all__", None), (list, tuple)), f"{name} has no __all__"
        missing = [n for n in module.__all__ if not hasattr(module, n)]
        assert missing == [], f"{name}.__all__ names what it does not define: {missing}"


def test_siblings_and_examples_use_only_the_public_core_api() -> None:
    sources = [p for dist in DISTRIBUTIONS if _meta(dist)[0] != "trailblaze" for p in _sources(dist)]
    wrong = []
    for path in sorted({*sources, *EXAMPLE_SOURCES, *EXAMPLE_PLUGIN_TESTS}):
        wrong += _off_the_surface(path, str(path.relative_to(REPO)))
    assert wrong == []


@pytest.mark.parametrize("flags", [[], ["--driver"]], ids=["tools", "driver"])
def test_a_generated_plugin_uses_only_the_public_core_api(tmp_path: Path, flags: list[str]) -> None:
    target = tmp_path / "plugin"
    made = subprocess.run([sys.executable, "-m", "trailblaze.cli", "plugin", "new", "acme-shop", *flags,
                           "-o", str(target)], capture_output=True, text=True, timeout=120, check=False)
    assert made.returncode == 0, made.stderr
    files = sorted(target.rglob("*.py"))
    assert any(p.parent.name == "tests" for p in files) and any("src" in p.parts for p in files)
    wrong = [w for p in files for w in _off_the_surface(p, str(p.relative_to(target)))]
    assert wrong == []
