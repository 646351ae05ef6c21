"""The import rules of docs/architecture.md, read from the source with ``ast`` so that neither a lazy
(function-level) import nor one under ``TYPE_CHECKING`` can hide an arrow.

1. The trail format and the tool model sit below the plugin host: nothing under ``trailblaze/trail/`` or
   ``trailblaze/tools/`` imports ``trailblaze.plugins`` (or the hook specs the host is built from); they
   take a ``ToolCodec`` instead.
2. No circle: the modules of ``trailblaze-core`` form no strongly connected component of more than one
   module. An arrow runs from a module to the module an import names: ``from a.b import c`` is an arrow to
   ``a.b.c`` when that is a module, else to ``a.b``. A package's ``__init__`` is the module ``a.b`` itself:
   its re-exports are its own arrows (under ``TYPE_CHECKING`` too), so a module that takes a name from the
   ``__init__`` of a package whose ``__init__`` re-exports it back (``from .. import hookimpl`` in
   ``tools/serialization.py`` once did) shows up as a circle. Importing ``a.b.c`` also runs ``a/b/__init__``
   first; that is not drawn as an arrow, which is why the bottom package ``trailblaze/contract/`` keeps an
   ``__init__`` that imports nothing (checked below).
3. The contract layer in order, bottom first: ``trailblaze.contract`` < ``trailblaze.context`` < the tool
   model < ``trailblaze.session`` < ``trailblaze.driver`` < the plugin host; nothing reaches a layer above it.
4. Pairs that once ran both ways stay one way: what both sides used stands below both (``LAYER_PAIRS``).
5. The host loads the core's own plugins by name (``host.loader.DEFAULT_PLUGINS``), which no import
   statement shows: drawn as arrows from ``trailblaze.host.loader`` they close no circle, and the one
   that reaches above the runner, ``trailblaze.builtin.outputs`` (the report writers, reached through
   ``trailblaze_write_run_outputs``), is named here, so no other arrow can hide behind a string.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "trailblaze"
BELOW_THE_HOST = ("trail", "tools")
FORBIDDEN = {"trailblaze.plugins", "trailblaze.hookspecs"}
ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def _package(path: Path) -> str:
    return ".".join(("trailblaze", *path.parent.relative_to(PACKAGE).parts))


def _import_statements(path: Path, package: str) -> Iterator[tuple[str, list[str]]]:
    """``(module, names)`` of every import in ``path``, relative ones resolved: ``import a.b`` is
    ``("a.b", [])``, ``from a import b, c`` is ``("a", ["b", "c"])``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            yield base, [alias.name for alias in node.names]


