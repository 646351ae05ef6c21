"""``trailblaze snapshot``: print what the agent would see on a browser page or a device screen.

Authors use it to find refs, ARIA descriptors and accessibility ids for hand-written recordings and to
check what a selector will match, without an LLM and without writing a trail. The device is set up
exactly as ``trailblaze run`` sets it up — same driver choice, workspace ``drivers:`` settings,
``-o`` overrides, ``-d`` device, managed servers and plugin session hooks (so a plugin that starts the
app under test starts it here too) — which is why this lives in the core and asks the driver contract
(``Driver.snapshot``/``native_snapshot``/``open_url``/``wait_for_text``) rather than any one driver.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..listings.screens import choose_driver, screen_header
from .session import SESSION_ENV
from .session_options import session_options, session_values
from .shared import CONTEXT_SETTINGS, handle_errors

if TYPE_CHECKING:
    from ..contract.device import DeviceDriver
    from ..plugins import PluginHost
    from ..runner.lifecycle import SessionLifecycle


@dataclass
class SnapshotRequest:
    """Everything ``trailblaze snapshot`` was asked for (CLI flags map onto it 1:1)."""

    driver: str | None = None
    device: str | None = None
    driver_options: dict[str, object] = field(default_factory=dict)
    url: str | None = None
    wait_for: str | None = None
    timeout_s: float = 10.0
    detail: frozenset[str] = frozenset()
    raw: bool = False
    screenshot: Path | None = None
    headed: bool = False
    workspace: Path | None = None
    target: str | None = None
    """The target app whose tools the session has (``plan --target``; none: the workspace's default)."""
    setup: list[str] = field(default_factory=list)
    """Setup trails replayed before looking (``--setup``; none: the workspace's ``defaults.setup``)."""
    memory: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)
    """Values the setup trails' ``{{tokens}}`` are filled with (secrets redacted as everywhere)."""


@click.command("snapshot", context_settings=CONTEXT_SETTINGS)
@session_options("snapshot")
@click.option("--url", metavar="URL", help="Open this page or deep link first (web: relative to the configured base_url).")
@click.option("--wait-for", metavar="TEXT", help="Wait until TEXT is on screen before taking the snapshot (exit 1 if it never is).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0), default=10.0, show_default=True,
              metavar="SECONDS", help="How long --wait-for waits.")
@click.option("--bounds", is_flag=True, help="Add each element's box {x,y,w,h} in screen pixels.")
@click.option("--offscreen", is_flag=True, help="Include elements scrolled out of view.")
@click.option("--urls", is_flag=True, help="Show link targets (web).")
@click.option("--all", "all_elements", is_flag=True, help="Everything: offscreen elements, and on devices the "
              "layout containers the compact text folds away.")
@click.option("--raw", "--playwright", "--page-source", "raw", is_flag=True,
              help="Print the platform's own description instead (Playwright's aria snapshot, Appium's page-source XML).")
@click.option("--screenshot", type=click.Path(path_type=Path, dir_okay=False), metavar="FILE",
              help="Also save a PNG screenshot of the screen to FILE.")
@click.option("--session", "session_name", metavar="NAME", envvar=SESSION_ENV,
              help="Look at the live session NAME (trailblaze session start) instead of starting a device.")
@handle_errors
def command(url: str | None, wait_for: str | None, timeout_s: float, bounds: bool, offscreen: bool, urls: bool,
            all_elements: bool, raw: bool, screenshot: Path | None, session_name: str | None,
            **session: Any) -> None:
    """Print what the agent sees: the compact snapshot of a page or device screen, with refs.

    The device starts exactly as in `trailblaze run` (driver choice, the workspace's drivers:
    settings, -o, -d, managed Appium server, plugin hooks) and is stopped afterwards. Use it to find
    refs, ARIA descriptors and resource ids for hand-written recordings. Without --driver/-d, a web
    URL opens a browser; otherwise the workspace's defaults.driver or the only installed driver.

    \b
    Examples:
      trailblaze snapshot --url http://127.0.0.1:8000/ --bounds
      trailblaze snapshot --url /cart --wait-for "Your cart" -o viewport=390x844
      trailblaze snapshot -d android/emulator-5554 --offscreen
      trailblaze snapshot --driver ios-appium-xcuitest --raw > screen.xml
    """
    flags = {"bounds": bounds, "offscreen": offscreen, "urls": urls, "all": all_elements}
    if session_name:
        from ..errors import BadInputError
        from ..live.protocol import request as session_request
        from .session import finish

        given = sorted(f"--{name.replace('_', '-')}" for name, value in
                       {**session, "url": url, "wait_for": wait_for, "raw": raw, "screenshot": screenshot}.items()
                       if value)
        if given:
            raise BadInputError(f"{', '.join(given)} cannot be used with --session (the session's device is "
                                "already started)", hint="open a page with: trailblaze tool web_navigate url=URL "
                                                         "--session NAME")
        finish(session_request(session_name, "snapshot", {"detail": sorted(n for n, on in flags.items() if on)}))
        return
    request = SnapshotRequest(**session_values("snapshot", session), url=url, wait_for=wait_for, timeout_s=timeout_s,
                              detail=frozenset(name for name, on in flags.items() if on), raw=raw,
                              screenshot=screenshot)
    sys.exit(take_snapshot(request))


