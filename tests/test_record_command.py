"""``trailblaze record`` on the example shop in a headed Chromium under Xvfb, driven as a person would: the
test attaches to the recorder's browser over the DevTools protocol and clicks and types with real input
events (sign in, add to cart, name a step in the terminal and one in the page's overlay, open the cart,
check the selected heading with the overlay's "Verify visible" and the total with Alt+Shift+V), then
closes the window. The trail written replays green with ``trailblaze run`` and holds no password."""

from __future__ import annotations

import os
import shlex
import signal
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server_helpers import EMAIL, PASSWORD, TRAILBLAZE, live_tree, server_env, shop_workspace
from trailblaze_driver_web.tabs import close_page
from test_recording_docs import record_line


@pytest.fixture
def display() -> Iterator[str]:
    """A private X server (Xvfb) for the headed browser; stopped afterwards."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.fail("Xvfb is not installed: run scripts/bootstrap.sh (apt-get install xvfb)")
    read, write = os.pipe()
    proc = subprocess.Popen([xvfb, "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as fh:
        number = fh.readline().strip()
    try:
        assert number, "Xvfb did not report a display"
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(10)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(path: Path, text: str, proc: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            raise AssertionError(f"trailblaze record ended early:\n{path.read_text(errors='replace')}")
        time.sleep(0.2)
    raise AssertionError(f"'{text}' never came:\n{path.read_text(errors='replace')}")


def point_and_click(page: Any, locator: Any) -> None:
    """As a person clicks: the pointer comes over the element, a moment passes, then the press. The
    recorder names the element when the pointer arrives; a click that navigates leaves nothing to ask
    afterwards (Playwright's instant move-press-release would be recorded by test id or CSS path)."""
    locator.hover()
    page.wait_for_timeout(1000)
    locator.click()


def test_a_demonstration_in_a_headed_browser_becomes_a_trail_that_replays(tmp_path: Path, display: str) -> None:
    from playwright.sync_api import sync_playwright

    ws = shop_workspace(tmp_path / "shop")
    port = free_port()
    env = {**server_env(), "DISPLAY": display, "SHOP_PASSWORD": PASSWORD}
    log = tmp_path / "record.log"
    with open(log, "wb") as out:
        # docs/recording.md's command, with a DevTools port for the test's "person" to attach to.
        documented = shlex.split(record_line().removeprefix("uv run trailblaze "))
        proc = subprocess.Popen([str(TRAILBLAZE), *documented, "-o", f"launch_args=[--remote-debugging-port={port}]"],
                                cwd=ws, env=env, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for(log, "Recording on playwright-native", proc)
        with sync_playwright() as pw:
            browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
            page = browser.contexts[0].pages[0]
            page.get_by_role("textbox", name="Email").click()
            page.keyboard.type(EMAIL)
            page.get_by_role("textbox", name="Password").click()
            page.keyboard.type(PASSWORD)
            point_and_click(page, page.get_by_role("button", name="Sign in"))
            # The person names the next step in the terminal before doing it.
            assert proc.stdin is not None
            proc.stdin.write(b"Add the trail mug to the cart\n")
            proc.stdin.flush()
            time.sleep(0.5)
            point_and_click(page, page.get_by_role("link", name="View Trail Mug"))
            page.get_by_role("button", name="Add to cart").click()
            page.get_by_text("Added to cart").wait_for()
            # ... and names the next one in the page's overlay (typing there is not recorded).
            overlay = page.locator("trailblaze-recorder")
            overlay.locator("input").click()
            page.keyboard.type("Open the cart")
            overlay.locator("button[name=name]").click()
            overlay.get_by_text("Next step: Open the cart").wait_for()
            point_and_click(page, page.get_by_role("link", name="Cart (1)"))
            page.get_by_role("heading", name="Your cart").click(click_count=3)
            overlay.locator("button[name=verify]").click()  # a check of the selected heading, from the overlay
            wait_for(log, "web_verifyTextVisible", proc, timeout=30)
            total = page.get_by_test_id("cart-total")
            total.click(click_count=3)  # a person selects the total by triple-clicking it
            page.keyboard.press("Alt+Shift+V")
            wait_for(log, '"Total: $12.50"', proc, timeout=30)
            close_page(page)  # (Playwright's page.close() can wait forever on a committing navigation)
        code = proc.wait(120)
    finally:
        if proc.poll() is None:
            for child in [*live_tree(proc.pid), proc.pid]:
                try:
                    os.kill(child, 9)
                except ProcessLookupError:
                    pass
            proc.wait(30)
    output = log.read_text()
    assert code == 0, output
    assert not live_tree(proc.pid)
    saved = (ws / "trails" / "buy-a-mug.trail.yaml").read_text()
    assert PASSWORD not in saved and PASSWORD not in output
    assert "value: '{{password}}'" in saved, saved
    assert "Name the next step" not in saved and "text: Open the cart" not in saved, saved
    for expected in ("web_navigate", "ariaRole: textbox", "ariaNameRegex: Email", "web_fillSecret",
                     "ref: button \"Sign in\"", "ref: link \"View Trail Mug\"", "ref: button \"Add to cart\"",
                     "- step: Type into textbox \"Email\"; fill textbox \"Password\" with {{password}}; click button",
                     "- verify: 'Check that \"Total: $12.50\" is visible'", "title: Buy a mug",
                     "- step: Add the trail mug to the cart\n", "- step: Open the cart\n",
                     "- verify: Check that \"Your cart\" is visible\n"):
        assert expected in saved, (expected, saved)

    replay = subprocess.run([str(TRAILBLAZE), "run", "trails/buy-a-mug.trail.yaml", "--secret-env",
                             "password=SHOP_PASSWORD"], cwd=ws, env=env, capture_output=True, text=True,
                            timeout=300, check=False)
    assert replay.returncode == 0, replay.stdout + replay.stderr + saved
    assert "1 passed" in replay.stdout


def start_recording(ws: Path, log: Path, args: list[str], env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen([str(TRAILBLAZE), "record", *args, "-o", f"launch_args=[--remote-debugging-port={port}]"],
                                cwd=ws, env=env, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT)


def stop_tree(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        for child in [*live_tree(proc.pid), proc.pid]:
            try:
                os.kill(child, 9)
            except ProcessLookupError:
                pass
        proc.wait(30)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
def test_a_signal_mid_recording_saves_what_was_recorded_and_exits_cleanly(
        tmp_path: Path, display: str, signum: signal.Signals) -> None:
    from playwright.sync_api import sync_playwright

    ws = shop_workspace(tmp_path / "shop")
    port = free_port()
    env = {**server_env(), "DISPLAY": display, "SHOP_PASSWORD": PASSWORD}
    log = tmp_path / "record.log"
    proc = start_recording(ws, log, ["/", "--save", "trails/signed-in.trail.yaml", "--secret-env",
                                     "password=SHOP_PASSWORD"], env, port)
    try:
        wait_for(log, "Recording on playwright-native", proc)
        with sync_playwright() as pw:
            browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
            page = browser.contexts[0].pages[0]
            page.get_by_role("textbox", name="Email").click()
            page.keyboard.type(EMAIL)
            page.get_by_role("textbox", name="Password").click()
            page.keyboard.type(PASSWORD)
            point_and_click(page, page.get_by_role("button", name="Sign in"))
            wait_for(log, 'recorded web_click: click button "Sign in"', proc, timeout=60)
            proc.send_signal(signum)  # to the process alone, as `kill -TERM <pid>` does; the window stays open
            code = proc.wait(120)
    finally:
        stop_tree(proc)
    output = log.read_text()
    assert code == 0, output
    assert not live_tree(proc.pid)
    assert "Future exception" not in output and "Traceback" not in output, output
    assert "Created" in output and "signed-in.trail.yaml" in output, output
    saved = (ws / "trails" / "signed-in.trail.yaml").read_text()
    assert saved.startswith("# Recorded with `trailblaze record`; replay it with `trailblaze run`."), saved
    assert PASSWORD not in saved and "value: '{{password}}'" in saved, saved
    assert 'ref: button "Sign in"' in saved, saved


PAGES = Path(__file__).resolve().parents[1] / "trailblaze-driver-web" / "tests" / "recorder_pages"


@pytest.fixture
def pages() -> Iterator[tuple[str, str]]:
    """The recorder's test pages on 127.0.0.1 and, cross-site, on localhost."""
    sys.path.insert(0, str(PAGES))
    from serve_recorder_pages import serve_pages

    with serve_pages() as origins:
        yield origins


def pages_workspace(root: Path) -> Path:
    (root / "trails" / "config").mkdir(parents=True)
    (root / "trails" / "config" / "trailblaze.yaml").write_text(
        "defaults:\n  driver: playwright-native\ndrivers:\n  playwright-native:\n    timeout_ms: 5000\n")
    return root


def record_on(ws: Path, url: str, save: str, env: dict[str, str], act: Any, wait_line: str,
              log: Path, extra: list[str] | None = None,
              started: Any = None) -> tuple[int, str]:
    """``trailblaze record URL --save SAVE`` with ``act(page)`` as the person, then the window closed
    (``started`` is handed the process, for ``act`` to wait on its output)."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc = start_recording(ws, log, [url, "--save", save, *(extra or [])], env, port)
    if started is not None:
        started(proc)
    try:
        wait_for(log, "Recording on playwright-native", proc)
        with sync_playwright() as pw:
            browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
            page = browser.contexts[0].pages[0]
            act(page)
            wait_for(log, wait_line, proc, timeout=60)
            close_page(page)  # (Playwright's page.close() can wait forever on a committing navigation)
        code = proc.wait(120)
    finally:
        stop_tree(proc)
    assert not live_tree(proc.pid)
    return code, log.read_text()


def snapshot_of(ws: Path, url: str, env: dict[str, str], extra: list[str] | None = None) -> str:
    done = subprocess.run([str(TRAILBLAZE), "snapshot", "--url", url, "--driver", "playwright-native",
                           *(extra or [])], cwd=ws,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def recorded_refs(saved: str) -> list[str]:
    from trailblaze import load_yaml

    trail = load_yaml(saved)["trail"]
    return [args["ref"] for item in trail for call in item["recording"]["web"] for args in call.values()
            if isinstance(args, dict) and "ref" in args]


def test_a_labelled_select_and_shadow_dom_are_recorded_as_the_snapshot_shows_them_and_replay(
        tmp_path: Path, display: str, pages: tuple[str, str]) -> None:
    app, _ = pages
    ws = pages_workspace(tmp_path / "ws")
    env = {**server_env(), "DISPLAY": display}

    def act(page: Any) -> None:
        page.locator("select").focus()  # a person picks in a <select> with the keyboard (or its popup)
        page.keyboard.press("ArrowDown")
        point_and_click(page, page.locator("star-rating").get_by_role("button"))
        page.get_by_text("Rated 4 stars").wait_for()
        page.locator("closed-widget").click()
        page.locator("#chart").click(position={"x": 30, "y": 20})
        point_and_click(page, page.get_by_role("textbox", name="Amount"))
        page.keyboard.type("42.00")
        page.keyboard.press("Enter")

    code, output = record_on(ws, f"{app}/expense.html", "trails/expense.trail.yaml", env, act,
                             "recorded web_pressKey", tmp_path / "record.log")
    assert code == 0, output
    saved = (ws / "trails" / "expense.trail.yaml").read_text()
    assert saved.startswith("# Recorded with `trailblaze record`"), saved
    # One warning line each for what cannot be recorded, and a comment in the trail where it happened.
    warnings = [ln for ln in output.splitlines() if ln.startswith("trailblaze record: warning:")]
    assert len(warnings) == 2, output
    assert "closed shadow root of <closed-widget>" in warnings[0] and "<canvas> (#chart)" in warnings[1], warnings
    comments = [ln.strip() for ln in saved.splitlines() if ln.strip().startswith("# trailblaze record could not")]
    assert len(comments) == 2, saved
    refs = recorded_refs(saved)
    assert refs == ['combobox "Category"', 'button "Rate 4 stars"', 'textbox "Amount"'], saved
    snapshot = snapshot_of(ws, f"{app}/expense.html", env)
    for ref in refs:  # what `trailblaze snapshot` prints for that element
        assert f"] {ref}" in snapshot, (ref, snapshot)

    replay = subprocess.run([str(TRAILBLAZE), "run", "trails/expense.trail.yaml"], cwd=ws, env=env,
                            capture_output=True, text=True, timeout=300, check=False)
    assert replay.returncode == 0, replay.stdout + replay.stderr + saved
    assert "1 passed" in replay.stdout


def test_clicks_and_typing_in_frames_are_recorded_with_the_frame(tmp_path: Path, display: str,
                                                                  pages: tuple[str, str]) -> None:
    app, _ = pages
    ws = pages_workspace(tmp_path / "ws")
    env = {**server_env(), "DISPLAY": display}

    def act(page: Any) -> None:
        approval = page.frame_locator('iframe[title="Approval frame"]')
        partner = page.frame_locator('iframe[title="Partner frame"]')
        point_and_click(page, approval.locator("#note"))
        page.keyboard.type("Airport run")
        point_and_click(page, approval.get_by_role("button", name="Approve"))
        point_and_click(page, approval.frame_locator('iframe[title="Comment frame"]').get_by_role("button"))
        point_and_click(page, partner.get_by_role("button", name="Confirm partner"))  # cross-site: its own process
        partner.get_by_text("Partner confirmed").wait_for()

    code, output = record_on(ws, f"{app}/expense.html", "trails/frames.trail.yaml", env, act,
                             'recorded web_click: click button "Confirm partner"', tmp_path / "record.log")
    assert code == 0, output
    from trailblaze import load_yaml

    calls = [(name, args) for item in load_yaml((ws / "trails" / "frames.trail.yaml").read_text())["trail"]
             for call in item["recording"]["web"] for name, args in call.items()]
    assert [(name, args.get("ref"), args.get("frame")) for name, args in calls if name != "web_navigate"] == [
        ("web_type", 'textbox "Approval note"', 'iframe "Approval frame"'),
        ("web_click", 'button "Approve"', 'iframe "Approval frame"'),
        ("web_click", 'button "Add comment"', 'iframe "Comment frame"'),
        ("web_click", 'button "Confirm partner"', 'iframe "Partner frame"'),
    ], calls
    snapshot = snapshot_of(ws, f"{app}/expense.html", env)
    for ref in ('textbox "Approval note"', 'button "Approve"', 'button "Add comment"', 'button "Confirm partner"'):
        assert f"] {ref}" in snapshot, (ref, snapshot)


SIGNED_IN = """\
config:
  id: signed-in
  title: Signed in to the shop
  target: shop
trail:
  - step: Sign in
    recording:
      web:
        - shop_login: {email: approver@example.com, password: secret123}
"""


def test_the_example_account_pages_are_recorded_as_the_snapshot_shows_them_and_replay(tmp_path: Path,
                                                                                     display: str) -> None:
    """The shop's account pages, signed in by a setup trail: a click in the same-origin iframe, typing in
    the cross-origin one and a click in the nested one (approvals.html); a ``<label>``-wrapped
    ``<select>`` and a star in an open shadow root (profile.html). Each recorded descriptor and ``frame:``
    is what ``trailblaze snapshot`` prints for that element, and both trails replay green."""
    ws = shop_workspace(tmp_path / "shop")
    (ws / "trails" / "signed-in.trail.yaml").write_text(SIGNED_IN)
    env = {**server_env(), "DISPLAY": display}
    setup = ["--setup", "trails/signed-in.trail.yaml"]

    def approve(page: Any) -> None:
        approval = page.frame_locator('iframe[title="Approval frame"]')
        partner = page.frame_locator('iframe[title="Partner frame"]')
        point_and_click(page, approval.get_by_role("button", name="Approve"))
        approval.get_by_text("Approved").wait_for()
        point_and_click(page, partner.get_by_role("textbox", name="Reviewer"))
        page.keyboard.type("Ada")
        point_and_click(page, approval.frame_locator('iframe[title="Receipt frame"]')
                        .get_by_role("button", name="Show receipt"))

    def profile(page: Any) -> None:
        page.get_by_role("combobox", name="Category").focus()  # picked with the keyboard, as a person may
        page.keyboard.press("ArrowDown")
        point_and_click(page, page.locator("star-rating").get_by_role("button", name="4 stars"))
        page.get_by_text("Your rating: 4 of 5").wait_for()

    recordings = {
        "approvals": (approve, 'recorded web_click: click button "Show receipt"', [
            ("web_click", 'button "Approve"', 'iframe "Approval frame"'),
            ("web_type", 'textbox "Reviewer"', 'iframe "Partner frame"'),
            ("web_click", 'button "Show receipt"', 'iframe "Receipt frame"'),
        ]),
        "profile": (profile, 'recorded web_click: click button "4 stars"', [
            ("web_selectOption", 'combobox "Category"', None),
            ("web_click", 'button "4 stars"', None),
        ]),
    }
    from trailblaze import load_yaml

    for page_name, (act, last_line, expected) in recordings.items():
        url = f"/account/{page_name}.html"
        save = f"trails/{page_name}.trail.yaml"
        code, output = record_on(ws, url, save, env, act, last_line, tmp_path / f"{page_name}.log",
                                 extra=setup)
        assert code == 0, output
        saved = (ws / save).read_text()
        calls = [(name, args) for item in load_yaml(saved)["trail"] for call in item["recording"]["web"]
                 for name, args in call.items() if isinstance(args, dict) and "ref" in args]
        assert [(name, args["ref"], args.get("frame")) for name, args in calls] == expected, saved
        snapshot = snapshot_of(ws, url, env, extra=setup)
        for _, ref, frame in expected:  # what `trailblaze snapshot` prints for that element and its iframe
            assert f"] {ref}" in snapshot, (ref, snapshot)
            if frame is not None:
                assert f"] {frame}" in snapshot, (frame, snapshot)
        replay = subprocess.run([str(TRAILBLAZE), "run", save], cwd=ws, env=env, capture_output=True,
                                text=True, timeout=300, check=False)
        assert replay.returncode == 0, replay.stdout + replay.stderr + saved
        assert "1 passed" in replay.stdout


def test_what_the_person_does_in_a_new_tab_and_a_popup_is_recorded_with_the_switches_and_replays(
        tmp_path: Path, display: str) -> None:
    """Every tab is recorded: a ``target=_blank`` link's tab (a check there, then the person closes it) and
    a ``window.open`` popup (a message typed and sent, a check, then back to the first tab, leaving the
    popup open). The trail switches where the person did (``web_switchTab`` into each new tab,
    ``web_closeTab`` for the closed one, ``web_switchTab {index: 0}`` back), with no warning, and
    replays green."""
    ws = shop_workspace(tmp_path / "shop")
    (ws / "trails" / "signed-in.trail.yaml").write_text(SIGNED_IN)
    env = {**server_env(), "DISPLAY": display}

    def act(page: Any) -> None:
        with page.context.expect_page() as opened:
            point_and_click(page, page.get_by_role("link", name="Expense policy"))
        policy = opened.value
        policy.bring_to_front()
        taxis = policy.get_by_text("Taxis are reimbursed")
        taxis.click(click_count=3)
        policy.keyboard.press("Alt+Shift+V")
        wait_for(log, "recorded web_verifyTextVisible", proc_of[0], timeout=30)
        policy.close()  # the person closes the tab: the browser shows the help page again
        page.bring_to_front()
        with page.context.expect_page() as popup:
            point_and_click(page, page.get_by_role("button", name="Open support chat"))
        chat = popup.value
        chat.bring_to_front()
        point_and_click(chat, chat.get_by_role("textbox", name="Message"))
        chat.keyboard.type("Where is my refund?")
        chat.keyboard.press("Enter")
        said = chat.get_by_text("Agent: Thanks, we will answer within a day.")
        said.click(click_count=3)
        chat.keyboard.press("Alt+Shift+V")
        wait_for(log, 'recorded web_verifyTextVisible: Check that "Agent: Thanks', proc_of[0], timeout=30)
        page.bring_to_front()
        status = page.get_by_role("status")
        status.get_by_text("The chat opened").wait_for()
        status.click(click_count=3)
        page.keyboard.press("Alt+Shift+V")

    save = "trails/help.trail.yaml"
    log = tmp_path / "help.log"
    proc_of: list[subprocess.Popen[bytes]] = []
    code, output = record_on(ws, "/account/help.html", save, env, act,
                             'recorded web_verifyTextVisible: Check that "The chat opened', log,
                             extra=["--setup", "trails/signed-in.trail.yaml"], started=proc_of.append)
    assert code == 0, output
    assert "warning" not in output, output
    saved = (ws / save).read_text()
    from trailblaze import load_yaml

    calls = [(name, args) for item in load_yaml(saved)["trail"] for call in item["recording"]["web"]
             for name, args in call.items()]
    summary = [(name, args.get("ref", args.get("index", args.get("text"))) if isinstance(args, dict) else None)
               for name, args in calls if name != "web_navigate"]
    assert summary == [
        ("web_click", 'link "Expense policy"'),
        ("web_switchTab", 1), ("web_verifyTextVisible", "Taxis are reimbursed up to $40 a ride."),
        ("web_closeTab", None),
        ("web_click", 'button "Open support chat"'),
        ("web_switchTab", 1), ("web_type", 'textbox "Message"'), ("web_pressKey", None),
        ("web_verifyTextVisible", "Agent: Thanks, we will answer within a day."),
        ("web_switchTab", 0), ("web_verifyTextVisible", "The chat opened in a new window"),
    ], saved
    replay = subprocess.run([str(TRAILBLAZE), "run", save], cwd=ws, env=env, capture_output=True,
                            text=True, timeout=300, check=False)
    assert replay.returncode == 0, replay.stdout + replay.stderr + saved
    assert "1 passed" in replay.stdout


def test_a_download_and_dialogs_are_recorded_as_checks_and_replay(tmp_path: Path, display: str) -> None:
    """On the expense reports: the CSV download link, "Delete Taxi" (a ``confirm``) and "Rename Hotel" (a
    ``prompt``), recorded with ``-o dialogs=dismiss``. The download becomes ``web_verifyDownload`` with its
    file name after the click; each dialog ``web_handleDialog`` with the answer the recording gave before
    the click that opened it and ``web_verifyDialog`` with its message after; the terminal shows each
    message and its answer. The trail replays green under the default setting (accept): it says its
    answers itself."""
    ws = shop_workspace(tmp_path / "shop")
    (ws / "trails" / "signed-in.trail.yaml").write_text(SIGNED_IN)
    env = {**server_env(), "DISPLAY": display}

    def act(page: Any) -> None:
        with page.expect_download():
            point_and_click(page, page.get_by_role("link", name="Download expenses (CSV)"))
        wait_for(log, "expenses.csv", proc_of[0], timeout=30)
        point_and_click(page, page.get_by_role("button", name="Delete Taxi"))
        page.get_by_text("Kept Taxi").wait_for()
        point_and_click(page, page.get_by_role("button", name="Rename Hotel"))
        page.get_by_text("Kept the name Hotel").wait_for()

    save = "trails/reports.trail.yaml"
    log = tmp_path / "reports.log"
    proc_of: list[subprocess.Popen[bytes]] = []
    code, output = record_on(ws, "/account/reports.html", save, env, act, 'prompt "New name for Hotel?"', log,
                             extra=["--setup", "trails/signed-in.trail.yaml", "-o", "dialogs=dismiss"],
                             started=proc_of.append)
    assert code == 0, output
    assert 'recorded web_handleDialog, web_verifyDialog: the confirm "Delete Taxi?" was answered dismiss' in output, output
    saved = (ws / save).read_text()
    from trailblaze import load_yaml

    calls = [(name, args) for item in load_yaml(saved)["trail"] for call in item["recording"]["web"]
             for name, args in call.items() if name != "web_navigate"]
    assert [(name, args.get("ref") or args) for name, args in calls] == [
        ("web_click", 'link "Download expenses (CSV)"'), ("web_verifyDownload", {"fileName": "expenses.csv"}),
        ("web_handleDialog", {"action": "dismiss"}), ("web_click", 'button "Delete Taxi"'),
        ("web_verifyDialog", {"message": "Delete Taxi?"}),
        ("web_handleDialog", {"action": "dismiss"}), ("web_click", 'button "Rename Hotel"'),
        ("web_verifyDialog", {"message": "New name for Hotel?"}),
    ], saved
    replay = subprocess.run([str(TRAILBLAZE), "run", save], cwd=ws, env=env, capture_output=True,
                            text=True, timeout=300, check=False)
    assert replay.returncode == 0, replay.stdout + replay.stderr + saved
    assert "1 passed" in replay.stdout
