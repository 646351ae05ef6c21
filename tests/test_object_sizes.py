"""Objects have parts, not slices: no object is over 300 lines counted with every base it has in its own
distribution, and no class takes a base from another module of its own distribution except a real "is a"
(a driver of a kind of device, a tool of a kind of tool). Measured at run time over every module of every
distribution, so a class split over files by inheritance is seen whole."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import warnings
from types import ModuleType

import pytest

PACKAGES = ("trailblaze", "trailblaze_yaml_tools", "trailblaze_mcp_subprocess", "trailblaze_driver_web",
            "trailblaze_driver_android", "trailblaze_driver_ios")
LIMIT = 300

ALLOWED_CROSS_MODULE_BASES = {
    # A base class that exists to be subclassed in other modules: the driver contract, the tool model,
    # the Appium driver for the two Appium platforms, error and option families, the web tools' bases.
    "trailblaze.driver.Driver", "trailblaze.driver.DriverConfig", "trailblaze.tools.base.Tool",
    "trailblaze.tools.base.DelegatingTool", "trailblaze.tools.base.ToolDefinition",
    "trailblaze.errors.TrailblazeError", "trailblaze.errors.BadInputError",
    "trailblaze.errors.InfrastructureError", "trailblaze.errors.ToolFailure", "trailblaze.errors.ConfigError",
    "trailblaze.errors.UnknownToolError", "trailblaze.errors.DriverError",
    # A registry *is a* record of who contributed each entry (tools, drivers, LLM provider types).
    "trailblaze.contract.sources.Contributions",
}


def _modules(package: str) -> list[ModuleType]:
    root = importlib.import_module(package)
    out = [root]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            out.append(importlib.import_module(info.name))
    return out


def _classes(package: str) -> list[type]:
    seen: dict[str, type] = {}
    for module in _modules(package):
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if obj.__module__ == module.__name__:
                seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(seen.values())


def _lines(cls: type) -> int:
    try:
        return len(inspect.getsourcelines(cls)[0])
    except (OSError, TypeError):
        return 0


def _own(cls: type, package: str) -> list[type]:
    """``cls`` and its bases defined in the same distribution (its own package)."""
    return [c for c in cls.__mro__ if c.__module__.split(".")[0] == package]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_object_is_over_300_lines_with_its_own_bases(package: str) -> None:
    too_big = []
    for cls in _classes(package):
        bases = [c for c in _own(cls, package) if f"{c.__module__}.{c.__qualname__}" != "trailblaze.driver.Driver"]
        total = sum(_lines(c) for c in bases)
        if total > LIMIT:
            too_big.append(f"{cls.__module__}.{cls.__qualname__}: {total} lines "
                           f"({', '.join(f'{c.__qualname__} {_lines(c)}' for c in bases)})")
    assert not too_big, "\n".join(too_big)


@pytest.mark.parametrize("package", PACKAGES)
def test_no_class_is_sliced_over_modules(package: str) -> None:
    """A base from another module of the same distribution is a slice unless it is a contract base that
    exists to be subclassed (``ALLOWED_CROSS_MODULE_BASES``), or a base in a plugin's own hierarchy of
    tools or drivers (a web tool *is a* targeted web tool; an iOS driver *is an* Appium driver)."""
    sliced = []
    for cls in _classes(package):
        for base in cls.__bases__:
            name = f"{base.__module__}.{base.__qualname__}"
            if base.__module__.split(".")[0] != package or base.__module__ == cls.__module__:
                continue
            if name in ALLOWED_CROSS_MODULE_BASES or _is_a_kind(base):
                continue
            sliced.append(f"{cls.__module__}.{cls.__qualname__} < {name}")
    assert not sliced, "\n".join(sliced)


def _is_a_kind(base: type) -> bool:
    """A tool, driver, error, config or pydantic model family: subclasses are kinds of it, not parts."""
    from pydantic import BaseModel

    from trailblaze.driver import Driver
    from trailblaze.errors import TrailblazeError
    from trailblaze.tools.base import Tool

    if getattr(base, "_is_protocol", False):
        return True  # a protocol extending a protocol is a wider interface, not a slice of an object
    return issubclass(base, (Tool, Driver, TrailblazeError, BaseModel, BaseException)) or inspect.isabstract(base)


def test_the_restructured_objects_have_no_base_of_their_own() -> None:
    from trailblaze.mcp_server.workbench import Workbench
    from trailblaze.plugins import PluginHost
    from trailblaze.runner.run import Runner
    from trailblaze_driver_android.appium.driver import AppiumDriver
    from trailblaze_driver_web.driver import PlaywrightDriver

    assert Runner.__mro__ == (Runner, object)
    assert PluginHost.__mro__ == (PluginHost, object)
    assert Workbench.__mro__ == (Workbench, object)
    from trailblaze.driver import Driver

    for driver in (PlaywrightDriver, AppiumDriver):
        assert driver.__bases__[0] is Driver or Driver in driver.__bases__, driver.__mro__
