"""What the mobile tools share: finding the Appium driver, selector fields, text comparison."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field
from trailblaze import DelegatingTool, NodeSelector, Tool, ToolFailure, parse_selector

from ..hierarchy import ANDROID, Node

if TYPE_CHECKING:
    from trailblaze import ToolContext

    from ..driver import AppiumDriver

ANDROID_DRIVER = "android-appium-uiautomator2"
IOS_DRIVER = "ios-appium-xcuitest"
MOBILE_DRIVERS = frozenset({ANDROID_DRIVER, IOS_DRIVER})
MOBILE_PLATFORMS = frozenset({"android", "ios"})


class MobileTool(Tool):
    """A tool for the Appium drivers only."""

    drivers: ClassVar[frozenset[str] | None] = MOBILE_DRIVERS


class MobileDelegatingTool(DelegatingTool):
    """A delegating tool for the Appium drivers only."""

    drivers: ClassVar[frozenset[str] | None] = MOBILE_DRIVERS


def upper_text(value: Any) -> Any:
    """A text argument upper-cased (a ``mode="before"`` validator of the enum-like arguments: ``down`` is
    read as ``DOWN``)."""
    return value.upper() if isinstance(value, str) else value


def appium_driver(ctx: ToolContext) -> AppiumDriver:
    from ..driver import AppiumDriver

    driver = ctx.driver
    if not isinstance(driver, AppiumDriver):
        raise ToolFailure("this tool needs an Appium device session (android-appium-uiautomator2 or "
                          "ios-appium-xcuitest)")
    return driver


def selector_field(description: str) -> Any:
    """A ``nodeSelector``-typed parameter: an object in schemas, hidden from model descriptors."""
    return Field(..., description=description, json_schema_extra={"hidden_from_llm": True})


def validate_selector(value: Any, owner: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{owner} must be a map of selector fields, got {type(value).__name__}")  # noqa: TRY004 - pydantic validators report with ValueError
    parse_selector(value, owner=owner)
    return value


def selector(value: dict[str, Any]) -> NodeSelector:
    return parse_selector(value)


def native_text(node: Node) -> str | None:
    """The element text ``expectedText`` compares with: text, then content description / AX label."""
    for value in (node.text, node.content_desc if node.platform == ANDROID else node.label, node.hint):
        if value is not None:
            return value
    return None


def maestro_match(platform: str, **fields: Any) -> dict[str, Any]:
    """A Maestro-shaped driver match for the session's platform (deprecated by-text tools, mobile_maestro)."""
    clean = {k: v for k, v in fields.items() if v is not None}
    if platform == ANDROID:
        return {"androidMaestro": clean}
    for unsupported in ("clickable", "enabled", "checked"):
        clean.pop(unsupported, None)
    return {"iosMaestro": clean}


@contextlib.contextmanager
def device_errors(ctx: ToolContext, what: str) -> Iterator[None]:
    """Turn a WebDriver error from the device into a one-line tool failure naming the command and the
    automation (the fake driver, for one, implements no ``back``, deep links or ``mobile:`` commands)."""
    try:
        yield
    except ToolFailure:
        raise
    except Exception as exc:
        from selenium.common.exceptions import WebDriverException

        if not isinstance(exc, WebDriverException):
            raise
        drv = appium_driver(ctx)
        first = (getattr(exc, "msg", None) or str(exc) or type(exc).__name__).strip().splitlines()[0]
        raise ToolFailure(f"{what} failed on Appium automation '{drv.automation}': {first}") from None
