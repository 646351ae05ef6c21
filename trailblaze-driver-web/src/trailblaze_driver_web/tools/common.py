"""What the web tools share: the base classes, the hidden ``nodeSelector`` field, and turning
Playwright errors into step failures that say what was expected and what the page had."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pydantic import BeforeValidator, Field, field_validator
from trailblaze import Tool, ToolFailure, ToolResult, parse_selector

from ..key import DRIVER_KEY
from ..targets import Target, resolve_target, what_the_page_has

if TYPE_CHECKING:
    from playwright.sync_api import Locator
    from trailblaze import ToolContext

    from ..driver import PlaywrightDriver

T = TypeVar("T")
WEB_DRIVERS = frozenset({DRIVER_KEY})
WEB_PLATFORMS = frozenset({"web"})

TIMEOUT_DESCRIPTION = "How long to wait, in milliseconds (default: the driver's timeout_ms)."


def timeout_field() -> Any:
    """The per-call wait of every tool that waits: one slow element does not need a slower whole run."""
    return Field(None, ge=0, description=TIMEOUT_DESCRIPTION)


REF_DESCRIPTION = ("The element: a ref from the snapshot (e.g. 'e12'), an ARIA descriptor (e.g. 'button \"Submit\"') "
                   "or 'css=<selector>'.")


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


CASE_INSENSITIVE = BeforeValidator(_upper)
"""For enum parameters (``Annotated[Literal["GOTO", ...], CASE_INSENSITIVE]``): upstream reads them with a
``CaseInsensitiveEnumSerializer``, so recordings may say ``action: goto``."""


FRAME_DESCRIPTION = ("The iframe to look in: its descriptor (e.g. 'iframe \"Payment\"') or 'css=<selector>'. "
                     "Omit to look in the page and all its frames.")


def frame_field() -> Any:
    """Scopes a call to one frame; only needed when two frames hold the same element (see ``frames``)."""
    return Field(None, description=FRAME_DESCRIPTION)


def node_selector_field() -> Any:
    """The recorded selector: valid in recordings and scripts, hidden from the model's tool descriptors."""
    return Field(None, description="Recorded element selector (web: ariaRole, ariaNameRegex, cssSelector, "
                                   "dataTestId, nthIndex; relative: childOf, below, ...). Used before 'ref' at replay.",
                 json_schema_extra={"hidden_from_llm": True})


class WebTool(Tool):
    drivers: ClassVar[frozenset[str] | None] = WEB_DRIVERS
    platforms: ClassVar[frozenset[str] | None] = WEB_PLATFORMS
    toolsets: ClassVar[tuple[str, ...]] = ("web_core",)


