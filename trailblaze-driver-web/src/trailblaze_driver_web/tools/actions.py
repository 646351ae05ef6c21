"""Web action tools with upstream's names, parameters and flags (reference §4.5, toolset ``web_core``)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal
from urllib.parse import urlparse

from pydantic import Field
from trailblaze import ToolFailure, ToolResult

from .common import CASE_INSENSITIVE, REF_DESCRIPTION, TargetedTool, WebTool, act, driver_for, playwright_call

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page
    from trailblaze import ToolContext

    from ..driver import PlaywrightDriver


class WebNavigate(WebTool):
    """Navigate the browser: open a URL (GOTO), or go BACK or FORWARD in history (RELOAD reloads the page).
    A URL without a scheme is a file next to the trail, else a path on the app's base URL, else a file
    relative to the working directory (see ``navigation_url``)."""

    name: ClassVar[str] = "web_navigate"
    is_core: ClassVar[bool] = True
    is_read_only: ClassVar[bool] = True
    action: Annotated[Literal["GOTO", "BACK", "FORWARD", "RELOAD"], CASE_INSENSITIVE] = Field("GOTO", description="GOTO, BACK, FORWARD or RELOAD.")
    url: str | None = Field(None, description="The URL for GOTO: a full URL (https://..., file://...), a path "
                                              "on the app's base URL, or a relative file path.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        page = drv.page
        if self.action == "GOTO":
            if not self.url:
                raise ToolFailure("web_navigate: GOTO needs a 'url'")
            url = navigation_url(drv, self.url, trail_dir(ctx))
            response = playwright_call(drv, None, self.name, f"open {url}", lambda: page.goto(url), drv.cfg.navigation_timeout_ms)
            if response is not None and response.status >= 400:
                return ToolResult(True, f"Opened {page.url} (HTTP {response.status})", data={"url": page.url,
                                                                                          "status": response.status})
        elif self.action == "BACK":
            playwright_call(drv, None, self.name, "go back", page.go_back, drv.cfg.navigation_timeout_ms)
        elif self.action == "FORWARD":
            playwright_call(drv, None, self.name, "go forward", page.go_forward, drv.cfg.navigation_timeout_ms)
        else:
            playwright_call(drv, None, self.name, "reload", page.reload, drv.cfg.navigation_timeout_ms)
        return ToolResult(True, f"{self.action.capitalize()}: now at {page.url}", data={"url": page.url})


def trail_dir(ctx: ToolContext) -> Path | None:
    """The directory of the trail file this session runs, when it runs one."""
    path = getattr(ctx.session.trail, "path", None)
    return Path(path).resolve().parent if path else None


def navigation_url(drv: PlaywrightDriver, url: str, base_dir: Path | None) -> str:
    """Where ``web_navigate`` goes. A URL with a scheme is used as is. Without one, as upstream
    (``PlaywrightNativeNavigateTool.resolveUrl``) does: a file that exists relative to the trail's
    directory becomes its ``file://`` URL; then — our addition — a configured base URL takes the path
    (first, for a path starting with ``/``); else it is a file relative to the working directory
    (upstream's fallback, existing or not)."""
    if urlparse(url).scheme:
        return url
    has_base = drv.base_url() is not None
    # "/" or "/cart.html" is a path on the app when there is one ("/" itself always exists as a directory).
    if base_dir is not None and not (has_base and url.startswith("/")):
        beside = base_dir / url
        if beside.exists():
            return beside.resolve().as_uri()
    if has_base:
        return drv.resolve_url(url)
    return Path(url).resolve().as_uri()


class WebClick(TargetedTool):
    """Click an element (waits until it is visible, stable and enabled)."""

    name: ClassVar[str] = "web_click"
    is_core: ClassVar[bool] = True

    def execute(self, ctx: ToolContext) -> ToolResult:
        return act(ctx, self, "click", lambda loc: loc.click(), done="Clicked")


class WebType(TargetedTool):
    """Type text into an input. Clears it first unless clearFirst is false. Without a ref, types into the
    focused element."""

    name: ClassVar[str] = "web_type"
    is_core: ClassVar[bool] = True
    text: str = Field(..., description="The text to type.")
    clearFirst: bool = Field(True, description="Replace the current value (default) instead of appending.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        if self.ref is None and self.nodeSelector is None:
            self.ref = "css=:focus"
        secrets = ctx.session.memory.secret_values()
        holds_secret = any(secret and secret in self.text for secret in secrets)

        def type_into(loc: Locator) -> None:
            self._type(loc)
            if holds_secret:  # typed through a {{secret}} token: keep the field out of screenshots
                driver_for(ctx).mask_secret(loc)

        return act(ctx, self, "type into", type_into, done=f"Typed {len(self.text)} characters into")

    def _type(self, loc: Locator) -> None:
        """The file-input check costs three round trips to the browser (resolve, evaluate, release), so
        ``fill`` - which Playwright refuses at once on a file input - asks only after it failed."""
        if self.clearFirst:
            from playwright.sync_api import Error as PlaywrightError
            from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

            try:
                loc.fill(self.text)
            except PlaywrightTimeoutError:
                raise  # no element to fill (a file input is refused at once, never after a wait)
            except PlaywrightError:
                refuse_file_input(loc, self.name, timeout_ms=FILE_INPUT_CHECK_MS)
                raise
        else:
            refuse_file_input(loc, self.name)
            loc.focus()
            loc.press("End")
            loc.press_sequentially(self.text)


FILE_INPUT_CHECK_MS = 1000


def refuse_file_input(loc: Locator, tool: str, *, timeout_ms: float | None = None) -> None:
    """A file input cannot take typed text; Playwright's own refusal reads like a timeout. With
    ``timeout_ms``, an element that cannot be asked in time is taken for no file input."""
    from playwright.sync_api import Error as PlaywrightError

    script = "el => el instanceof HTMLInputElement && el.type === 'file'"
    try:
        is_file = loc.evaluate(script, timeout=timeout_ms) if timeout_ms is not None else loc.evaluate(script)
    except PlaywrightError:
        if timeout_ms is None:
            raise
        return
    if is_file:
        raise ToolFailure(f"{tool}: the element is a file input (<input type=file>), which takes files, not "
                          "typed text: use web_uploadFile with the file's path")


class WebHover(TargetedTool):
    """Move the mouse over an element (menus, tooltips)."""

    name: ClassVar[str] = "web_hover"

    def execute(self, ctx: ToolContext) -> ToolResult:
        return act(ctx, self, "hover over", lambda loc: loc.hover(), done="Hovered over")


class WebPressKey(WebTool):
    """Press a key or chord on the focused element: Enter, Tab, Escape, ArrowDown, Control+A, ..."""

    name: ClassVar[str] = "web_pressKey"
    is_core: ClassVar[bool] = True
    key: str = Field(..., description="Key name as Playwright spells it: Enter, Tab, Escape, Control+A, ...")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        with drv.acting():
            playwright_call(drv, None, self.name, f"press {self.key}", lambda: drv.page.keyboard.press(self.key),
                            drv.cfg.timeout_ms)
        return ToolResult(True, f"Pressed {self.key}")


class WebSelectOption(TargetedTool):
    """Select options of a <select> by value or visible label."""

    name: ClassVar[str] = "web_selectOption"
    is_core: ClassVar[bool] = True
    values: list[str] = Field(..., description="Values or labels of the options to select.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        return act(ctx, self, "select options in", lambda loc: loc.select_option(self.values),
                   done=f"Selected {', '.join(json.dumps(v, ensure_ascii=False) for v in self.values)} in")


class WebScroll(TargetedTool):
    """Scroll the page, or the scrollable element given by ref, in a direction (amount in pixels; default
    500, as upstream's ``PlaywrightNativeScrollTool``). A ref that does not scroll itself is scrolled into
    view instead."""

    name: ClassVar[str] = "web_scroll"
    is_core: ClassVar[bool] = True
    is_read_only: ClassVar[bool] = True
    ref: str | None = Field(None, description=REF_DESCRIPTION + " Omit to scroll the page.")
    direction: Annotated[Literal["UP", "DOWN", "LEFT", "RIGHT"], CASE_INSENSITIVE] = Field("DOWN", description="UP, DOWN, LEFT or RIGHT.")
    amount: int = Field(500, ge=0, description="Pixels to scroll.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        vertical = self.direction in ("UP", "DOWN")
        amount = self.amount
        sign = -1 if self.direction in ("UP", "LEFT") else 1
        dx, dy = (0, sign * amount) if vertical else (sign * amount, 0)
        if self.ref is None and self.nodeSelector is None:
            drv.page.mouse.wheel(dx, dy)
            drv.page.evaluate("([dx, dy]) => new Promise(r => requestAnimationFrame(() => r(null)))", [dx, dy])
            pos = drv.page.evaluate("() => [window.scrollX, window.scrollY]")
            return ToolResult(True, f"Scrolled the page {self.direction.lower()} by {amount}px (now at {pos[0]},{pos[1]})")
        js = """(el, [dx, dy]) => {
            const scrolls = el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1;
            if (scrolls) { el.scrollBy(dx, dy); return 'scrolled'; }
            el.scrollIntoView({block: 'center', inline: 'center'}); return 'into view';
        }"""
        out: dict[str, Any] = {}

        def run(loc: Locator) -> None:
            out["how"] = loc.evaluate(js, [dx, dy])

        result = act(ctx, self, "scroll", run)
        target = (result.message or "").split(" ", 1)[-1]
        result.message = f"Scrolled {target} into view" if out.get("how") == "into view" else \
            f"Scrolled {target} {self.direction.lower()} by {amount}px"
        return result


def wait_seconds(page: Page, seconds: float) -> None:
    """Wait ``seconds`` on the page, in slices of at most half a second."""
    deadline = time.monotonic() + max(0.0, seconds)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        page.wait_for_timeout(min(left, 0.5) * 1000)


class WebWait(WebTool):
    """Wait a fixed number of seconds. Prefer verifications, which wait for what you expect."""

    name: ClassVar[str] = "web_wait"
    is_read_only: ClassVar[bool] = True
    seconds: float = Field(1.0, ge=0, le=300, description="Seconds to wait.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        wait_seconds(drv.page, self.seconds)
        return ToolResult(True, f"Waited {self.seconds:g} s")


class WebWaitForUrl(WebTool):
    """Wait until the page URL matches a regular expression."""

    name: ClassVar[str] = "web_waitForUrl"
    is_read_only: ClassVar[bool] = True
    pattern: str = Field(..., description="Regular expression the URL must match (searched, not anchored).")
    timeoutMs: int | None = Field(None, ge=0, description="How long to wait (default: the navigation timeout).")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        try:
            regex = re.compile(self.pattern)
        except re.error as exc:
            raise ToolFailure(f"web_waitForUrl: pattern '{self.pattern}' is not a valid regular expression: {exc}") from None
        timeout = drv.cfg.navigation_timeout_ms if self.timeoutMs is None else self.timeoutMs
        from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

        try:
            drv.page.wait_for_url(regex, timeout=timeout)
        except PlaywrightTimeoutError:
            raise ToolFailure(f"web_waitForUrl: expected the URL to match /{self.pattern}/ within {timeout} ms; "
                              f"the page is at {drv.page.url}") from None
        return ToolResult(True, f"URL {drv.page.url} matches /{self.pattern}/", data={"url": drv.page.url})


class WebCurrentUrl(WebTool):
    """Return the current page URL."""

    name: ClassVar[str] = "web_currentUrl"
    is_read_only: ClassVar[bool] = True

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        return ToolResult(True, drv.page.url, data={"url": drv.page.url})


class WebSnapshot(WebTool):
    """Save a named snapshot of the page (screenshot and element tree) and return the tree."""

    name: ClassVar[str] = "web_snapshot"
    is_read_only: ClassVar[bool] = True
    screenName: str = Field(..., description="A name for this screen, e.g. 'checkout-form'.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        text = drv.snapshot(detail=drv.pop_requested_detail())
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.screenName).strip("_") or "screen"
        files: dict[str, str] = {}
        if drv.session is not None:
            drv.session.log.write_file(f"snapshot_{slug}.txt", text.encode("utf-8"))
            files["tree"] = f"snapshot_{slug}.txt"
            shot = drv.save_screenshot(f"snapshot_{slug}", step_index=ctx.step_index, label=self.screenName)
            if shot:
                files["screenshot"] = shot
        return ToolResult(True, text, data={"screenName": self.screenName, "url": drv.page.url, **files})


class WebRequestDetails(WebTool):
    """Ask for a richer next snapshot: element bounds, CSS selectors, offscreen or occluded elements."""

    name: ClassVar[str] = "web_requestDetails"
    is_recordable: ClassVar[bool] = False
    include: list[Literal["BOUNDS", "CSS_SELECTORS", "OFFSCREEN_ELEMENTS", "OCCLUDED_ELEMENTS"]] = Field(
        ..., description="What to add: BOUNDS, CSS_SELECTORS, OFFSCREEN_ELEMENTS, OCCLUDED_ELEMENTS.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        mapping = {"BOUNDS": "bounds", "OFFSCREEN_ELEMENTS": "offscreen", "OCCLUDED_ELEMENTS": "offscreen",
                   "CSS_SELECTORS": "urls"}
        drv.requested_detail = frozenset(mapping[i] for i in self.include)
        return ToolResult(True, f"The next snapshot includes {', '.join(self.include)}")


class WebResize(WebTool):
    """Resize the browser viewport."""

    name: ClassVar[str] = "web_resize"
    width: int = Field(..., ge=100, le=10_000, description="Viewport width in CSS pixels.")
    height: int = Field(..., ge=100, le=10_000, description="Viewport height in CSS pixels.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        drv.page.set_viewport_size({"width": self.width, "height": self.height})
        ctx.session.device.width, ctx.session.device.height = self.width, self.height
        return ToolResult(True, f"Viewport is now {self.width}x{self.height}")


class WebApplyCookies(WebTool):
    """Add cookies to the browser context (a JSON list of Playwright cookie objects)."""

    name: ClassVar[str] = "web_applyCookies"
    cookiesJson: str = Field(..., description='JSON list of cookies: [{"name", "value", "url" or "domain"+"path"}].')

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        try:
            cookies = json.loads(self.cookiesJson)
        except ValueError as exc:
            raise ToolFailure(f"web_applyCookies: cookiesJson is not JSON: {exc}") from None
        if isinstance(cookies, dict):
            cookies = [cookies]
        assert drv.context is not None
        playwright_call(drv, None, self.name, "add cookies", lambda: drv.context.add_cookies(cookies),  # type: ignore[union-attr]
                        drv.cfg.timeout_ms)
        return ToolResult(True, f"Added {len(cookies)} cookie(s)")


class WebGetStorageState(WebTool):
    """Return the context's storage state (cookies and local storage) as JSON."""

    name: ClassVar[str] = "web_getStorageState"

    def execute(self, ctx: ToolContext) -> ToolResult:
        drv = driver_for(ctx)
        assert drv.context is not None
        state = drv.context.storage_state()
        return ToolResult(True, json.dumps(state), data=state)


class WebFillSecret(TargetedTool):
    """Fill an input with a secret (a password). The value never appears in logs, reports or traces."""

    name: ClassVar[str] = "web_fillSecret"
    is_core: ClassVar[bool] = True
    ref: str = Field(..., description=REF_DESCRIPTION)
    value: str = Field(..., description="The secret, usually a memory token like {{password}}.",
                       json_schema_extra={"sensitive": True})

    def execute(self, ctx: ToolContext) -> ToolResult:
        # Register the value as a secret before anything can log it: the tool log written after this call,
        # console messages, error texts and the trace are all redacted through the session memory.
        memory = ctx.session.memory
        if self.value and self.value not in memory.secret_values():
            memory.remember(f"web_fillSecret.{len(memory.sensitive_keys) + 1}", self.value, sensitive=True)
        drv = driver_for(ctx)

        def fill(loc: Locator) -> None:
            loc.fill(self.value)
            drv.mask_secret(loc)

        return act(ctx, self, "fill a secret into", fill, done="Filled a secret into")