def _imports(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports; ``from x import y`` counts ``x.y`` too."""
    found: set[str] = set()
    for module, names in _import_statements(path, package):
        found.add(module)
        found.update(f"{module}.{name}" for name in names)
    return found


def test_trail_and_tools_never_import_the_plugin_host() -> None:
    offenders = []
    for folder in BELOW_THE_HOST:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            bad = sorted(_imports(path, _package(path)) & FORBIDDEN)
            if bad:
                offenders.append(f"{path.relative_to(PACKAGE)} imports {', '.join(bad)}")
    assert not offenders, "see docs/architecture.md (the import rule): " + "; ".join(offenders)


def _imports_of(module: str) -> set[str]:
    path = PACKAGE.joinpath(*module.split(".")[1:]).with_suffix(".py")
    return _imports(path, _package(path))


def test_the_contract_names_no_host() -> None:
    # hookspecs.py is what the host is built from: naming PluginHost (even for typing) would close a
    # circle; a plugin that asks the others something gets the PluginQueries protocol instead.
    assert not {m for m in _imports_of("trailblaze.hookspecs") if m.startswith("trailblaze.plugins")}
    assert not {m for m in _imports_of("trailblaze.plugin_info")
                if m.startswith(("trailblaze.plugins", "trailblaze.hookspecs"))}


def test_servers_never_import_a_command_module() -> None:
    # The MCP workbench and the live sessions sit below trailblaze/commands/, which starts them: what a
    # command and a server share lives below both (trailblaze/listings/), so no circle runs through a command.
    offenders = []
    for folder in ("mcp_server", "live"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            bad = sorted(m for m in _imports(path, _package(path)) if m.startswith("trailblaze.commands"))
            if bad:
                offenders.append(f"{path.relative_to(PACKAGE)} imports {', '.join(bad)}")
    assert not offenders, "see docs/architecture.md (Commands): " + "; ".join(offenders)


def test_the_rule_sees_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from typing import TYPE_CHECKING\n"
                     "if TYPE_CHECKING:\n    from ..plugins import PluginHost\n"
                     "def f():\n    from .. import hookspecs\n", encoding="utf-8")
    found = _imports(probe, "trailblaze.tools")
    assert {"trailblaze.plugins", "trailblaze.plugins.PluginHost", "trailblaze.hookspecs"} <= found


def test_the_architecture_page_states_the_rule_this_test_enforces() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert "test_import_rule.py" in text
    for folder in BELOW_THE_HOST:
        assert f"`trailblaze/{folder}/`" in text
    assert "`trailblaze.plugins`" in text
    assert "strongly connected components" in text and "`trailblaze/contract/`" in text
    for module in CONTRACT_ORDER[1:]:
        assert f"`{module}`" in text


# -- 2. no circle ---------------------------------------------------------------------------------
def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """``module -> modules it imports`` for every module under the package ``root`` (see rule 2)."""
    paths = {_module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        arrows: set[str] = set()
        for module, names in _import_statements(path, package):
            submodules = [f"{module}.{n}" for n in names if f"{module}.{n}" in paths]
            arrows.update(submodules)
            if not names or len(submodules) < len(names):  # a name the module itself defines
                arrows.add(module)
        graph[name] = {target for target in arrows if target in paths and target != name}
    return graph


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph[todo.pop()]:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module: modules that reach each other."""
    reach = {name: _reach(graph, name) for name in graph}
    found: list[list[str]] = []
    placed: set[str] = set()
    for name in sorted(graph):
        if name in placed or name not in reach[name]:
            continue
        component = sorted(other for other in reach[name] if name in reach[other])
        placed.update(component)
        found.append(component)
    return found


def _describe(graph: dict[str, set[str]], component: Iterable[str]) -> str:
    members = set(component)
    return "; ".join(f"{m} -> {', '.join(sorted(graph[m] & members))}" for m in sorted(members))


def test_no_import_circle_among_the_core_modules() -> None:
    graph = module_graph()
    assert len(graph) > 100 and "trailblaze.tools.base" in graph["trailblaze.session"]
    found = circles(graph)
    assert not found, "see docs/architecture.md (the import rule): import circles: " + " || ".join(
        f"{len(c)} modules: {_describe(graph, c)}" for c in found)


def test_the_circle_finder_sees_type_checking_lazy_and_package_init_arrows(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                      "    from .sub.b import B\n", encoding="utf-8")
    (root / "a.py").write_text("def f():\n    from .sub import b\n", encoding="utf-8")
    (root / "sub" / "__init__.py").write_text("", encoding="utf-8")
    (root / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                       "    from ..a import f\nclass B: ...\n", encoding="utf-8")
    (root / "sub" / "c.py").write_text("from .. import marker\n", encoding="utf-8")
    graph = module_graph(root)
    assert graph["pkg.a"] == {"pkg.sub.b"} and graph["pkg.sub.c"] == {"pkg"}
    assert circles(graph) == [["pkg.a", "pkg.sub.b"]]
    (root / "sub" / "b.py").write_text("from .c import x\n", encoding="utf-8")
    assert circles(module_graph(root)) == [["pkg", "pkg.sub.b", "pkg.sub.c"]]


# -- 3. the contract layer in order ---------------------------------------------------------------
CONTRACT_ORDER = ("trailblaze.contract", "trailblaze.context", "trailblaze.tools.base", "trailblaze.session",
                  "trailblaze.driver", "trailblaze.plugins")


def test_the_contract_layer_runs_one_way() -> None:
    graph = module_graph()
    contract = sorted(m for m in graph if m.startswith("trailblaze.contract"))
    assert contract and not graph["trailblaze.contract"], "trailblaze/contract/__init__.py imports nothing"
    offenders = []
    for i, lower in enumerate(CONTRACT_ORDER[:-1]):
        for module in (contract if lower == "trailblaze.contract" else [lower]):
            above = _reach(graph, module) & set(CONTRACT_ORDER[i + 1:])
            offenders += [f"{module} reaches {', '.join(sorted(above))}"] if above else []
    assert not offenders, "see docs/architecture.md (The contract layer): " + "; ".join(offenders)


# -- 4. pairs kept one way ------------------------------------------------------------------------
LAYER_PAIRS = (
    # (lower, higher): no module of ``lower`` reaches one of ``higher`` (a name: that module and all under it)
    ("trailblaze.contract", "trailblaze.recorder"),  # the recording types are contract.recording
    ("trailblaze.config", "trailblaze.tools"),  # both phrase errors with argument_messages
    ("trailblaze.results", "trailblaze.runner"),  # the result model, store and output request are below the runner ...
    ("trailblaze.report", "trailblaze.runner"),  # ... and the outputs read it from there;
    ("trailblaze.runner", "trailblaze.report"),  # the runner reaches the writers through the host's hooks
    ("trailblaze.agent", "trailblaze.listings.toolbox"),  # the agent asks session.session_tools
    ("trailblaze.commands", "trailblaze.pytest_plugin"),  # run -n shares commands.pytest_bridge
)


def _under(module: str, name: str) -> bool:
    return module == name or module.startswith(name + ".")


def test_the_pairs_that_once_ran_both_ways_run_one_way() -> None:
    graph = module_graph()
    # Importing a module runs its package's ``__init__`` first, which no arrow shows: the layer packages
    # whose modules sit at different heights keep an ``__init__`` that imports nothing.
    assert not graph["trailblaze.results"] and not graph["trailblaze.listings"]
    offenders = []
    for lower, higher in LAYER_PAIRS:
        modules = [m for m in graph if _under(m, lower)]
        assert modules, lower
        for module in sorted(modules):
            above = sorted(m for m in _reach(graph, module) if _under(m, higher))
            offenders += [f"{module} reaches {', '.join(above)}"] if above else []
    assert not offenders, "see docs/architecture.md (the import rule): " + "; ".join(offenders)


# -- 5. the plugins the host loads by name ------------------------------------------------------------
OUTPUTS_PLUGIN = "trailblaze.builtin.outputs"


def default_plugins() -> list[str]:
    """``DEFAULT_PLUGINS`` as written in ``host/loader.py`` (read with ``ast``, like the imports)."""
    tree = ast.parse((PACKAGE / "host" / "loader.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == "DEFAULT_PLUGINS" and isinstance(node.value, ast.Tuple):
            return [ast.literal_eval(item) for item in node.value.elts]
    raise AssertionError("DEFAULT_PLUGINS is no longer a tuple literal in host/loader.py")


def _with_loads(graph: dict[str, set[str]], plugins: Iterable[str]) -> dict[str, set[str]]:
    loaded = {name: set(targets) for name, targets in graph.items()}
    loaded["trailblaze.host.loader"] |= set(plugins)
    return loaded


def test_the_plugins_loaded_by_name_hide_no_arrow() -> None:
    graph = module_graph()
    plugins = default_plugins()
    assert OUTPUTS_PLUGIN in plugins and all(name in graph for name in plugins)
    loaded = _with_loads(graph, plugins)
    found = circles(loaded)
    assert not found, "a plugin in DEFAULT_PLUGINS closes a circle: " + " || ".join(
        _describe(loaded, c) for c in found)
    assert not any(OUTPUTS_PLUGIN in targets for targets in graph.values()), "builtin.outputs is only loaded"
    runner = [m for m in graph if _under(m, "trailblaze.runner")]
    assert not [m for m in _reach(graph, OUTPUTS_PLUGIN) if _under(m, "trailblaze.runner")]
    others = _with_loads(graph, (p for p in plugins if p != OUTPUTS_PLUGIN))
    above = sorted({m for r in runner for m in _reach(others, r) if _under(m, "trailblaze.report")})
    assert not above, f"the runner reaches report/ through a plugin the host loads by name: {above}"
