"""The module paths that moved into layer packages still import: the same module, with a warning."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import trailblaze
from trailblaze._moved import MOVED, MovedModuleFinder

PACKAGE = Path(trailblaze.__file__).parent

TOP_LEVEL_AT_1A274B9 = (
    "__init__ _names _version argument_messages checks children cli config context driver errors files hookspecs "
    "host_settings logs markers memory output_request plugin_loading plugin_queries plugins recorder results_store "
    "reuse run_results schemas screens secret_sources selectors session session_tools targets testing testing_llm "
    "testing_offline toolbox untrusted waypoint_files waypoints workspace_tools yamlio yamllimits yamlstream"
).split()
"""The top-level modules of ``trailblaze`` before the layers became packages (commit 1a274b9)."""


def _forget(name: str) -> None:
    sys.modules.pop(name, None)
    parent, _, child = name.rpartition(".")
    package = importlib.import_module(parent)  # an old path inside a package that nothing imported yet
    if hasattr(package, child):
        delattr(package, child)


def test_every_old_top_level_module_still_has_a_path() -> None:
    gone = [m for m in TOP_LEVEL_AT_1A274B9
            if not (PACKAGE / f"{m}.py").exists() and not (PACKAGE / m / "__init__.py").exists()]
    top_level = [name for name in MOVED if name.count(".") == 1]  # trail.reader_base moved inside trail/
    assert sorted(gone) == sorted(name.rpartition(".")[2] for name in top_level)
    assert not [name for name in MOVED if (PACKAGE / f"{name.rpartition('.')[2]}.py").exists()], "no shim files"


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_imports_the_same_module_and_warns_with_the_new_one(old: str) -> None:
    new = importlib.import_module(MOVED[old])
    _forget(old)
    with pytest.warns(DeprecationWarning, match=rf"{old} is deprecated: import {MOVED[old]} instead") as caught:
        module = importlib.import_module(old)
    assert module is new and sys.modules[old] is new
    assert new.__spec__ is not None and new.__spec__.name == MOVED[old], "the module keeps its own spec"
    assert [w.filename for w in caught] == [__file__], "the warning points at the importer"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert importlib.import_module(old) is new  # cached: no second warning from the same module


def test_names_from_old_paths_are_the_same_objects() -> None:
    from trailblaze.results.model import RunResult
    from trailblaze.results.output_request import OutputRequest
    from trailblaze.testing.llm import ScriptedLlmServer

    for name in ("trailblaze.run_results", "trailblaze.output_request", "trailblaze.testing_llm"):
        _forget(name)
    # Old paths exist at run time only: a type checker reading them is told to move (import-not-found).
    with pytest.warns(DeprecationWarning):
        from trailblaze.run_results import RunResult as OldRunResult  # type: ignore[import-not-found]
    with pytest.warns(DeprecationWarning):
        from trailblaze.output_request import OutputRequest as OldOutputRequest  # type: ignore[import-not-found]
    with pytest.warns(DeprecationWarning):
        import trailblaze.testing_llm  # type: ignore[import-not-found]
    assert OldRunResult is RunResult and OldOutputRequest is OutputRequest
    assert trailblaze.testing_llm.ScriptedLlmServer is ScriptedLlmServer


def test_the_warning_names_the_line_that_imports_the_old_path(tmp_path: Path) -> None:
    script = tmp_path / "old_plugin.py"
    script.write_text("import trailblaze\n\nfrom trailblaze.waypoint_files import discover\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-W", "always::DeprecationWarning", str(script)],
                         capture_output=True, text=True, check=True)
    assert f"{script}:3: DeprecationWarning: trailblaze.waypoint_files is deprecated: import " \
           "trailblaze.waypoints.files instead" in out.stderr, out.stderr


def test_the_finder_is_consulted_last_and_only_for_old_paths() -> None:
    # Every module the regular finders resolve is found before this one is asked: no cost on a normal import.
    finders = [f for f in sys.meta_path if isinstance(f, MovedModuleFinder)]
    assert len(finders) == 1 and sys.meta_path[-1] is finders[0]
    assert finders[0].find_spec("trailblaze.config") is None and finders[0].find_spec("json") is None
    # Installing it imports nothing ``trailblaze/__init__`` does not already: its module level takes only
    # ``sys`` and ``typing``; the rest is imported when an old path is asked for.
    tree = ast.parse((PACKAGE / "_moved.py").read_text(encoding="utf-8"))
    top = {alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names}
    top |= {node.module or "" for node in tree.body if isinstance(node, ast.ImportFrom)}
    assert top == {"__future__", "sys", "typing"}


@pytest.mark.parametrize(("module", "name", "replacement"), [
    ("trailblaze.mcp_server.bench_state", "BenchState", "Workbench"),
    ("trailblaze.mcp_server.devices", "DeviceBench", "Workbench"),
    ("trailblaze.mcp_server.tool_offer", "ToolOffering", "Workbench"),
    ("trailblaze.trail.reader_base", "TrailReaderBase", "ReadContext"),
])
def test_the_slices_that_became_parts_keep_their_names_deprecated(module: str, name: str, replacement: str) -> None:
    """Classes that were bases of one object until contract 1.1 still import, warning with what replaced them."""
    with pytest.warns(DeprecationWarning, match=replacement):
        mod = importlib.import_module(module)
        value = getattr(mod, name)
    assert value.__name__ == replacement
