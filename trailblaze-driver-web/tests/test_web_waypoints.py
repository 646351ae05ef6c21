"""``assertWaypoint`` and ``trailblaze waypoint locate`` on real Chromium: the waypoint's selectors are
counted by the web driver's own ``nodeSelector`` resolver."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

CART = """\
id: shop/cart
description: The cart page.
web:
  required:
    - selector: {web: {ariaRole: heading, ariaNameRegex: Your cart}}
    - {description: two remove buttons, minCount: 2, selector: {web: {ariaRole: button, ariaNameRegex: Remove}}}
  forbidden:
    - {description: the empty-cart notice, selector: {web: {cssSelector: .empty}}}
"""
HOME = """\
id: shop/home
web:
  required:
    - selector: {web: {ariaRole: heading, ariaNameRegex: Welcome}}
"""
CART_PAGE = "<!doctype html><h1>Your cart</h1><button>Remove</button><button>Remove</button>"
EMPTY_CART = "<!doctype html><h1>Your cart</h1><button>Remove</button><p class='empty'>Nothing here</p>"
HOME_PAGE = "<!doctype html><h1>Welcome</h1>"


def workspace(root: Path) -> Path:
    files = {"trails/config/trailblaze.yaml": "{}\n",
             "trails/config/trailmaps/shop/waypoints/cart.waypoint.yaml": CART,
             "trails/config/trailmaps/shop/waypoints/home.waypoint.yaml": HOME,
             "site/cart.html": CART_PAGE, "site/empty.html": EMPTY_CART, "site/home.html": HOME_PAGE}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_assert_waypoint_passes_on_a_matching_page_and_names_what_failed_on_others(
        tmp_path: Path, web_host: Any, chromium: str) -> None:
    from trailblaze.config import load_workspace
    from trailblaze.testing import finish_session, make_session
    from trailblaze.tools.base import ToolCall
    from trailblaze_driver_web.config import WebDriverConfig
    from trailblaze_driver_web.driver import PlaywrightDriver

    root = workspace(tmp_path)
    session = make_session(web_host, root=root, driver=PlaywrightDriver(WebDriverConfig()),
                           workspace=load_workspace(root, web_host))
    try:
        def call(name: str, **args: Any) -> Any:
            return session.dispatcher.call(ToolCall(name, args), session.context(step_index=0))

        assert call("web_navigate", url=(root / "site" / "cart.html").as_uri()).success
        ok = call("assertWaypoint", waypoint="shop/cart")
        assert ok.success and ok.message == "Waypoint 'shop/cart' matched."
        home = call("assertWaypoint", waypoint="shop/home", timeoutMs=300, pollIntervalMs=100)
        assert not home.success
        assert home.message == ("Waypoint 'shop/home' not matched after 300ms: required {\"web\": {\"ariaRole\": "
                                "\"heading\", \"ariaNameRegex\": \"Welcome\"}} is missing (found 0)")
        assert call("web_navigate", url=(root / "site" / "empty.html").as_uri()).success
        empty = call("assertWaypoint", waypoint="shop/cart", timeoutMs=300)
        assert "required two remove buttons (at least 2) is missing (found 1)" in empty.message
        assert "forbidden the empty-cart notice is present (1)" in empty.message
        unknown = call("assertWaypoint", waypoint="shop/nowhere", timeoutMs=300)
        assert "unknown waypoint 'shop/nowhere'; known: shop/cart, shop/home" in unknown.message
    finally:
        finish_session(session)


HIDDEN_EMPTY = ("<!doctype html><h1>Your cart</h1><button>Remove</button><button>Remove</button>"
                "<p class='empty' style='display:none'>Nothing here</p><p class='empty' aria-hidden='true'>-</p>")
TEMPLATED = """\
id: shop/app
web:
  required:
    - selector: {web: {ariaRole: heading, ariaNameRegex: Your cart}}
  forbidden:
    - selector: {web: {ariaNameRegex: "{{target.appId}} is offline"}}
"""
PHONE_ONLY = """\
id: shop/narrow
web:
  required:
    - selector: {web: {ariaRole: heading, ariaNameRegex: Your cart}}
web-wide:
  route: /wide
