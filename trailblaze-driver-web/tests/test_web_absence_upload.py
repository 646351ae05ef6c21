"""Not-visible assertions, uploads, ``web_waitForUrl``, per-call timeouts and a saved storage state on a
page none of the tools were written against (``fixtures/held_out``): each passes, and each failure says
what the page had."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from trailblaze.plugins import PluginHost
from trailblaze.testing import make_session
from trailblaze_driver_web.config import WebDriverConfig
from trailblaze_driver_web.driver import PlaywrightDriver

from .conftest import WebSession

PAGE_DIR = Path(__file__).parent / "fixtures" / "held_out"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def send_head(self) -> Any:
        if self.path.startswith("/claims/"):  # pushState targets: a reload there still gets the page
            self.path = "/index.html"
        return super().send_head()


@pytest.fixture
def held_out_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(PAGE_DIR)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def held_out(web_session: Callable[..., WebSession], held_out_url: str) -> Callable[..., WebSession]:
    """Factory: a session (workspace: the test's tmp_path) on the held-out page."""

    def make(**settings: Any) -> WebSession:
        ws = web_session(base_url=held_out_url, **settings)
        ws.ok("web_navigate", url="/index.html")
        return ws

    return make


def test_text_not_visible_polls_until_it_disappears_and_names_what_stays(held_out: Any) -> None:
    ws = held_out()
    # The spinner is removed 500 ms after load: a one-look check would fail, polling passes.
    ws.ok("web_verifyTextNotVisible", text="Loading claims", timeoutMs=5000)
    message = ws.fails("web_verifyTextNotVisible", text="Always here", timeoutMs=300)
    assert "expected the text \"Always here\" to be gone within 300 ms" in message
    assert "still visible in <p> \"Always here\"" in message


def test_element_not_visible_waits_for_a_hidden_dialog_and_accepts_a_missing_one(held_out: Any) -> None:
    ws = held_out()
    message = ws.fails("web_verifyElementNotVisible", ref='dialog "Cookies"', timeoutMs=200)
    assert 'expected dialog "Cookies" not to be visible within 200 ms' in message
    assert 'still visible: <div role="dialog"> "We use cookies. Dismiss"' in message
    ws.ok("web_click", ref='button "Dismiss"')
    ws.ok("web_verifyElementNotVisible", ref='dialog "Cookies"')  # hidden 400 ms after the click
    ws.ok("web_verifyElementNotVisible", nodeSelector={"web": {"cssSelector": "#spinner"}})  # removed
    ws.ok("web_verifyElementNotVisible", ref="css=.never-on-this-page", timeoutMs=0)


def test_upload_resolves_paths_and_refuses_missing_or_outside_files(held_out: Any, tmp_path: Path,
                                                                     tmp_path_factory: pytest.TempPathFactory,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ws = held_out()
    workspace = tmp_path
    (workspace / "fixtures").mkdir()
    (workspace / "fixtures" / "receipt.pdf").write_bytes(b"%PDF-1.4 receipt")
    (workspace / "fixtures" / "photo.png").write_bytes(b"\x89PNG")
    monkeypatch.chdir(workspace)  # no trail file: relative paths are relative to the working directory
    ws.ok("web_uploadFile", ref='button "Receipt"', paths=["fixtures/receipt.pdf", "fixtures/photo.png"])
    ws.ok("web_verifyValue", ref="css=#chosen", expected="receipt.pdf, photo.png")

    missing = ws.fails("web_uploadFile", ref='button "Receipt"', paths=["fixtures/nope.pdf"])
    assert "'fixtures/nope.pdf' does not exist" in missing and str(workspace / "fixtures" / "nope.pdf") in missing
    outside = tmp_path_factory.mktemp("elsewhere") / "private.txt"
    outside.write_text("private")
    refused = ws.fails("web_uploadFile", ref='button "Receipt"', paths=[str(outside)])
    assert "is outside the workspace" in refused and "upload_dirs" in refused
    no_input = ws.fails("web_uploadFile", ref='heading "No such heading"', paths=["fixtures/receipt.pdf"],
                        timeoutMs=300)
    assert "no element matches heading \"No such heading\" within 300 ms" in no_input
    assert "Submit a claim" in no_input  # what the page has instead


def test_upload_dirs_allow_a_directory_outside_the_workspace(held_out: Any,
                                                            tmp_path_factory: pytest.TempPathFactory) -> None:
    shared = tmp_path_factory.mktemp("shared-fixtures")
    (shared / "scan.pdf").write_bytes(b"%PDF")
    ws = held_out(upload_dirs=[str(shared)])
    ws.ok("web_uploadFile", ref="css=#receipt", paths=[str(shared / "scan.pdf")])
    ws.ok("web_verifyTextVisible", text="scan.pdf", timeoutMs=1000)


def test_typing_into_a_file_input_names_web_upload_file(held_out: Any) -> None:
    ws = held_out()
    message = ws.fails("web_type", ref="css=#receipt", text="/tmp/receipt.pdf")
    assert "file input" in message and "web_uploadFile" in message
    assert "within" not in message  # it did not wait for anything


def test_wait_for_url_passes_after_a_late_navigation_and_fails_naming_the_url(held_out: Any) -> None:
    ws = held_out()
    ws.ok("web_click", ref='button "Send"')
    ws.ok("web_waitForUrl", pattern=r"/claims/\d+/done$", timeoutMs=5000)
    message = ws.fails("web_waitForUrl", pattern="/receipts/", timeoutMs=200)
    assert "expected the URL to match //receipts// within 200 ms; the page is at http://" in message
    assert message.endswith("/claims/42/done")


def test_a_per_call_timeout_bounds_actions_and_verifications(held_out: Any) -> None:
    ws = held_out(timeout_ms=30_000)  # the driver's default would make these failures take 30 s each
    click = ws.fails("web_click", ref='button "Nowhere"', timeoutMs=200)
    assert "within 200 ms" in click and "button elements" in click
    verify = ws.fails("web_verifyTextVisible", text="Never shown", timeoutMs=200)
    assert "within 200 ms" in verify
    value = ws.fails("web_verifyValue", ref="css=#note", type="VALUE", expected="x", timeoutMs=200)
    assert "within 200 ms" in value and 'the page has ""' in value


def test_a_saved_storage_state_starts_the_next_browser_signed_in(held_out: Any, tmp_path: Path) -> None:
    first = held_out()
    first.ok("web_verifyTextVisible", text="Not signed in")
    first.ok("web_evaluate", script="localStorage.setItem('claimant', 'Ada')")
    state = first.ok("web_getStorageState").message
    (tmp_path / "state.json").write_text(state or "")
    first.driver.stop()  # one Playwright per thread: as a later run would, the next browser starts fresh
    second = held_out(storage_state="state.json")  # relative to the workspace
    second.ok("web_verifyTextVisible", text="Claimant: Ada")


def test_a_missing_storage_state_file_is_a_configuration_error(web_host: PluginHost, tmp_path: Path,
                                                               chromium: str) -> None:
    from trailblaze.errors import ConfigError

    driver = PlaywrightDriver(WebDriverConfig.model_validate({"storage_state": "nope.json"}))
    with pytest.raises(ConfigError, match=r"storage_state: .*nope.json does not exist"):
        make_session(web_host, root=tmp_path, driver=driver, session_id="no-state")
    driver.stop()
