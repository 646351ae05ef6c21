"""Finding, launching and connecting to Chromium.

Where ``playwright install chromium`` works, Playwright's own build is used. Where it cannot download
(CI behind a registry-only proxy, distributions), a system Chromium works as well: Playwright drives it
through ``executable_path``. An explicit setting (``browser_path`` or ``TRAILBLAZE_CHROMIUM``) always
wins, because the user asked for that binary. Remote browsers (``connect`` to a Playwright server,
``cdp_url`` to a DevTools endpoint, ``grid_url`` to a Selenium Grid hub: ``grid.py``) need nothing
installed here.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import DriverError

from .config import WebDriverConfig

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

ENV_CHROMIUM = "TRAILBLAZE_CHROMIUM"
HEADLESS_NAMES = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
HEADED_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CONTAINER_ARGS = ("--no-sandbox", "--disable-gpu")
QUIET_ARGS = (
    # No update checks, safe-browsing lists, metrics or component downloads: tests talk to 127.0.0.1
    # only, and a browser that phones home adds latency and noise to every run.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--metrics-recording-only",
    "--no-first-run",
    "--disable-breakpad",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
)

NO_BROWSER_HINT = (
    "install one: `playwright install chromium` (Playwright's build), or on Debian/Ubuntu "
    "`apt-get install chromium-headless-shell` (or `chromium`); `scripts/bootstrap.sh` does this. "
    f"Or point {ENV_CHROMIUM} / drivers.playwright-native.browser_path at a Chromium binary, or use a "
    "remote browser with -o connect=ws://HOST:PORT/"
)


@dataclass(frozen=True)
class BrowserChoice:
    """The Chromium a run will launch: ``path`` None means Playwright's own build."""

    path: str | None
    origin: str

    def describe(self) -> str:
        return f"{self.path or 'Playwright Chromium'} ({self.origin})"


def _playwright_build(playwright: Playwright, headless: bool) -> str | None:
    """Playwright's downloaded Chromium, if ``playwright install chromium`` ran on this machine."""
    try:
        path = playwright.chromium.executable_path
    except Exception:  # noqa: BLE001 - no build for this platform
        return None
    if not path or not Path(path).is_file():
        return None
    if headless:
        # Headless runs use the separate headless-shell build; without it Playwright fails to launch.
        if not any(Path(path).parents[2].glob("chromium_headless_shell-*")):
            return None
    return path


def find_chromium(config: WebDriverConfig, playwright: Playwright | None = None) -> BrowserChoice:
    """Pick the browser binary (see the module docstring for the order); raise ``DriverError`` if none."""
    if config.executable_path:
        path = _existing(config.executable_path)
        if path is None:
            raise DriverError(f"browser_path '{config.executable_path}' is not an executable file",
                              hint=NO_BROWSER_HINT)
        return BrowserChoice(path, "browser_path setting")
    env = os.environ.get(ENV_CHROMIUM, "").strip()
    if env:
        path = _existing(env)
        if path is None:
            raise DriverError(f"{ENV_CHROMIUM}='{env}' is not an executable file", hint=NO_BROWSER_HINT)
        if not (config.headless is False and Path(path).name.startswith("chromium-headless-shell")):
            return BrowserChoice(path, ENV_CHROMIUM)
    if playwright is not None and _playwright_build(playwright, config.headless):
        return BrowserChoice(None, "playwright install")
    for name in (HEADLESS_NAMES if config.headless else HEADED_NAMES):
        found = shutil.which(name)
        if found:
            return BrowserChoice(found, f"{name} on PATH")
    if not config.headless:
        raise DriverError("no Chromium that can show a window was found (headed runs need `chromium`, not "
                          "`chromium-headless-shell`)", hint=NO_BROWSER_HINT)
    raise DriverError("no Chromium browser was found for the web driver", hint=NO_BROWSER_HINT)


def _existing(candidate: str) -> str | None:
    path = Path(candidate).expanduser()
    if path.is_file() and os.access(path, os.X_OK):
        return str(path)
    found = shutil.which(candidate)
    return found


def launch_args(config: WebDriverConfig) -> list[str]:
    args = [*CONTAINER_ARGS, *QUIET_ARGS]
    args.extend(a for a in config.launch_args if a not in args)
    return args