"""


def test_waypoint_conditions_as_upstream_counts_them(tmp_path: Path, web_host: Any, chromium: str) -> None:
    """Upstream counts web waypoint conditions on the ARIA snapshot's node tree (``WaypointMatcher.kt``
    ``countMatches`` over the tree ``PlaywrightTrailblazeNodeMapper.kt`` builds): an element a
    ``cssSelector`` finds in the DOM but that is ``display:none`` or ``aria-hidden`` is not on it, so a
    forbidden ``.empty`` does not count. A ``{{target.appId}}`` the session cannot fill fails closed
    (``WaypointMatcher.kt`` lines 45-55), in ``forbidden`` too. A ``web-wide:`` block holding only a
    ``route`` keeps the ``web:`` conditions (``ResolvedWaypoint.kt`` lines 52-54)."""
    from trailblaze.config import load_workspace
    from trailblaze.testing import finish_session, make_session
    from trailblaze.tools.base import ToolCall
    from trailblaze.waypoints import device_classifiers, load_workspace_waypoints, match
    from trailblaze_driver_web.config import WebDriverConfig
    from trailblaze_driver_web.driver import PlaywrightDriver

    root = workspace(tmp_path)
    (root / "site" / "hidden.html").write_text(HIDDEN_EMPTY)
    for name, text in (("app", TEMPLATED), ("narrow", PHONE_ONLY)):
        (root / f"trails/config/trailmaps/shop/waypoints/{name}.waypoint.yaml").write_text(text)
    driver = PlaywrightDriver(WebDriverConfig(classifiers=["web", "wide"]))
    session = make_session(web_host, root=root, driver=driver, workspace=load_workspace(root, web_host))
    try:
        def call(name: str, **args: Any) -> Any:
            return session.dispatcher.call(ToolCall(name, args), session.context(step_index=0))

        assert call("web_navigate", url=(root / "site" / "hidden.html").as_uri()).success
        assert call("assertWaypoint", waypoint="shop/cart", timeoutMs=300).success
        found = load_workspace_waypoints(session.workspace)
        chain = device_classifiers(session.device)
        assert chain == ["web-wide", "web", "wide"]
        app = found.get("shop/app")
        assert app is not None
        refused = match(app, driver, chain)
        assert not refused.matched and refused.unresolved_template
        assert "{{target.appId}}" in refused.explain()
        assert match(app, driver, chain, app_ids=["shop"]).matched
        failed = call("assertWaypoint", waypoint="shop/app", timeoutMs=300)
        assert not failed.success and "{{target.appId}}" in failed.message
        narrow = found.get("shop/narrow")
        assert narrow is not None and narrow.route_for(chain) == "/wide"
        assert match(narrow, driver, chain).matched
        assert call("web_navigate", url=(root / "site" / "home.html").as_uri()).success
        missing = match(narrow, driver, chain)
        assert not missing.matched and len(missing.missing) == 1
    finally:
        finish_session(session)


def test_waypoint_locate_names_the_matching_waypoint(tmp_path: Path, chromium: str) -> None:
    root = workspace(tmp_path)
    done = subprocess.run([sys.executable, "-m", "trailblaze.cli", "waypoint", "locate", "--url",
                           (root / "site" / "home.html").as_uri()], cwd=root, capture_output=True, text=True,
                          timeout=300, check=False, env=dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✓ shop/home" in done.stdout and "matches: shop/home" in done.stdout
    assert "✗ shop/cart  (required" in done.stdout
    # Nothing matching is an answer, not a failure (upstream's WaypointLocateCommand.kt: SUCCESS).
    (root / "site" / "nowhere.html").write_text("<!doctype html><p>elsewhere</p>")
    nowhere = subprocess.run([sys.executable, "-m", "trailblaze.cli", "waypoint", "locate", "--url",
                              (root / "site" / "nowhere.html").as_uri()], cwd=root, capture_output=True, text=True,
                             timeout=300, check=False, env=dict(os.environ))
    assert nowhere.returncode == 0 and "matches: none" in nowhere.stdout, nowhere.stdout + nowhere.stderr


DOC = Path(__file__).resolve().parents[2] / "docs" / "waypoints.md"
DOC_COMMANDS = ["trailblaze waypoint list", "trailblaze waypoint validate",
                "trailblaze waypoint locate --url http://127.0.0.1:8000/cart.html"]


def test_the_documented_waypoint_and_commands_work(tmp_path: Path, chromium: str) -> None:
    import functools
    import http.server
    import re
    import threading

    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"## The `waypoint` command\n\n```\n(.*?)```", text, re.S)
    assert block is not None and block.group(1).splitlines() == DOC_COMMANDS
    example = re.search(r"```yaml\n(# trails/config/trailmaps/shop/waypoints/cart\.waypoint\.yaml\n.*?)```", text, re.S)
    assert example is not None
    (tmp_path / "trails" / "config" / "trailmaps" / "shop" / "waypoints").mkdir(parents=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text("{}\n")
    (tmp_path / "trails" / "config" / "trailmaps" / "shop" / "waypoints" / "cart.waypoint.yaml").write_text(
        example.group(1))
    site = tmp_path / "site"
    site.mkdir()
    (site / "cart.html").write_text(CART_PAGE)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        outputs = []
        for command in DOC_COMMANDS:
            argv = command.replace("127.0.0.1:8000", f"127.0.0.1:{server.server_address[1]}").split()[1:]
            done = subprocess.run([sys.executable, "-m", "trailblaze.cli", *argv], cwd=tmp_path, capture_output=True,
                                  text=True, timeout=300, check=False, env=dict(os.environ))
            assert done.returncode == 0, command + "\n" + done.stdout + done.stderr
            outputs.append(done.stdout)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    assert "shop/cart  [android, web]  The cart page. Distinct from shop/checkout." in outputs[0]
    assert "1 waypoint(s) valid, 0 error(s)" in outputs[1]
    assert "matches: shop/cart" in outputs[2]
