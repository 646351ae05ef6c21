"""``trailblaze snapshot --url URL``: print the compact page snapshot an agent would see (no AI involved).

Authors use it to find refs and ARIA descriptors for hand-written recordings, and to check what a
selector will match. The browser is configured like a run: the workspace's
``drivers.playwright-native`` settings, then ``-o KEY=VALUE``.
"""

from __future__ import annotations

from pathlib import Path

import click

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _handle_errors(fn):  # type: ignore[no-untyped-def]
    try:
        from trailblaze.cli import handle_errors
    except ImportError:  # pragma: no cover - an older core
        return fn
    return handle_errors(fn)


def _driver_options(values: tuple[str, ...]) -> dict[str, object]:
    from trailblaze.cli import _parse_driver_options

    return _parse_driver_options(values)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.option("--url", required=True, help="Page to open (absolute, or relative to the configured base_url).")
@click.option("--bounds", is_flag=True, help="Add each element's box {x,y,w,h} (viewport pixels).")
@click.option("--offscreen", is_flag=True, help="Include elements scrolled out of the viewport.")
@click.option("--urls", is_flag=True, help="Show link targets.")
@click.option("--playwright", "raw", is_flag=True, help="Print Playwright's own aria snapshot (AI mode) instead.")
@click.option("--wait-for", metavar="TEXT", help="Wait until TEXT is visible before taking the snapshot.")
@click.option("--viewport", metavar="WxH", help="Viewport size, e.g. 390x844.")
@click.option("-o", "--driver-option", "driver_options", multiple=True, metavar="KEY=VALUE",
              help="Web driver setting, e.g. -o connect=ws://127.0.0.1:3000/ (repeatable).")
@click.option("--headed", is_flag=True, help="Show the browser window.")
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False),
              help="Workspace whose drivers.playwright-native settings apply (default: found from the current directory).")
@_handle_errors
def snapshot(url: str, bounds: bool, offscreen: bool, urls: bool, raw: bool, wait_for: str | None,
             viewport: str | None, driver_options: tuple[str, ...], headed: bool, workspace: Path | None) -> None:
    """Print the compact snapshot of a web page: refs, ARIA descriptors, state.

    \b
    Examples:
      trailblaze snapshot --url https://example.com
      trailblaze snapshot --url http://127.0.0.1:8000/cart --bounds --offscreen
      trailblaze snapshot --url http://127.0.0.1:8000/ --wait-for "Products"
    """
    from trailblaze.config import find_workspace, load_workspace
    from trailblaze.driver import validate_config
    from trailblaze.errors import BadInputError, ToolFailure

    from .config import WebDriverConfig
    from .driver import DRIVER_KEY, PlaywrightDriver

    root = find_workspace(workspace)
    raw_cfg: dict[str, object] = {}
    if root is not None:
        ws = load_workspace(root)
        raw_cfg.update(ws.driver_settings(DRIVER_KEY))
        raw_cfg.update(ws.driver_settings("PLAYWRIGHT_NATIVE"))
    raw_cfg.update(_driver_options(driver_options))
    if headed:
        raw_cfg["headless"] = False
    if viewport:
        try:
            w, h = (int(p) for p in viewport.lower().split("x"))
        except ValueError:
            raise BadInputError(f"--viewport expects WIDTHxHEIGHT, got '{viewport}'") from None
        raw_cfg["viewport"] = {"width": w, "height": h}
    raw_cfg["trace"] = "off"
    cfg = validate_config(WebDriverConfig, raw_cfg, owner=f"driver '{DRIVER_KEY}'")
    driver = PlaywrightDriver(cfg)
    try:
        driver.launch()
        try:
            target = driver.resolve_url(url)
        except ToolFailure as exc:
            raise BadInputError(str(exc.message)) from None
        from playwright.sync_api import Error as PlaywrightError

        try:
            driver.page.goto(target)
            if wait_for:
                driver.page.get_by_text(wait_for).first.wait_for(state="visible")
        except PlaywrightError as exc:
            from trailblaze.errors import InfrastructureError

            raise InfrastructureError(f"could not open {target}: {exc.message.splitlines()[0]}") from None
        if raw:
            click.echo(driver.page.locator("body").aria_snapshot(mode="ai", boxes=bounds))
            return
        detail = {name for name, on in (("bounds", bounds), ("offscreen", offscreen), ("urls", urls)) if on}
        click.echo(f"# {driver.page.url} — {driver.page.title()}")
        click.echo(driver.snapshot(detail=frozenset(detail)))
    finally:
        driver.stop()
