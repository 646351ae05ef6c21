"""The web driver's parts, each on its own on a real Chromium: the browser session, what the pages report,
screenshots, the trace and the evidence. ``PlaywrightDriver`` holds them; it is a ``Driver`` and nothing
of this distribution sits between."""

from __future__ import annotations

import warnings
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from trailblaze.driver import Driver
from trailblaze.errors import DriverError
from trailblaze.session import Session
from trailblaze.testing import make_session, new_host

from trailblaze_driver_web.screenshots import Screenshots
from trailblaze_driver_web.browser_session import BrowserSession
from trailblaze_driver_web.config import WebDriverConfig
from trailblaze_driver_web.driver import PlaywrightDriver
from trailblaze_driver_web.evidence import CONSOLE_FILE, NETWORK_FILE, WebEvidence
from trailblaze_driver_web.page_events import PageEvents
from trailblaze_driver_web.tabs import close_page
from trailblaze_driver_web.trace import TRACE_FILE, TraceRecorder

pytestmark = pytest.mark.browser


@dataclass(frozen=True)
class Step:
    index: int
    number: int
    kind: str
    text: str | None


def test_the_driver_is_a_driver_with_nothing_of_this_distribution_between() -> None:
    mro = PlaywrightDriver.__mro__
    assert mro[:2] == (PlaywrightDriver, Driver) and mro[-1] is object
    assert [c for c in mro[1:] if c.__module__.startswith("trailblaze_driver_web")] == []


def test_the_former_layers_still_import_with_a_deprecation_warning() -> None:
    from trailblaze_driver_web import artifacts, browser_driver

    for module, name in ((browser_driver, "BrowserDriver"), (artifacts, "ArtifactDriver")):
        with pytest.warns(DeprecationWarning, match="PlaywrightDriver"):
            assert getattr(module, name) is PlaywrightDriver


@pytest.fixture
def browser(chromium: str, shop_server: str) -> Iterator[tuple[BrowserSession, list[Any]]]:
    """A bare ``BrowserSession`` (no driver, no session) and the pages it made current, in order."""
    seen: list[Any] = []
    bs = BrowserSession(WebDriverConfig(base_url=shop_server), seen.append)
    try:
        yield bs, seen
    finally:
        bs.close()


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    s = make_session(new_host(), root=tmp_path, secrets={"password": "hunter2secret"}, start=False)
    try:
        yield s
    finally:
        s.log.close()


def test_browser_session_makes_a_popup_current_and_falls_back_when_it_closes(browser: Any, shop_server: str) -> None:
    bs, seen = browser
    bs.open({"viewport": {"width": 800, "height": 600}})
    bs.open_page()
    first = bs.page
    first.goto(shop_server + "/")
    with first.expect_popup() as popup_info:
        first.evaluate("url => window.open(url)", shop_server + "/products.html")
    popup = popup_info.value
    assert bs.page is popup and popup in seen and first in seen
    close_page(popup)  # (Playwright's popup.close() can wait forever on a popup still loading: below)
    assert bs.page is first  # the page left open becomes current again
    assert bs.lost() is None and bs.description
    bs.close()
    with pytest.raises(DriverError, match="no open page"):
        _ = bs.page


REFRESHING = ("<!DOCTYPE html><title>moving</title>"
              "<meta http-equiv='refresh' content=\"0; URL='/products.html'\"><p>moving on</p>")


@pytest.mark.timeout(180)
def test_a_tab_closed_as_its_navigation_commits_closes(browser: Any, shop_server: str) -> None:
    """Chromium acknowledges the close of a tab whose navigation is committing and then keeps it open
    (crbug.com/536385539); Playwright's ``page.close()`` then waits forever: here it hung on the second
    of these closes. ``close_page`` asks again while the tab is open."""
    bs, _ = browser
    context = bs.open({})
    bs.open_page()
    context.route("**/moving.html", lambda route: route.fulfill(content_type="text/html", body=REFRESHING))
    for attempt in range(10):
        page = context.new_page()
        page.goto(shop_server + "/moving.html")
        try:
            page.evaluate("1")  # (the refresh may replace the document under it)
        except Exception:  # noqa: BLE001
            pass
        close_page(page)
        assert page.is_closed(), attempt
    assert bs.page.url == "about:blank"  # the first page is current again


