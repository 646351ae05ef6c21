"""A URL names the web driver: with every in-repo driver installed (web, Android, iOS) and no
``defaults.driver``, ``snapshot``, ``session start``, ``step`` and ``verify`` given ``--url`` start the
driver that takes URLs (``Driver.takes_url``) instead of asking which device."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import shop_workspace
from test_agent_web_shop import llm_section
from trailblaze.driver import DriverRegistry
from trailblaze.errors import BadInputError
from trailblaze.listings.screens import choose_driver
from trailblaze.testing import CliProcess, new_host
from trailblaze.testing.llm import RecordedRequest, Reply, ScriptedLlmServer, call, done

IN_REPO = {"playwright-native", "android-appium-uiautomator2", "ios-appium-xcuitest"}


def installed_drivers() -> DriverRegistry:
    host = new_host(load_entrypoints=True)
    registry = DriverRegistry()
    host.register_drivers(registry)
    assert IN_REPO <= set(registry.keys()), "the test venv has every in-repo driver"
    return registry


def test_the_driver_that_takes_a_url_is_chosen_and_nothing_else_guesses() -> None:
    drivers = installed_drivers()
    for url in ("/", "/cart.html", "cart.html", "http://127.0.0.1:8000/", "https://staging.example.com/login",
                "file:///tmp/page.html"):
        assert choose_driver(drivers, url).key == "playwright-native", url
    # A deep link is no browser's: with several screens installed the user is still asked.
    for url in ("myapp://cart", None):
        with pytest.raises(BadInputError) as err:
            choose_driver(drivers, url)
        assert "which device? several drivers are installed" in err.value.message
        assert err.value.hint and "android-appium-uiautomator2" in err.value.hint
    assert [cls.key for cls in drivers.taking_url("/")] == ["playwright-native"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """The example shop's workspace without its ``defaults.driver``: nothing but the URL picks a driver."""
    root = shop_workspace(tmp_path / "shop")
    config = root / "trails" / "config" / "trailblaze.yaml"
    text = config.read_text()
    assert "  driver: playwright-native\n" in text
    config.write_text(text.replace("  driver: playwright-native\n", "", 1))
    return root


@pytest.fixture
def session_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="tbu-"))  # short: unix socket paths are limited to 108 bytes
    yield path
    for child in path.iterdir():
        child.unlink()
    path.rmdir()


def tb(ws: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    return CliProcess(list(args), cwd=ws, env=env).finish(timeout=300)


def test_snapshot_and_session_start_open_a_browser_for_a_url(ws: Path, session_dir: Path) -> None:
    code, out = tb(ws, "snapshot")
    assert code == 3 and "which device? several drivers are installed" in out, out
    code, out = tb(ws, "snapshot", "--url", "/")
    assert code == 0 and out.startswith("# playwright-native") and 'button "Sign in"' in out, out

    env = {"TRAILBLAZE_SESSION_DIR": str(session_dir)}
    code, out = tb(ws, "session", "start", "--name", "u", "--url", "/", env=env)
    try:
        assert code == 0 and out.startswith("Session u started: playwright-native at /"), out
        code, out = tb(ws, "snapshot", "--session", "u", env=env)
        assert code == 0 and 'button "Sign in"' in out, out
    finally:
        code, out = tb(ws, "session", "stop", "--name", "u", env=env)
    assert code == 0, out


class ChecksTheFrontPage:
    """The model, scripted: it finds the shop's sign-in form on its first screen (the URL was opened
    before the step) and checks the button is there."""

    def __init__(self) -> None:
        self.first_screens: list[str] = []

    def __call__(self, request: RecordedRequest) -> Reply:
        if not request.tool_results():
            self.first_screens.append(request.last_user_text())
            return call("web_verifyTextVisible", text="Sign in")
        return done("the sign-in form is shown")


def test_step_and_verify_open_the_url_on_the_browser_first(ws: Path) -> None:
    model = ChecksTheFrontPage()
    with ScriptedLlmServer(model) as server:
        config = ws / "trails" / "config" / "trailblaze.yaml"
        config.write_text(config.read_text() + llm_section(server))
        code, out = tb(ws, "verify", "The sign-in form is shown", "--url", "/")
        assert code == 0, out
        code, out = tb(ws, "step", "Look at the sign-in form", "--url", "/", "--save", "trails/look.trail.yaml")
        assert code == 0, out
    assert len(model.first_screens) == 2
    for screen in model.first_screens:
        assert 'textbox "Email"' in screen, screen[:2000]
    saved = (ws / "trails" / "look.trail.yaml").read_text()
    assert "web_verifyTextVisible" in saved, saved
    code, out = tb(ws, "step", "Look", "--url", "/", "--session", "nobody")
    assert code == 3 and "--url cannot be used with --session" in out, out
