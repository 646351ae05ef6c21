"""Module paths that moved, still importable for one minor version, each with a ``DeprecationWarning``.

Plugins and tests import ``trailblaze.testing_llm`` or ``trailblaze.run_results`` by the paths they had
before the layers became packages (``contract/``, ``results/``, ``listings/``, ``testing/``,
``waypoints/``). A shim file per old path would put the flat tree back, so one finder at the end of
``sys.meta_path`` answers for the old names only: it imports the new module and hands back that same
object (``sys.modules`` holds it under both names, so identity and ``isinstance`` hold), warning the
module that imported the old name. A name the regular finders resolve never reaches it, so it costs a
normal import nothing.

Python caches a module once imported: the warning names the first import site of an old path in a
process, as a deprecated shim module's own top-level warning would.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec
    from types import FrameType, ModuleType

MOVED: dict[str, str] = {
    "trailblaze._names": "trailblaze.contract.markers",
    "trailblaze.markers": "trailblaze.contract.markers",
    "trailblaze.argument_messages": "trailblaze.contract.argument_messages",
    "trailblaze.run_results": "trailblaze.results.model",
    "trailblaze.results_store": "trailblaze.results.store",
    "trailblaze.output_request": "trailblaze.results.output_request",
    "trailblaze.screens": "trailblaze.listings.screens",
    "trailblaze.session_tools": "trailblaze.session",
    "trailblaze.toolbox": "trailblaze.listings.toolbox",
    "trailblaze.workspace_tools": "trailblaze.listings.workspace_tools",
    "trailblaze.testing_llm": "trailblaze.testing.llm",
    "trailblaze.testing_offline": "trailblaze.testing.offline",
    "trailblaze.waypoint_files": "trailblaze.waypoints.files",
    "trailblaze.yamllimits": "trailblaze.yamlstream",
    "trailblaze.plugin_loading": "trailblaze.host.loader",
    "trailblaze.plugin_queries": "trailblaze.plugin_info",
    "trailblaze.trail.reader_base": "trailblaze.trail.read_context",
    "trailblaze.host.info": "trailblaze.plugin_info",
    "trailblaze.listings.session_tools": "trailblaze.session",
}
"""Old dotted path -> the module that holds its names now (docs/architecture.md, "Moved module paths")."""


class MovedModuleFinder:
    """A meta-path finder and loader for the old paths in ``MOVED``; anything else is not its business."""

    def __init__(self) -> None:
        self._specs: dict[str, ModuleSpec | None] = {}

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname not in MOVED:
            return None
        from importlib.machinery import ModuleSpec

        # A loader by its two methods: subclassing importlib.abc.Loader would import it at start-up.
        return ModuleSpec(fullname, cast("Loader", self), origin=MOVED[fullname])

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        import importlib

        new = MOVED[spec.name]
        module = importlib.import_module(new)
        _warn_importer(f"{spec.name} is deprecated: import {new} instead (the old path is kept for one "
                       "minor version of the contract)")
        # The import system files the module under the old name too and stamps the old spec on it; the
        # module keeps its own (``exec_module`` puts it back).
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        spec = module.__spec__
        real = self._specs.pop(spec.name, None) if spec is not None else None
        if real is not None:
            module.__spec__ = real


def _warn_importer(message: str) -> None:
    """Warn at the frame that wrote the import: the first frame outside the import system and this module."""
    import warnings

    frame: FrameType | None = sys._getframe(1)
    while frame is not None and _in_import_system(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return
    globs = frame.f_globals
    warnings.warn_explicit(message, DeprecationWarning, frame.f_code.co_filename, frame.f_lineno,
                           module=globs.get("__name__", "<unknown>"),
                           registry=globs.setdefault("__warningregistry__", {}))


def _in_import_system(filename: str) -> bool:
    import importlib

    return filename in (__file__, importlib.__file__) or filename.startswith("<frozen importlib")


def install() -> None:
    """Append the finder once (a reload of ``trailblaze`` does not add a second)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())


__all__ = ["MOVED", "MovedModuleFinder", "install"]