@contextlib.contextmanager
def open_screen(request: SnapshotRequest, *, host: PluginHost | None = None,
                test_name: str = "snapshot") -> Iterator[SessionLifecycle]:
    """The device started as ``trailblaze run`` would start it, ``request.url`` opened; stopped on exit.

    ``snapshot``, ``waypoint locate`` and ``plan`` look at a screen through it."""
    from ..errors import BadInputError
    from ..runner.lifecycle import SessionFactory
    from ..runner.options import RunOptions
    from ..runner.setup import replay_setups, setup_trails

    options = RunOptions(driver=request.driver, driver_options=dict(request.driver_options), headed=request.headed,
                         memory=dict(request.memory), secrets=dict(request.secrets),
                         logging=False, report=False, save_recording=False, test_name=test_name)
    factory = SessionFactory(options, host=host)
    ws = factory.workspace_for(request.workspace.resolve() if request.workspace else None)
    if ws.error is not None:
        raise ws.error
    device = factory.parse_device(request.device) if request.device else None
    cls = factory.pick_driver(ws.config, device, fallback=None) or choose_driver(factory.drivers, request.url)
    unsupported = sorted(request.detail - set(cls.snapshot_details))
    if unsupported:
        offered = ", ".join(f"--{d}" for d in cls.snapshot_details) or "none"
        raise BadInputError(f"driver '{cls.key}' has no {', '.join('--' + d for d in unsupported)} snapshot detail",
                            hint=f"it offers: {offered}")
    setup = setup_trails(request.setup, ws.config)
    with factory.open(workspace=ws, driver=cls, device=device, target=request.target) as lifecycle:
        assert lifecycle.session.driver is not None
        replay_setups(setup, lifecycle.session)
        if request.url:
            lifecycle.session.driver.open_url(request.url)
        yield lifecycle


def take_snapshot(request: SnapshotRequest, *, host: PluginHost | None = None) -> int:
    """Start the device, optionally open a URL and wait for text, print the snapshot, stop the device.

    Returns the exit code: 0, or 1 when ``--wait-for`` text never appeared (the snapshot is printed
    anyway so the author sees what was there instead)."""
    from ..errors import ExitCode
    from ..session import SessionOutcome
    from ..untrusted import terminal_text

    with open_screen(request, host=host) as lifecycle:
        session = lifecycle.session
        driver = session.driver
        assert driver is not None
        found = True
        if request.wait_for:
            found = driver.wait_for_text(request.wait_for, request.timeout_s)
        # Page and device text: no escape sequence of theirs reaches the terminal.
        if request.raw:
            click.echo(terminal_text(driver.native_snapshot(detail=request.detail)))
        else:
            click.echo(terminal_text(screen_header(driver, session.device)))
            click.echo(terminal_text(driver.snapshot(detail=request.detail)))
        if request.screenshot is not None:
            _save_screenshot(driver, request.screenshot)
        lifecycle.outcome = SessionOutcome.SUCCEEDED if found else SessionOutcome.FAILED
        if not found:
            click.echo(f"trailblaze: '{request.wait_for}' did not appear within {request.timeout_s:g} s "
                       "(the snapshot above is what was on screen)", err=True)
            return int(ExitCode.TRAIL_FAILED)
        return 0


def _save_screenshot(driver: DeviceDriver, path: Path) -> None:
    from ..errors import BadInputError
    from ..files import write_atomic

    png = driver.screenshot()
    if not png:
        raise BadInputError(f"driver '{driver.key}' cannot take screenshots")
    write_atomic(path, png)
    click.echo(f"Screenshot saved to {path}", err=True)