def open_browser(playwright: Playwright, config: WebDriverConfig) -> tuple[Browser, str]:
    """Launch or connect; returns the browser and one line saying which (for logs and errors)."""
    from playwright.sync_api import Error as PlaywrightError

    chromium = playwright.chromium
    if config.connect:
        try:
            options: dict[str, Any] = {"timeout": config.navigation_timeout_ms}
            headers = dict(config.connect_headers)
            if config.connect_launch_options:
                import json

                headers["x-playwright-launch-options"] = json.dumps(config.connect_launch_options)
            if headers:
                options["headers"] = headers
            if config.slow_mo_ms:
                options["slow_mo"] = config.slow_mo_ms
            return chromium.connect(config.connect, **options), f"remote Playwright server {config.connect}"
        except PlaywrightError as exc:
            raise DriverError(f"cannot connect to the Playwright server at {config.connect}: {_first_line(exc)}",
                              hint="is `playwright run-server` running there, with the same Playwright "
                                   "major.minor version as this client?") from None
    if config.grid_url:
        return _open_on_grid(playwright, config)
    if config.cdp_url:
        try:
            options = {"timeout": config.navigation_timeout_ms}
            if config.connect_headers:
                options["headers"] = dict(config.connect_headers)
            return chromium.connect_over_cdp(config.cdp_url, **options), f"Chromium over CDP at {config.cdp_url}"
        except PlaywrightError as exc:
            raise DriverError(f"cannot connect to Chromium over CDP at {config.cdp_url}: {_first_line(exc)}",
                              hint="start Chromium with --remote-debugging-port, or check the URL") from None
    choice = find_chromium(config, playwright)
    kwargs: dict[str, Any] = {"headless": config.headless, "args": launch_args(config),
                              "timeout": config.navigation_timeout_ms}
    if choice.path:
        kwargs["executable_path"] = choice.path
    if config.slow_mo_ms:
        kwargs["slow_mo"] = config.slow_mo_ms
    _check_tmpdir()
    try:
        return chromium.launch(**kwargs), choice.describe()
    except PlaywrightError as exc:
        text = str(getattr(exc, "message", None) or exc)
        hint = TMPDIR_HINT if "mkdtemp" in text else NO_BROWSER_HINT  # the browser is fine: its temp dir is not
        said = launch_stderr(text)
        if said:
            raise DriverError(f"Chromium {choice.describe()} {said}", hint=hint) from None
        raise DriverError(f"Chromium {choice.describe()} failed to launch: {_first_line(exc)}",
                          hint=hint) from None


def _open_on_grid(playwright: Playwright, config: WebDriverConfig) -> tuple[Browser, str]:
    """A session from the Grid hub, driven over its DevTools endpoint; the slot is given back when the
    browser disconnects (closed at the end of the trail or the run, or its node died)."""
    from playwright.sync_api import Error as PlaywrightError

    from .grid import GridHub, new_session, session_capabilities

    assert config.grid_url is not None
    hub = GridHub.parse(config.grid_url, config.connect_headers)
    capabilities = session_capabilities(config.grid_capabilities, launch_args(config), config.headless)
    session = new_session(hub, capabilities, config.grid_queue_timeout_ms / 1000)
    try:
        options: dict[str, Any] = {"timeout": config.navigation_timeout_ms}
        if config.slow_mo_ms:
            options["slow_mo"] = config.slow_mo_ms
        browser = playwright.chromium.connect_over_cdp(session.cdp_url, **options)
    except PlaywrightError as exc:
        session.release()
        raise DriverError(f"cannot reach the Chromium of {session.describe()} at {session.cdp_url}: "
                          f"{_first_line(exc)}", hint="the hub must proxy DevTools (Grid 4, se:cdp)") from None
    except BaseException:
        session.release()
        raise
    browser.once("disconnected", lambda _browser: session.release())
    return browser, session.describe()


TMPDIR_HINT = "set TMPDIR to a writable directory (or unset it): Playwright and Chromium keep their profiles there"


def _check_tmpdir() -> None:
    """Playwright creates the browser's profile and artifacts under ``$TMPDIR``; an unusable one makes
    the launch fail with a message about ``mkdtemp`` that reads like a missing browser."""
    tmp = os.environ.get("TMPDIR")
    if tmp and not (os.path.isdir(tmp) and os.access(tmp, os.W_OK | os.X_OK)):
        raise DriverError(f"TMPDIR={tmp} is not a writable directory", hint=TMPDIR_HINT)


_STDERR_LINE = re.compile(r"^\s*(?:- )?\[pid=\d+\]\[err\] ?(.*)$")
_EXIT_LINE = re.compile(r"<process did exit: exitCode=(\w+), signal=(\w+)>")


def launch_stderr(message: str, lines: int = 5) -> str | None:
    """What a browser that died at launch said: its exit and the tail of its stderr, as Playwright's
    launch log holds them (``[pid=N][err] …`` lines). None when the log has neither."""
    said: list[str] = []
    for line in message.splitlines():
        found = _STDERR_LINE.match(line)
        if found and found.group(1).strip() and found.group(1).strip() not in said:
            said.append(found.group(1).strip())
    exit_match = _EXIT_LINE.search(message)
    if not said and exit_match is None:
        return None
    how = "died at launch"
    if exit_match is not None:
        code, sig = exit_match.groups()
        how = f"exited at launch with code {code}" if sig == "null" else f"was killed at launch by {sig}"
    tail = " | ".join(said[-lines:])
    return how + (f"; its stderr: {tail[-600:]}" if tail else " without writing to stderr")


def _first_line(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip() and not ln.strip().startswith("=")]
    return (lines[0] if lines else type(exc).__name__)[:400]