class TargetedTool(WebTool):
    """A web tool acting on one element given by ``ref`` and/or the hidden ``nodeSelector``."""

    ref: str | None = Field(None, description=REF_DESCRIPTION)
    nodeSelector: dict[str, Any] | None = node_selector_field()
    frame: str | None = frame_field()
    timeoutMs: int | None = timeout_field()

    @field_validator("nodeSelector")
    @classmethod
    def _selector(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            parse_selector(value)
        return value

    def target(self, drv: PlaywrightDriver, timeout_ms: int | None = None, *,
               replaying: bool = False) -> Target:
        return resolve_target(drv, self.ref, web_selector_or_none(self.nodeSelector, self.ref), tool=self.name,
                              timeout_ms=self.timeoutMs if timeout_ms is None else timeout_ms,
                              replaying=replaying, frame=self.frame)


def web_selector_or_none(node_selector: dict[str, Any] | None, ref: str | None) -> dict[str, Any] | None:
    """The recorded selector to resolve, or None to go by ``ref``.

    Upstream (``PlaywrightExecutableTool.nodeSelectorToReadinessLocator``) builds no locator from a
    selector without a ``web:`` part — a recording made on another driver, or one that only says
    ``index: 2`` — and then uses the ``ref`` recorded next to it. Without a ``ref`` there is nothing to
    fall back to, and the selector's own error (which driver it is for) is the useful message.
    """
    if node_selector is None or not (ref and ref.strip()):
        return node_selector
    return None if parse_selector(node_selector).web is None else node_selector


def driver_for(ctx: ToolContext) -> PlaywrightDriver:
    """The browser a tool call acts on (a readable failure when the session runs another driver).

    The driver's module is imported here, not when the tools load: registering the tools (``check``,
    ``schema``, listings) then needs no browser code, and a session that calls a tool has it loaded."""
    from ..driver import web_driver

    return web_driver(ctx.driver)


def act(ctx: ToolContext, tool: TargetedTool, verb: str, action: Callable[[Locator], Any],
        *, timeout_ms: int | None = None, done: str | None = None) -> ToolResult:
    """Resolve the target, run ``action`` on it with Playwright's auto-waiting, and explain failures. A
    window the action opened is the current page when this returns (``PlaywrightDriver.acting``)."""
    drv = driver_for(ctx)
    timeout = timeout_of(drv, tool.timeoutMs if timeout_ms is None else timeout_ms)
    target = tool.target(drv, timeout, replaying=ctx.replaying)
    with default_timeout(drv, timeout), drv.acting(timeout):
        playwright_call(drv, target, tool.name, verb, lambda: action(target.locator), timeout)
    return ToolResult(True, f"{done or verb.capitalize()} {target.description}", recorded_args=target.recorded)


def playwright_call(drv: PlaywrightDriver, target: Target | None, tool: str, verb: str, fn: Callable[[], T],
                    timeout_ms: int) -> T:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        return fn()
    except PlaywrightTimeoutError as exc:
        raise ToolFailure(_explain(drv, target, tool, verb, exc, timeout_ms)) from None
    except PlaywrightError as exc:
        raise ToolFailure(_explain(drv, target, tool, verb, exc, None)) from None


def _explain(drv: PlaywrightDriver, target: Target | None, tool: str, verb: str, exc: Exception,
             timeout_ms: int | None) -> str:
    """``timeout_ms`` is None when Playwright refused at once (a wrong element type, a detached frame):
    saying "within 5000 ms" then would send the reader after a slowness that never happened."""
    message = getattr(exc, "message", None) or str(exc)
    if target is None:
        return f"{tool}: could not {verb}: {first_line(message)}"
    try:
        count = target.locator.count()
    except Exception:  # noqa: BLE001
        count = -1
    within = f" within {timeout_ms} ms" if timeout_ms is not None else ""
    if count == 0:
        scopes = [target.scope] if target.scope is not None else None
        return (f"{tool}: no element matches {target.description}{within}; "
                f"{what_the_page_has(drv, target.role, target.name, scopes=scopes)}")
    reason = call_log_reason(message) or first_line(message)
    return f"{tool}: could not {verb} {target.description}{within}: {reason}"


_NOISE = re.compile(r"^(waiting for|retrying|attempting|scrolling|done scrolling|- )", re.IGNORECASE)


def call_log_reason(message: str) -> str | None:
    """The most telling line of a Playwright call log (``element is not enabled``...)."""
    lines = [ln.strip().lstrip("- ").strip() for ln in message.splitlines()]
    reasons = [ln for ln in lines if ln.startswith(("element is", "element was", "<", "locator resolved"))
               or "intercepts pointer events" in ln or "not an <input>" in ln]
    for ln in reversed(reasons):
        if "intercepts pointer events" in ln or ln.startswith("element"):
            return ln
    return reasons[-1] if reasons else None


def first_line(message: str) -> str:
    for ln in message.splitlines():
        ln = ln.strip()
        if ln and not ln.startswith("="):
            return ln[:300]
    return message[:300]


def timeout_of(drv: PlaywrightDriver, timeout_ms: int | None) -> int:
    return drv.cfg.timeout_ms if timeout_ms is None else timeout_ms


@contextmanager
def default_timeout(drv: PlaywrightDriver, timeout_ms: int) -> Iterator[None]:
    """Playwright's own auto-wait for the length of one call (a tool's ``timeoutMs``), then the driver's."""
    if timeout_ms == drv.cfg.timeout_ms or drv.context is None:
        yield
        return
    drv.context.set_default_timeout(timeout_ms)
    try:
        yield
    finally:
        drv.context.set_default_timeout(drv.cfg.timeout_ms)