def test_page_events_listen_once_per_page_and_feed_the_evidence(browser: Any, shop_server: str) -> None:
    bs, _ = browser
    logged: list[tuple[str, dict[str, Any]]] = []
    evidence = WebEvidence()
    events = PageEvents(dialogs="accept", log=lambda kind, payload: logged.append((kind, payload)), evidence=evidence)
    bs.on_page = events.listen_to_page  # the context's page event and the first page's adoption both arrive
    events.listen_to_context(bs.open({}))
    bs.open_page()
    events.listen_to_page(bs.page)  # once more by hand: still one set of listeners
    bs.page.goto(shop_server + "/")
    bs.page.goto(shop_server + "/no-such-page.html")
    bs.page.evaluate("() => { console.error('boom'); return confirm('sure?') }")
    texts = [e["text"] for e in events.console]
    assert texts.count("boom") == 1  # (Chromium adds its own console error for the 404)
    assert [kind for kind, _ in logged].count("WebConsoleLog") == len(texts)
    assert [kind for kind, _ in logged].count("WebDialogLog") == 1
    assert [r["status"] for r in events.failed_requests] == [404]
    assert any(r.url.endswith("/no-such-page.html") for r in events.requests)
    assert evidence.summary() == {"requests": len(evidence.network), "failedRequests": 1,
                                  "consoleErrors": len(texts)}


def test_screenshots_paint_over_secret_fields_and_save_next_to_the_logs(browser: Any, shop_server: str,
                                                                        session: Session) -> None:
    bs, _ = browser
    bs.open({"viewport": {"width": 800, "height": 600}})
    bs.open_page()
    bs.page.goto(shop_server + "/")
    shots = Screenshots(lambda: bs.page, timeout_ms=5000)
    field = bs.page.get_by_role("textbox", name="Email")
    field.fill("hunter2secret")
    plain = shots.take()
    shots.mask_secret(field)
    masked = shots.take()
    assert plain and masked and plain.startswith(b"\x89PNG") and plain != masked
    assert shots.save(session.log, "after", step_index=0, label="after step 1") == "after.jpg"
    session.log.flush()
    assert (session.log_dir / "after.jpg").stat().st_size > 0
    entry = next(e for e in session.log.entries if e["class"].endswith(".TrailblazeSnapshotLog"))
    assert "after.jpg" in str(entry) and "after step 1" in str(entry)


def test_trace_recorder_groups_steps_and_keeps_a_scrubbed_trace(browser: Any, shop_server: str,
                                                                session: Session) -> None:
    bs, _ = browser
    context = bs.open({})
    bs.open_page()
    trace = TraceRecorder(context, keep="on", screenshots=False, title="parts")
    trace.step_started(Step(index=0, number=1, kind="step", text="sign in"))
    bs.page.goto(shop_server + "/")
    bs.page.get_by_role("textbox", name="Email").fill("hunter2secret")
    trace.finish(session, True, None)
    path = session.log_dir / TRACE_FILE
    with zipfile.ZipFile(path) as archive:
        contents = b"".join(archive.read(name) for name in archive.namelist())
    assert b"sign in" in contents and b"hunter2secret" not in contents


def test_trace_recorder_drops_a_passing_trace_when_kept_on_failure_only(browser: Any, session: Session) -> None:
    bs, _ = browser
    trace = TraceRecorder(bs.open({}), keep="retain-on-failure", screenshots=False, title=None)
    trace.finish(session, True, None)
    assert not (session.log_dir / TRACE_FILE).exists()


def test_evidence_is_written_for_a_failure_only_by_default_with_timestamps(session: Session) -> None:
    evidence = WebEvidence()
    evidence.message("error", "boom hunter2secret", "http://x/", None)
    evidence.trail_finished(session, True, "retain-on-failure")
    assert not (session.log_dir / CONSOLE_FILE).exists()
    evidence.trail_finished(session, False, "retain-on-failure")
    line = (session.log_dir / CONSOLE_FILE).read_text()
    assert '"ts": "20' in line and line.rstrip().endswith("}") and "hunter2secret" not in line
    assert (session.log_dir / NETWORK_FILE).read_text() == ""


def test_a_driver_without_a_session_saves_no_screenshot(chromium: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        driver = PlaywrightDriver()
    assert driver.save_screenshot("x") is None and driver.lost() is None and driver.context is None
