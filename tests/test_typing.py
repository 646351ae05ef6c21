"""Every distribution's sources stay ``mypy --strict`` clean (with the pydantic plugin), so a typing
slip fails CI like any other defect instead of piling up until someone runs mypy by hand."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCES = [
    "trailblaze-core/src/trailblaze",
    "trailblaze-yaml-tools/src",
    "trailblaze-mcp-subprocess/src",
    "trailblaze-driver-web/src/trailblaze_driver_web",
    "trailblaze-driver-android/src/trailblaze_driver_android",
    "trailblaze-driver-ios/src/trailblaze_driver_ios",
]


def test_sources_are_mypy_strict_clean() -> None:
    # The settings (strict, pydantic plugin) are the root pyproject's [tool.mypy].
    result = subprocess.run([sys.executable, "-m", "mypy", *SOURCES], cwd=REPO, capture_output=True, text=True,
                            timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_the_example_plugins_are_mypy_strict_clean() -> None:
    """A third party's plugin type-checks against the public API exactly as published: ``mypy --strict``
    sees every name ``trailblaze`` exports (a literal ``__all__`` with the imports under TYPE_CHECKING)
    and ``Driver[Config]`` types ``driver.config``. Strict mode also refuses a ``from trailblaze import``
    of a name outside ``__all__`` (no implicit re-export), and ``tests/test_distribution_imports.py``
    keeps these plugins, like the in-repo ones above, from importing any other core module."""
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "examples/trailblaze-acme",
                             "examples/web-shop/src/trailblaze_example_web_shop",
                             "examples/chat/src/trailblaze_example_chat"], cwd=REPO,
                            capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_the_public_names_are_all_lazy_and_all_listed() -> None:
    # __all__ is a literal (type checkers read it) and _LAZY says where each name lives: one list each,
    # kept equal here, so a name cannot be exported to mypy but missing at run time or the reverse.
    import trailblaze

    assert sorted(trailblaze.__all__) == sorted(["__version__", "hookimpl", *trailblaze._LAZY])
    for name in trailblaze.__all__:
        assert getattr(trailblaze, name) is not None


def test_only_public_core_imports_reach_the_type_checker(tmp_path: Path) -> None:
    """A plugin that imports an internal module's name through ``trailblaze`` fails ``mypy --strict``,
    so the public API is what a third party's type checker lets through, not only what a test scans."""
    plugin = tmp_path / "probe.py"
    plugin.write_text("from trailblaze import Tool, ToolResult\nfrom trailblaze import Redactor\n")
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", str(plugin)],
                            cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'Module "trailblaze" has no attribute "Redactor"' in result.stdout, result.stdout


@pytest.mark.parametrize("args", [("--driver",), ("--kind", "output"), ("--kind", "hooks")],
                         ids=["tools", "output", "hooks"])
def test_a_generated_plugin_is_mypy_strict_clean(tmp_path: Path, args: tuple[str, ...]) -> None:
    """What ``trailblaze plugin new`` writes type-checks as it is, every kind (``Driver[Config]`` included)."""
    target = tmp_path / "plugin"
    made = subprocess.run([sys.executable, "-m", "trailblaze.cli", "plugin", "new", "acme-shop", *args,
                           "-o", str(target)], capture_output=True, text=True, timeout=120, check=False)
    assert made.returncode == 0, made.stderr
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "src/trailblaze_acme_shop", "tests"],
                            cwd=target, env={**os.environ, "MYPYPATH": "src"}, capture_output=True, text=True,
                            timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


FLAGGED_TOOLS = """
from __future__ import annotations

from collections.abc import Collection

from trailblaze import Tool, ToolContext, ToolResult


class Base(Tool):
    def execute(self, ctx: ToolContext) -> ToolResult:
        return ToolResult.ok()


class TupleFlags(Base):
    \"\"\"Runs on the web only.\"\"\"

    name = "flags_tuple"
    platforms = ("web",)
    drivers = ("playwright-native",)


class ListFlags(Base):
    \"\"\"Lists, as authors of YAML write them.\"\"\"

    name = "flags_list"
    platforms = ["android", "ios"]
    drivers = ["android-appium-uiautomator2"]


class SetFlags(Base):
    \"\"\"Sets and frozensets.\"\"\"

    name = "flags_set"
    platforms = {"WEB"}
    drivers = frozenset({"playwright-native"})


class Everywhere(Base):
    \"\"\"The default, spelled out.\"\"\"

    name = "flags_none"
    platforms = None
    drivers = None


def names(flags: Collection[str] | None) -> list[str]:
    return sorted(flags or ())


ALL = [names(cls.platforms) + names(cls.drivers) for cls in (TupleFlags, ListFlags, SetFlags, Everywhere)]
"""


def test_the_class_flags_take_what_authors_write_under_mypy_strict(tmp_path: Path) -> None:
    """``drivers``/``platforms`` are ``Collection[str] | None``: a tuple, a list, a set or a frozenset
    type-checks (a tuple used to fail ``mypy --strict`` against ``frozenset[str]`` while working)."""
    (tmp_path / "flagged_tools.py").write_text(FLAGGED_TOOLS)
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "flagged_tools.py"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
